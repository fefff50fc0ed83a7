//! Loaders turn one case's text into a [`Module`] whose entry is the case's entry function.
//! [`stablehlo`] is the one `xlac check` and `tests/conformance.rs` use; [`hlo_text`] reads
//! HLO text cases (for tests of the runner itself).
//!
//! A loader reports *why* it refused with the error's [`ErrorKind`]: `Unsupported` for
//! input it understands but cannot handle yet (an op not converted), anything else is an
//! error in the file. The runner turns these into `UNSUPPORTED` and `ERROR`.

use std::fmt;

use crate::front::hlo_text::parse_module;
use crate::ir::{ErrorKind, Module};

/// Why a case could not be loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    /// [`ErrorKind::Unsupported`] if xlac lacks something the case needs (UNSUPPORTED),
    /// otherwise the file is wrong or xlac failed (ERROR).
    pub kind: ErrorKind,
    /// The message, with its location.
    pub message: String,
}

impl LoadError {
    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> LoadError {
        LoadError {
            kind,
            message: message.into(),
        }
    }

    /// An error in the input.
    pub fn error(message: impl Into<String>) -> LoadError {
        LoadError::new(ErrorKind::Invalid, message)
    }

    /// Something xlac does not support yet.
    pub fn unsupported(message: impl Into<String>) -> LoadError {
        LoadError::new(ErrorKind::Unsupported, message)
    }

    /// True if xlac lacks what the case needs.
    pub fn is_unsupported(&self) -> bool {
        self.kind == ErrorKind::Unsupported
    }
}

impl From<crate::front::hlo_text::ParseError> for LoadError {
    fn from(e: crate::front::hlo_text::ParseError) -> LoadError {
        LoadError::new(e.kind, e.to_string())
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A loader: `(chunk text, file name, number of lines before the chunk) -> module`.
/// A plain function, so that a case can run on its own thread.
pub type Loader = fn(&str, &str, usize) -> Result<Module, LoadError>;

/// The StableHLO loader.
pub fn stablehlo(text: &str, file: &str, line_offset: usize) -> Result<Module, LoadError> {
    let line_offset = u32::try_from(line_offset).unwrap_or(u32::MAX);
    let module = crate::front::stablehlo::parse_chunk(text, file, line_offset)?;
    verified(module, file)
}

/// The module if the verifier accepts it (as `xlac run` requires: a recursive function
/// would otherwise recurse in the interpreter until the stack overflows), else its first
/// finding as an error.
fn verified(module: Module, file: &str) -> Result<Module, LoadError> {
    match crate::ir::verifier::verify(&module) {
        Ok(()) => Ok(module),
        Err(errors) => {
            let first = errors.first().map_or_else(
                || "the verifier rejected the module".to_string(),
                |e| e.to_string(),
            );
            let more = match errors.len() {
                0 | 1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            Err(LoadError::error(format!("{file}: {first}{more}")))
        }
    }
}

/// Reads a case written as an HLO text module. Lines are numbered as in the whole file.
pub fn hlo_text(text: &str, file: &str, line_offset: usize) -> Result<Module, LoadError> {
    let shifted = format!("{}{text}", "\n".repeat(line_offset));
    let module = parse_module(&shifted, file).map(|parsed| parsed.module)?;
    verified(module, file)
}
