//! Loaders turn one case's text into a [`Module`] whose entry is the case's entry function.
//! [`stablehlo`] is the one `xlac check` and `tests/conformance.rs` use; [`hlo_text`] reads
//! HLO text cases (for tests of the runner itself).
//!
//! A loader reports *why* it refused: [`LoadError::unsupported`] for input it understands
//! but cannot handle yet (an op not converted), anything else is an error in the file. The
//! runner turns these into `UNSUPPORTED` and `ERROR`.

use std::fmt;

use crate::ir::Module;
use crate::ir::hlo_text::parse_module;

/// Why a case could not be loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    /// True if xlac lacks something the case needs (UNSUPPORTED), false if the file is
    /// wrong (ERROR).
    pub unsupported: bool,
    /// The message, with its location.
    pub message: String,
}

impl LoadError {
    /// An error in the input.
    pub fn error(message: impl Into<String>) -> LoadError {
        LoadError {
            unsupported: false,
            message: message.into(),
        }
    }

    /// Something xlac does not support yet.
    pub fn unsupported(message: impl Into<String>) -> LoadError {
        LoadError {
            unsupported: true,
            message: message.into(),
        }
    }

    /// Classifies a loader's message: "not supported", "unsupported", "not implemented" or
    /// "does not run" mean unsupported, anything else is an error. A stopgap for loaders
    /// whose errors carry no kind.
    pub fn from_message(message: impl Into<String>) -> LoadError {
        let message = message.into();
        LoadError {
            unsupported: is_unsupported_message(&message),
            message,
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// True if an error message says that something is missing rather than wrong.
pub fn is_unsupported_message(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "not supported",
        "unsupported",
        "not implemented",
        "does not run",
        "does not support",
    ]
    .iter()
    .any(|k| m.contains(k))
}

/// A loader: `(chunk text, file name, number of lines before the chunk) -> module`.
/// A plain function, so that a case can run on its own thread.
pub type Loader = fn(&str, &str, usize) -> Result<Module, LoadError>;

/// The StableHLO loader.
///
/// INTEGRATION POINT: until the StableHLO converter (`crate::ir::stablehlo`) is merged this
/// refuses every case as unsupported. Once it is, the body becomes:
/// ```text
/// crate::ir::stablehlo::parse_chunk(text, file, line_offset)
///     .map(|parsed| parsed.module)
///     .map_err(|e| LoadError::from_message(e.to_string()))
/// ```
pub fn stablehlo(text: &str, file: &str, line_offset: usize) -> Result<Module, LoadError> {
    let line_offset = u32::try_from(line_offset).unwrap_or(u32::MAX);
    let module = crate::ir::stablehlo::parse_chunk(text, file, line_offset)
        .map_err(|e| LoadError::from_message(e.to_string()))?;
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
            Err(LoadError::from_message(format!("{file}: {first}{more}")))
        }
    }
}

/// Reads a case written as an HLO text module. Lines are numbered as in the whole file.
pub fn hlo_text(text: &str, file: &str, line_offset: usize) -> Result<Module, LoadError> {
    let shifted = format!("{}{text}", "\n".repeat(line_offset));
    let module = parse_module(&shifted, file)
        .map(|parsed| parsed.module)
        .map_err(|e| LoadError::from_message(e.to_string()))?;
    verified(module, file)
}
