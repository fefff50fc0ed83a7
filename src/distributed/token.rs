//! The shared secret a controller presents before a worker reads any request: a worker runs
//! whatever program it is sent, so it must not serve anyone who can reach its port.

use std::fmt;
use std::path::Path;

use subtle::ConstantTimeEq;

/// The environment variable `xlac serve` and the controller read the token from when no
/// file is given.
pub const TOKEN_ENV: &str = "XLAC_SERVE_TOKEN";

/// The fewest bytes a token may have: short secrets are guessable.
pub const MIN_TOKEN_BYTES: usize = 16;

/// The most bytes a token may have (it travels in the handshake frame).
pub const MAX_TOKEN_BYTES: usize = 1024;

/// A shared secret. Its `Debug` form hides it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(Vec<u8>);

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token(<{} bytes>)", self.0.len())
    }
}

/// Why a token was refused where it was configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenError {
    /// Neither a file nor the environment variable gave one.
    Missing,
    /// The file could not be read.
    Unreadable(String),
    /// Shorter than [`MIN_TOKEN_BYTES`] or longer than [`MAX_TOKEN_BYTES`].
    BadLength(usize),
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::Missing => write!(
                f,
                "no token: give --token-file FILE or set {TOKEN_ENV} (a worker serves only controllers that present it)"
            ),
            TokenError::Unreadable(e) => write!(f, "cannot read the token file: {e}"),
            TokenError::BadLength(n) => write!(
                f,
                "a token of {n} bytes: it must have {MIN_TOKEN_BYTES} to {MAX_TOKEN_BYTES}"
            ),
        }
    }
}

impl std::error::Error for TokenError {}

impl Token {
    /// A token of these bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Result<Token, TokenError> {
        let bytes = bytes.into();
        if !(MIN_TOKEN_BYTES..=MAX_TOKEN_BYTES).contains(&bytes.len()) {
            return Err(TokenError::BadLength(bytes.len()));
        }
        Ok(Token(bytes))
    }

    /// The token in `file` (one trailing newline dropped), or else in [`TOKEN_ENV`].
    pub fn configured(file: Option<&Path>) -> Result<Token, TokenError> {
        match file {
            Some(path) => {
                let mut bytes = std::fs::read(path).map_err(|e| {
                    TokenError::Unreadable(format!(
                        "{}: {}",
                        path.display(),
                        crate::io::io_error_text(&e)
                    ))
                })?;
                if bytes.ends_with(b"\n") {
                    bytes.pop();
                    if bytes.ends_with(b"\r") {
                        bytes.pop();
                    }
                }
                Token::new(bytes)
            }
            None => match std::env::var_os(TOKEN_ENV) {
                Some(v) => Token::new(v.into_encoded_bytes()),
                None => Err(TokenError::Missing),
            },
        }
    }

    /// The bytes a controller sends.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// Whether `presented` is this token, in time independent of where they differ.
    pub fn matches(&self, presented: &[u8]) -> bool {
        bool::from(self.0.as_slice().ct_eq(presented))
    }
}

/// True when `file`'s mode lets users other than its owner read it (group or world read
/// permission): the token must stay secret.
pub fn readable_by_others(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).is_ok_and(|m| m.permissions().mode() & 0o044 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_match_only_themselves_and_hide_in_debug() {
        let t = Token::new(b"0123456789abcdef".to_vec()).unwrap();
        assert!(t.matches(b"0123456789abcdef"));
        assert!(!t.matches(b"0123456789abcdeF"));
        assert!(!t.matches(b"0123456789abcde"));
        assert!(!t.matches(b""));
        assert_eq!(format!("{t:?}"), "Token(<16 bytes>)");
        assert_eq!(Token::new(b"short".to_vec()), Err(TokenError::BadLength(5)));
        assert!(Token::new(vec![b'x'; MAX_TOKEN_BYTES + 1]).is_err());
    }
}
