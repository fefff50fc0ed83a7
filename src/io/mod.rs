//! Host arrays: the values that go into and come out of a run.
//!
//! - [`npy`]: one array in NumPy's `.npy` format, to and from an [`ArrayLiteral`](crate::ir::ArrayLiteral).
//! - [`npz`]: `.npz` archives and `.npy` files on disk (`--input`, `--output`).
//! - [`random_inputs`]: deterministic random values for parameters that have no input.
//! - [`arguments`]: matching input arrays to the entry parameters, with one-line errors that
//!   name the parameter, the expected and the given type.
//!
//! This is the host side of `xlac run` (design.md §4); it knows nothing of how a module runs.
//! XLA counterpart: `xla/tools/run_hlo_module.cc` (argument loading) and
//! `xla/tests/test_utils.cc` (`MakeFakeArguments`).

pub mod arguments;
pub mod npy;
pub mod npz;
pub mod random_inputs;

use std::fmt;

/// A failure reading, matching or writing host arrays: one line that names the file or
/// parameter concerned.
#[derive(Clone, Debug, PartialEq)]
pub struct IoError {
    /// What went wrong, ready to print after `error: `.
    pub message: String,
}

impl IoError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> IoError {
        IoError {
            message: message.into(),
        }
    }
}

impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for IoError {}

/// An OS error as a person reads it: `No such file or directory`, without Rust's
/// ` (os error 2)` suffix.
pub fn io_error_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}
