//! The small cursor every sharding parser reads with (HLO `sharding=` values,
//! `mhlo.sharding` strings, the `#sdy` forms), with the size limits they share. Apart from
//! `parse.rs` so that the HLO and Shardy parsers both build on it without reaching into
//! each other.

use super::{MAX_DEVICES, SResult, ShardingError, err};

/// The longest sharding text the parsers read.
pub const MAX_SHARDING_TEXT: usize = 1 << 20;

/// A small cursor over sharding text (HLO `sharding=` values, `mhlo.sharding` strings and
/// the `#sdy` forms).
pub(super) struct Cur<'a> {
    pub(super) s: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Cur<'a> {
    pub(super) fn new(s: &'a str) -> Cur<'a> {
        Cur {
            s: s.as_bytes(),
            pos: 0,
        }
    }

    pub(super) fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    pub(super) fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(t.as_bytes()) {
            self.pos += t.len();
            true
        } else {
            false
        }
    }

    pub(super) fn rest(&self) -> String {
        let end = (self.pos + 24).min(self.s.len());
        String::from_utf8_lossy(&self.s[self.pos..end]).into_owned()
    }

    pub(super) fn expect(&mut self, t: &str) -> SResult<()> {
        if self.eat(t) {
            Ok(())
        } else {
            err(format!("expected `{t}` at `{}`", self.rest()))
        }
    }

    pub(super) fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    pub(super) fn int(&mut self) -> SResult<i64> {
        self.ws();
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos])
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| ShardingError(format!("expected an integer at `{}`", self.rest())))
    }

    pub(super) fn word(&mut self) -> &'a str {
        self.ws();
        let start = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_alphanumeric() || b"_.-".contains(&self.s[self.pos]))
        {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("")
    }

    /// `[a,b,...]` (possibly empty).
    pub(super) fn int_list(&mut self, open: &str, close: &str) -> SResult<Vec<i64>> {
        self.expect(open)?;
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(self.int()?);
            if v.len() as i64 > MAX_DEVICES {
                return err(format!("more than {MAX_DEVICES} numbers in a list"));
            }
            if self.eat(close) {
                return Ok(v);
            }
            self.expect(",")?;
        }
    }

    /// A quoted string (`"x"` or `'x'`), without escapes.
    pub(super) fn quoted(&mut self) -> SResult<&'a str> {
        self.ws();
        let q = match self.peek() {
            Some(q @ (b'"' | b'\'')) => q,
            _ => return err(format!("expected a quoted name at `{}`", self.rest())),
        };
        self.pos += 1;
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos] != q {
            self.pos += 1;
        }
        if self.pos >= self.s.len() {
            return err("unterminated quoted name");
        }
        let t = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
        self.pos += 1;
        Ok(t)
    }

    /// Skips a balanced `{...}` block (sharding metadata).
    pub(super) fn skip_braced(&mut self) -> SResult<()> {
        self.expect("{")?;
        let mut depth = 1;
        while self.pos < self.s.len() {
            match self.s[self.pos] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                b'"' => {
                    self.pos += 1;
                    while self.pos < self.s.len() && self.s[self.pos] != b'"' {
                        if self.s[self.pos] == b'\\' {
                            self.pos += 1;
                        }
                        self.pos += 1;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        err("unterminated `{`")
    }

    pub(super) fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.s.len()
    }
}

pub(super) fn checked_product(v: &[i64]) -> SResult<i64> {
    let mut p: i64 = 1;
    for &d in v {
        if d <= 0 {
            return err(format!("tile dimension {d} is not positive"));
        }
        p = p
            .checked_mul(d)
            .filter(|&p| p <= MAX_DEVICES)
            .ok_or_else(|| ShardingError(format!("more than {MAX_DEVICES} devices")))?;
    }
    Ok(p)
}
