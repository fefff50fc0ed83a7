//! The lexical layer of HLO text: a cursor over the source that skips whitespace and
//! comments, reads identifiers, names, integers and strings, and finds where an attribute
//! value ends. It is not a token stream: HLO's attribute values (`b01f_01io->b01f`,
//! `0_0x1_1`, `{size=3x3 pad=1_1x1_1}`) are easier to read with small purpose-built
//! readers over the characters than with one context-free tokenizer.
//! XLA: `xla/hlo/parser/hlo_lexer.cc` (which instead decides token kinds by lookahead).

use super::ParseError;
use crate::ir::Span;

/// Deepest nesting of brackets the parser follows (tuple shapes, literals, nested
/// operands, inline computations). Deeper input is rejected instead of overflowing the stack.
pub(super) const MAX_DEPTH: usize = 64;

/// The whole text being parsed, with a line index for error positions.
pub(super) struct Source<'a> {
    /// The text.
    pub text: &'a str,
    /// The file name for messages.
    pub file: &'a str,
    /// Byte offset of the first character of each line.
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    /// Indexes `text`.
    pub fn new(text: &'a str, file: &'a str) -> Source<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source {
            text,
            file,
            line_starts,
        }
    }

    /// The 1-based line and column of a byte offset (the column counts characters).
    pub fn span(&self, pos: usize) -> Span {
        let pos = pos.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= pos).max(1);
        let start = self.line_starts[line - 1];
        let col = self
            .text
            .get(start..pos)
            .map_or(pos - start, |s| s.chars().count())
            + 1;
        Span {
            line: line as u32,
            col: col as u32,
        }
    }

    /// An error (or warning) located at a byte offset.
    pub fn error(&self, pos: usize, message: impl Into<String>) -> ParseError {
        let span = self.span(pos);
        ParseError {
            kind: crate::ir::ErrorKind::Invalid,
            file: self.file.to_string(),
            line: span.line,
            col: span.col,
            message: message.into(),
        }
    }
}

/// Result type of the parser's readers.
pub(super) type PResult<T> = Result<T, ParseError>;

/// A position in a [`Source`], reading up to `end` (the whole text, or one attribute value).
#[derive(Clone)]
pub(super) struct Cursor<'a> {
    /// The text and its line index.
    pub src: &'a Source<'a>,
    /// Current byte offset.
    pub pos: usize,
    /// Reading stops here.
    pub end: usize,
}

/// True for characters that may continue an identifier (`add.3`, `is-finite`).
fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-'
}

