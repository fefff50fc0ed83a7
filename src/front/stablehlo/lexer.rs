//! The cursor over MLIR text: whitespace and `//` comments, identifiers, `%values`,
//! `@symbols`, numbers, strings, and positions for error messages.
//! MLIR: `mlir/lib/AsmParser/Lexer.cpp` (this is a character cursor, not a token stream:
//! MLIR's custom op syntaxes are easier to read one character class at a time).

use super::location::LocationAliases;
use crate::front::hlo_text::ParseError;

/// Result of a parse step.
pub type PResult<T> = Result<T, ParseError>;

/// A position in the source: 1-based line and column, already shifted by the line offset.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Loc {
    /// 1-based line in the original file.
    pub line: u32,
    /// 1-based column (in characters).
    pub col: u32,
}

/// The text being parsed and how to turn byte offsets into file positions.
pub struct Cursor<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// Byte offset of the next unread character.
    pub pos: usize,
    file: &'a str,
    /// Added to every line number (the chunk's first line is `line_offset + 1`).
    line_offset: u32,
    /// Byte offsets where each line starts.
    line_starts: Vec<usize>,
    /// The text's `#name = loc(...)` aliases (see [`LocationAliases`]).
    pub locations: LocationAliases,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`. Line numbers in errors are shifted by `line_offset`.
    pub fn new(text: &'a str, file: &'a str, line_offset: u32) -> Cursor<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Cursor {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            file,
            line_offset,
            line_starts,
            locations: LocationAliases::default(),
        }
    }

    /// The file name used in errors.
    pub fn file(&self) -> &'a str {
        self.file
    }

    /// The location of byte offset `pos`.
    pub fn loc_of(&self, pos: usize) -> Loc {
        let pos = pos.min(self.text.len());
        let line = match self.line_starts.binary_search(&pos) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..pos)
            .map(|s| s.chars().count())
            .unwrap_or(pos - start)
            + 1;
        Loc {
            line: line as u32 + 1 + self.line_offset,
            col: col as u32,
        }
    }

    /// The location of the next token (after whitespace).
    pub fn loc(&mut self) -> Loc {
        self.skip_ws();
        self.loc_of(self.pos)
    }

    /// An error at a location.
    pub fn error_at(&self, loc: Loc, message: impl Into<String>) -> ParseError {
        ParseError {
            kind: crate::ir::ErrorKind::Invalid,
            file: self.file.to_string(),
            line: loc.line,
            col: loc.col,
            message: message.into(),
        }
    }

    /// An error at the next token.
    pub fn err(&mut self, message: impl Into<String>) -> ParseError {
        let loc = self.loc();
        self.error_at(loc, message)
    }

    /// "expected X, found Y" at the next token.
    pub fn expected(&mut self, what: &str) -> ParseError {
        let found = self.describe_here();
        self.err(format!("expected {what}, found {found}"))
    }

    /// The next token, shortened, for messages.
    pub fn describe_here(&mut self) -> String {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        if rest.is_empty() {
            return "end of input".into();
        }
        let word: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '%' | '@' | '#' | '$'))
            .take(30)
            .collect();
        let shown = if word.is_empty() {
            rest.chars().take(1).collect()
        } else {
            word
        };
        format!("'{}'", shown.escape_debug())
    }

    /// Skips whitespace and `//` comments.
    pub fn skip_ws(&mut self) {
        loop {
            while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.bytes[self.pos..].starts_with(b"//") {
                while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if self.bytes[self.pos..].starts_with("\u{feff}".as_bytes()) {
                self.pos += 3;
            } else {
                return;
            }
        }
    }

    /// True when only whitespace and comments remain.
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.bytes.len()
    }

    /// The next byte after whitespace.
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes.get(self.pos).copied()
    }

    /// The byte `n` places after the current position (no whitespace skipping).
    pub fn peek_raw(&self, n: usize) -> Option<u8> {
        self.bytes.get(self.pos + n).copied()
    }

    /// True if the text after whitespace starts with `s`.
    pub fn looking_at(&mut self, s: &str) -> bool {
        self.skip_ws();
        self.text[self.pos..].starts_with(s)
    }

    /// True if the next token is the keyword `word` (not a prefix of a longer identifier).
    pub fn looking_at_word(&mut self, word: &str) -> bool {
        self.looking_at(word)
            && !self
                .bytes
                .get(self.pos + word.len())
                .is_some_and(|&b| is_ident_char(b))
    }

    /// Consumes `s` if it comes next.
    pub fn eat(&mut self, s: &str) -> bool {
        let found = self.looking_at(s);
        self.skip_if(found, s.len())
    }

    /// Consumes the keyword `word` if it comes next.
    pub fn eat_word(&mut self, word: &str) -> bool {
        let found = self.looking_at_word(word);
        self.skip_if(found, word.len())
    }

    /// Moves past the next `len` bytes if `found`; returns `found`.
    fn skip_if(&mut self, found: bool, len: usize) -> bool {
        if found {
            self.pos += len;
        }
        found
    }

    /// Consumes `s` or fails.
    pub fn expect(&mut self, s: &str) -> PResult<()> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{s}'")))
        }
    }

    /// An identifier: letters, digits, `_`, `.`, `$` after the first letter.
    pub fn ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let start = self.pos;
        match self.bytes.get(start) {
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {}
            _ => return None,
        }
        let mut end = start + 1;
        while end < self.bytes.len() && is_ident_char(self.bytes[end]) {
            end += 1;
        }
        self.pos = end;
        Some(&self.text[start..end])
    }

    /// An identifier or an error naming what was wanted.
    pub fn expect_ident(&mut self, what: &str) -> PResult<&'a str> {
        match self.ident() {
            Some(s) => Ok(s),
            None => Err(self.expected(what)),
        }
    }

    /// The name after a sigil (`%`, `@`, `^`, `#`): identifier characters or digits, or a
    /// quoted string (`@"name"`).
    pub fn sigil_name(&mut self, sigil: u8) -> PResult<Option<String>> {
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&sigil) {
            return Ok(None);
        }
        if self.bytes.get(self.pos + 1) == Some(&b'"') {
            self.pos += 1;
            return self.string().map(Some);
        }
        let start = self.pos + 1;
        let mut end = start;
        while end < self.bytes.len()
            && (is_ident_char(self.bytes[end])
                || (self.bytes[end] == b'-' && self.bytes.get(end + 1) != Some(&b'>')))
        {
            end += 1;
        }
        if end == start {
            return Err(self.err(format!("expected a name after '{}'", sigil as char)));
        }
        self.pos = end;
        Ok(Some(self.text[start..end].to_string()))
    }

    /// A double-quoted string with MLIR escapes (`\n`, `\"`, `\\`, two hex digits).
    pub fn string(&mut self) -> PResult<String> {
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b'"') {
            return Err(self.expected("a string"));
        }
        let start_loc = self.loc_of(self.pos);
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.error_at(start_loc, "unterminated string"));
            };
            self.pos += 1;
            match b {
                b'"' => break,
                b'\n' => return Err(self.error_at(start_loc, "unterminated string")),
                b'\\' => {
                    let Some(&e) = self.bytes.get(self.pos) else {
                        return Err(self.error_at(start_loc, "unterminated string"));
                    };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'"' | b'\\' => out.push(e),
                        _ => {
                            let hex = [e, self.bytes.get(self.pos).copied().unwrap_or(0)];
                            let v = std::str::from_utf8(&hex)
                                .ok()
                                .and_then(|h| u8::from_str_radix(h, 16).ok());
                            match v {
                                Some(v) => {
                                    self.pos += 1;
                                    out.push(v);
                                }
                                None => return Err(self.err("bad escape in string")),
                            }
                        }
                    }
                }
                _ => out.push(b),
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// The raw text of a number token: `-`, digits, `.`, exponent, or `0x` hex digits.
    /// Returns `None` (consuming nothing) when no number comes next.
    pub fn number_text(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let start = self.pos;
        let mut end = start;
        if self.bytes.get(end) == Some(&b'-') || self.bytes.get(end) == Some(&b'+') {
            end += 1;
        }
        if !self.bytes.get(end).is_some_and(|b| b.is_ascii_digit()) {
            return None;
        }
        if self.bytes[end..].starts_with(b"0x") || self.bytes[end..].starts_with(b"0X") {
            end += 2;
            while end < self.bytes.len() && self.bytes[end].is_ascii_hexdigit() {
                end += 1;
            }
        } else {
            while end < self.bytes.len() && self.bytes[end].is_ascii_digit() {
                end += 1;
            }
            if self.bytes.get(end) == Some(&b'.') {
                end += 1;
                while end < self.bytes.len() && self.bytes[end].is_ascii_digit() {
                    end += 1;
                }
            }
            if matches!(self.bytes.get(end), Some(b'e' | b'E')) {
                let mut e = end + 1;
                if matches!(self.bytes.get(e), Some(b'+' | b'-')) {
                    e += 1;
                }
                if self.bytes.get(e).is_some_and(|b| b.is_ascii_digit()) {
                    while e < self.bytes.len() && self.bytes[e].is_ascii_digit() {
                        e += 1;
                    }
                    end = e;
                }
            }
        }
        self.pos = end;
        Some(&self.text[start..end])
    }

    /// A (possibly negative) decimal integer.
    pub fn int(&mut self) -> PResult<i64> {
        let loc = self.loc();
        match self.number_text() {
            Some(t) => t
                .parse::<i64>()
                .map_err(|_| self.error_at(loc, format!("expected an integer, found '{t}'"))),
            None => Err(self.expected("an integer")),
        }
    }

    /// Skips a balanced group starting at `open` (`(`, `[`, `{` or `<`), strings included,
    /// and returns its text (with the delimiters).
    pub fn balanced(&mut self) -> PResult<&'a str> {
        self.skip_ws();
        let start = self.pos;
        let start_loc = self.loc_of(start);
        let mut stack: Vec<u8> = Vec::new();
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(
                    self.error_at(start_loc, "unbalanced brackets: this group is never closed")
                );
            };
            match b {
                b'(' | b'[' | b'{' | b'<' => stack.push(b),
                b')' | b']' | b'}' | b'>' => {
                    // `->` inside a group is an arrow, not a closing angle bracket.
                    if b == b'>' && self.pos > 0 && self.bytes[self.pos - 1] == b'-' {
                        self.pos += 1;
                        continue;
                    }
                    let open = match b {
                        b')' => b'(',
                        b']' => b'[',
                        b'}' => b'{',
                        _ => b'<',
                    };
                    if stack.pop() != Some(open) {
                        return Err(
                            self.err(format!("unbalanced brackets: unexpected '{}'", b as char))
                        );
                    }
                }
                b'"' => {
                    self.string()?;
                    if stack.is_empty() {
                        break;
                    }
                    continue;
                }
                _ => {}
            }
            self.pos += 1;
            if stack.is_empty() {
                break;
            }
        }
        Ok(&self.text[start..self.pos])
    }

    /// The text from `start` to the current position.
    pub fn slice_from(&self, start: usize) -> &'a str {
        &self.text[start..self.pos]
    }
}

/// Characters allowed after the first in identifiers and value names (value names also
/// allow `-`).
pub fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_include_the_line_offset() {
        let mut c = Cursor::new("a\n  b", "f.mlir", 10);
        c.ident();
        assert_eq!(c.loc(), Loc { line: 12, col: 3 });
    }

    #[test]
    fn comments_and_balanced_groups() {
        let mut c = Cursor::new("// x\n <a<b>, \"c>\" -> d> rest", "f", 0);
        assert_eq!(c.balanced().unwrap(), "<a<b>, \"c>\" -> d>");
        assert_eq!(c.ident(), Some("rest"));
        let mut c = Cursor::new("{ ( }", "f", 0);
        assert!(c.balanced().unwrap_err().message.contains("unbalanced"));
    }

    #[test]
    fn numbers() {
        let mut c = Cursor::new("-1.5e+3 0x7FC0 12", "f", 0);
        assert_eq!(c.number_text(), Some("-1.5e+3"));
        assert_eq!(c.number_text(), Some("0x7FC0"));
        assert_eq!(c.int().unwrap(), 12);
    }
}
