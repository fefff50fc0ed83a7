//! What kind of failure an error reports. Every error type on the way from a file to a
//! result (parse, verify, eval, codegen, runtime, compile) carries one, so that a caller
//! such as `xlac check` tells "xlac lacks this" from "this input is wrong" by type, never
//! by searching the message for words.

use std::fmt;

/// The kind of a failure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input is wrong: it breaks HLO's or StableHLO's rules, a declared shape, or a
    /// limit. The user fixes the input.
    #[default]
    Invalid,
    /// The input is valid but xlac lacks what it needs (an op, a type, an attribute form,
    /// a backend routine). xlac has to grow.
    Unsupported,
    /// xlac broke one of its own invariants (a caught panic, a module a pass left
    /// invalid): a bug in xlac.
    Internal,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Invalid => "invalid",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Internal => "internal",
        })
    }
}

/// A message and its kind, for helpers that have no location of their own (the CHLO
/// decompositions, dense-literal readers): their caller adds where. A plain `String`
/// converts to an [`ErrorKind::Invalid`] refusal, so `?` on string errors keeps working.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong.
    pub message: String,
}

impl Refusal {
    /// The input is wrong.
    pub fn invalid(message: impl Into<String>) -> Refusal {
        Refusal {
            kind: ErrorKind::Invalid,
            message: message.into(),
        }
    }

    /// xlac lacks what the input needs.
    pub fn unsupported(message: impl Into<String>) -> Refusal {
        Refusal {
            kind: ErrorKind::Unsupported,
            message: message.into(),
        }
    }
}

impl From<String> for Refusal {
    fn from(message: String) -> Refusal {
        Refusal::invalid(message)
    }
}

impl From<&str> for Refusal {
    fn from(message: &str) -> Refusal {
        Refusal::invalid(message)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refusal {}

/// Gives an error type with a `kind: ErrorKind` field its `unsupported()`.
macro_rules! impl_unsupported {
    ($error:ident) => {
        impl $error {
            /// The same error, marked as something xlac lacks rather than a fault in the
            /// input ([`ErrorKind::Unsupported`]).
            pub fn unsupported(self) -> $error {
                $error {
                    kind: $crate::ir::ErrorKind::Unsupported,
                    ..self
                }
            }
        }
    };
}
pub(crate) use impl_unsupported;