impl<'a> Cursor<'a> {
    /// A cursor over the whole source.
    pub fn new(src: &'a Source<'a>) -> Cursor<'a> {
        Cursor {
            src,
            pos: 0,
            end: src.text.len(),
        }
    }

    /// A cursor over `start..end` of the same source (one attribute value).
    pub fn sub(&self, start: usize, end: usize) -> Cursor<'a> {
        Cursor {
            src: self.src,
            pos: start,
            end,
        }
    }

    /// The bytes from the current position to `end`.
    fn rest(&self) -> &'a [u8] {
        &self.src.text.as_bytes()[self.pos.min(self.end)..self.end]
    }

    /// The text between two offsets.
    pub fn slice(&self, start: usize, end: usize) -> &'a str {
        self.src.text.get(start..end).unwrap_or("")
    }

    /// An error at the current position (after whitespace).
    pub fn err(&mut self, message: impl Into<String>) -> ParseError {
        self.skip_ws();
        self.src.error(self.pos, message)
    }

    /// An error that says what was expected and shows what is there instead.
    pub fn expected(&mut self, what: &str) -> ParseError {
        self.skip_ws();
        let found = self.describe_here();
        self.src
            .error(self.pos, format!("expected {what}, found {found}"))
    }

    /// A short description of the text at the cursor, for messages.
    pub fn describe_here(&self) -> String {
        let rest = self.rest();
        if rest.is_empty() {
            return "end of input".to_string();
        }
        let text = self.slice(self.pos, self.end);
        let word: String = text
            .chars()
            .take_while(|c| !c.is_whitespace())
            .take(24)
            .collect();
        format!("`{word}`")
    }

    /// Skips whitespace and `/* ... */` and `// ...` comments.
    pub fn skip_ws(&mut self) {
        loop {
            let rest = self.rest();
            match rest {
                [c, ..] if c.is_ascii_whitespace() => self.pos += 1,
                [b'/', b'*', ..] => {
                    let body = &rest[2..];
                    let close = body.windows(2).position(|w| w == b"*/");
                    self.pos += close.map_or(rest.len(), |i| i + 4);
                }
                [b'/', b'/', ..] => {
                    let nl = rest.iter().position(|&c| c == b'\n');
                    self.pos += nl.unwrap_or(rest.len());
                }
                _ => return,
            }
        }
    }

    /// True if only whitespace and comments remain.
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.end
    }

    /// The next byte after whitespace, without consuming it.
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.rest().first().copied()
    }

    /// The byte `n` places after the current position (no whitespace skipping).
    pub fn peek_at(&self, n: usize) -> Option<u8> {
        self.rest().get(n).copied()
    }

    /// True if the text at the cursor (after whitespace) starts with `s`.
    pub fn looking_at(&mut self, s: &str) -> bool {
        self.skip_ws();
        self.rest().starts_with(s.as_bytes())
    }

    /// Consumes `s` (after whitespace) if it is next.
    pub fn eat(&mut self, s: &str) -> bool {
        if self.looking_at(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Consumes `s` or fails with "expected `s`".
    pub fn expect(&mut self, s: &str) -> PResult<()> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{s}`")))
        }
    }

    /// Reads an identifier `[a-zA-Z_][a-zA-Z0-9_.-]*` (a `-` directly before `>` is left,
    /// so `b01f_01io->b01f` splits at the arrow). Returns `None` if there is none.
    pub fn ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        match rest.first() {
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {}
            _ => return None,
        }
        let mut n = 1;
        while n < rest.len() && is_ident_char(rest[n]) {
            if rest[n] == b'-' && rest.get(n + 1) == Some(&b'>') {
                break;
            }
            n += 1;
        }
        let start = self.pos;
        self.pos += n;
        Some(self.slice(start, self.pos))
    }

    /// Reads an identifier or fails with "expected {what}".
    pub fn expect_ident(&mut self, what: &str) -> PResult<&'a str> {
        match self.ident() {
            Some(s) => Ok(s),
            None => Err(self.expected(what)),
        }
    }

    /// Reads a name: an identifier with an optional `%` sigil (returned without it).
    /// XLA names may also start with a digit after `%` in some dumps, so accept that too.
    pub fn name(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let save = self.pos;
        if self.rest().first() == Some(&b'%') {
            self.pos += 1;
            let rest = self.rest();
            let n = rest.iter().take_while(|&&c| is_ident_char(c)).count();
            if n == 0 {
                self.pos = save;
                return None;
            }
            let start = self.pos;
            self.pos += n;
            return Some(self.slice(start, self.pos));
        }
        self.ident()
    }

    /// Reads a name or fails with "expected {what}".
    pub fn expect_name(&mut self, what: &str) -> PResult<&'a str> {
        match self.name() {
            Some(s) => Ok(s),
            None => Err(self.expected(what)),
        }
    }

    /// Reads the text of an integer `-?[0-9]+` without converting it.
    fn integer_text(&mut self) -> Option<(usize, &'a str)> {
        self.skip_ws();
        let rest = self.rest();
        let sign = usize::from(rest.first() == Some(&b'-'));
        let digits = rest[sign..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 {
            return None;
        }
        let start = self.pos;
        self.pos += sign + digits;
        Some((start, self.slice(start, self.pos)))
    }

    /// Reads a signed 64-bit integer; too large a value is an error, not a wrap.
    pub fn int(&mut self) -> PResult<i64> {
        let Some((start, text)) = self.integer_text() else {
            return Err(self.expected("an integer"));
        };
        text.parse::<i64>().map_err(|_| {
            self.src
                .error(start, format!("integer `{text}` does not fit in 64 bits"))
        })
    }

    /// Reads a non-negative integer that indexes something (a dimension, an operand).
    pub fn index(&mut self) -> PResult<usize> {
        self.skip_ws();
        let start = self.pos;
        let v = self.int()?;
        usize::try_from(v).map_err(|_| {
            self.src
                .error(start, format!("expected a non-negative integer, found {v}"))
        })
    }

    /// Reads a `"..."` or `'...'` string with C escapes (`\n`, `\"`, `\x41`, octal `\303`
    /// as XLA's `CEscape` writes non-ASCII bytes) and returns its contents.
    pub fn string(&mut self) -> PResult<String> {
        self.skip_ws();
        let start = self.pos;
        let quote = match self.rest().first() {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => return Err(self.expected("a string")),
        };
        let bytes = self.rest();
        let mut out: Vec<u8> = Vec::new();
        let mut i = 1;
        while i < bytes.len() {
            let c = bytes[i];
            i += 1;
            if c == quote {
                self.pos += i;
                return Ok(String::from_utf8_lossy(&out).into_owned());
            }
            if c != b'\\' {
                out.push(c);
                continue;
            }
            let Some(&e) = bytes.get(i) else { break };
            i += 1;
            match e {
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'r' => out.push(b'\r'),
                b'x' => {
                    let n = bytes[i..]
                        .iter()
                        .take(2)
                        .take_while(|c| c.is_ascii_hexdigit())
                        .count();
                    let hex = std::str::from_utf8(&bytes[i..i + n]).unwrap_or("");
                    let Ok(b) = u8::from_str_radix(hex, 16) else {
                        return Err(self.src.error(start + i, "bad `\\x` escape in string"));
                    };
                    out.push(b);
                    i += n;
                }
                b'0'..=b'7' => {
                    let n = 1 + bytes[i..]
                        .iter()
                        .take(2)
                        .take_while(|c| (b'0'..=b'7').contains(c))
                        .count();
                    let oct = std::str::from_utf8(&bytes[i - 1..i - 1 + n]).unwrap_or("0");
                    out.push(u8::from_str_radix(oct, 8).unwrap_or(u8::MAX));
                    i += n - 1;
                }
                other => out.push(other),
            }
        }
        Err(self.src.error(start, "unterminated string"))
    }

    /// Finds the end of an attribute value that starts at the cursor: the first `,` or
    /// newline outside brackets and strings, or an unmatched closing bracket. Returns the
    /// value's (start, end) with surrounding whitespace trimmed, and moves past it.
    pub fn scan_value(&mut self) -> PResult<(usize, usize)> {
        self.skip_ws();
        let start = self.pos;
        let bytes = self.src.text.as_bytes();
        let mut depth = 0usize;
        let mut i = self.pos;
        while i < self.end {
            match bytes[i] {
                q @ (b'"' | b'\'') => {
                    i += 1;
                    while i < self.end && bytes[i] != q {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                    if i >= self.end {
                        return Err(self
                            .src
                            .error(start, "unterminated string in attribute value"));
                    }
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    let close = self.src.text[i + 2..self.end].find("*/");
                    i = close.map_or(self.end, |c| i + 2 + c + 1);
                }
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                // XLA's mesh replica groups continue past a comma:
                // `mesh['a'=2,'b'=4], device_ids=([4,2]T(1,0)) {'b'}`.
                b',' if depth == 0
                    && self.src.text[start..i].starts_with("mesh")
                    && self.src.text[i + 1..self.end]
                        .trim_start()
                        .starts_with("device_ids=") => {}
                b',' | b'\n' if depth == 0 => break,
                b' ' | b'\t' | b'\r' if depth == 0 => {
                    // Only a separator, a comment or the end may follow a value (and a
                    // mesh replica group's axis list: `mesh['a'=4,'b'=2] {'b'}`).
                    let mut j = i;
                    while j < self.end && matches!(bytes[j], b' ' | b'\t' | b'\r') {
                        j += 1;
                    }
                    let mesh = self.src.text[start..i].starts_with("mesh");
                    match bytes.get(j) {
                        None | Some(b',' | b'\n' | b'}' | b')' | b'/') => {}
                        Some(b'{') if mesh => {}
                        Some(b'd') if mesh && self.src.text[j..].starts_with("device_ids=") => {}
                        Some(_) if j >= self.end => {}
                        Some(_) => {
                            let word: String = self.src.text[j..self.end]
                                .chars()
                                .take_while(|c| !c.is_whitespace())
                                .take(24)
                                .collect();
                            return Err(self.src.error(
                                j,
                                format!("unexpected `{word}` after an attribute value"),
                            ));
                        }
                    }
                    i = j - 1;
                }
                _ => {}
            }
            i += 1;
        }
        if depth > 0 {
            return Err(self
                .src
                .error(start, "unbalanced brackets in attribute value"));
        }
        let end = i.min(self.end);
        self.pos = end;
        let trimmed_end = start + self.src.text[start..end].trim_end().len();
        if trimmed_end == start {
            return Err(self.src.error(start, "missing attribute value"));
        }
        Ok((start, trimmed_end))
    }

    /// Skips a balanced `{...}`, `(...)` or `[...]` group starting at the cursor and returns
    /// its text including the brackets.
    pub fn balanced(&mut self) -> PResult<&'a str> {
        self.skip_ws();
        let start = self.pos;
        let mut depth = 0usize;
        let bytes = self.src.text.as_bytes();
        let mut i = self.pos;
        while i < self.end {
            match bytes[i] {
                q @ (b'"' | b'\'') => {
                    i += 1;
                    while i < self.end && bytes[i] != q {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                }
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.pos = i + 1;
                        return Ok(self.slice(start, self.pos));
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Err(self.src.error(start, "unbalanced brackets"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_count_lines_and_characters() {
        let src = Source::new("ab\ncd é x\n", "f.hlo");
        assert_eq!(src.span(0), Span { line: 1, col: 1 });
        assert_eq!(src.span(3), Span { line: 2, col: 1 });
        // "cd é x": `x` is the 6th character but at byte 6 of the line ('é' is two bytes).
        assert_eq!(src.span(3 + 6), Span { line: 2, col: 6 });
    }

    #[test]
    fn skips_comments_and_reads_identifiers() {
        let src = Source::new("  /* c */ add.3-x // rest\n %p.1 b01f_01io->b01f", "f");
        let mut c = Cursor::new(&src);
        assert_eq!(c.ident(), Some("add.3-x"));
        assert_eq!(c.name(), Some("p.1"));
        assert_eq!(c.ident(), Some("b01f_01io"));
        assert!(c.eat("->"));
    }

    #[test]
    fn scan_value_stops_at_top_level_comma() {
        let src = Source::new(r#"{a, "x,}"}, b=2"#, "f");
        let mut c = Cursor::new(&src);
        let (s, e) = c.scan_value().unwrap();
        assert_eq!(&src.text[s..e], r#"{a, "x,}"}"#);
        assert!(c.eat(","));
    }

    #[test]
    fn integers_are_range_checked() {
        let src = Source::new("99999999999999999999", "f");
        let err = Cursor::new(&src).int().unwrap_err();
        assert!(err.message.contains("does not fit"), "{}", err.message);
    }

    #[test]
    fn strings_unescape() {
        let src = Source::new(r#""a\"b\n\x41\303\251" 'q'"#, "f");
        let mut cur = Cursor::new(&src);
        assert_eq!(cur.string().unwrap(), "a\"b\nAé");
        assert_eq!(cur.string().unwrap(), "q");
        let src = Source::new(r#""abc"#, "f");
        assert_eq!(
            Cursor::new(&src).string().unwrap_err().message,
            "unterminated string"
        );
    }
}
