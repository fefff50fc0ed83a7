//! The [`Pass`] trait: one module-to-module rewrite with XLA's name. Every pass of
//! `pipeline/`, `spmd/`, `layout/` and `fusion/` implements it; only `Pipeline::run`
//! calls it (and verifies, times and dumps around it).
//! XLA: `xla/hlo/pass/hlo_pass_interface.h`.

use std::fmt;

use crate::ir::Module;

/// Why a pass could not do its job (not "it found nothing to do": that is `Ok(false)`).
#[derive(Debug, Clone, PartialEq)]
pub struct PassError {
    /// Whether the module is wrong, the pass lacks a case, or xlac has a bug.
    pub kind: crate::ir::ErrorKind,
    /// What went wrong.
    pub message: String,
}

impl PassError {
    /// A pass error with a message: the module is wrong (the default kind).
    pub fn new(message: impl Into<String>) -> PassError {
        PassError {
            kind: crate::ir::ErrorKind::Invalid,
            message: message.into(),
        }
    }

    /// The same error, its message after `pass: ` (the pass that met it).
    pub fn in_pass(self, pass: &str) -> PassError {
        PassError {
            message: format!("{pass}: {}", self.message),
            ..self
        }
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

crate::ir::impl_unsupported!(PassError);

/// A module-to-module rewrite.
pub trait Pass {
    /// XLA's name for the pass; it goes into dump file names (`algsimp`, `dce`, `cse`).
    fn name(&self) -> &'static str;
    /// Rewrites `module` in place and returns whether anything changed.
    fn run(&mut self, module: &mut Module) -> Result<bool, PassError>;
}
