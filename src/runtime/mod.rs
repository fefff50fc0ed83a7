//! The runtime: an [`Executable`] is a thunk sequence over the buffer plan (kernel calls,
//! library calls for dot, convolution, sort, ..., copies, while, conditional, call, custom
//! calls), with buffers allocated once and reused across runs. Large kernels split their
//! range over a rayon pool. XLA: `xla/backends/cpu/runtime/` (thunks, `ThunkExecutor`),
//! `xla/service/cpu/thunk_emitter.cc`; ../shared/notes/xla-cpu.md §10.1.

use std::fmt;

use crate::codegen::KernelSet;
use crate::ir::{Literal, Module};
use crate::layout::BufferAssignment;

/// Why building or running an executable failed; names the instruction where there is one.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeError {
    /// What went wrong.
    pub message: String,
}

impl RuntimeError {
    /// A runtime error with a message.
    pub fn new(message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            message: message.into(),
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuntimeError {}

/// A compiled module ready to run: the final module, its buffer plan and kernels.
pub struct Executable {
    /// The final (fused, laid-out, scheduled) module.
    pub module: Module,
    /// Where every value lives.
    pub buffers: BufferAssignment,
    /// The generated code.
    pub kernels: KernelSet,
}

impl Executable {
    /// Builds the thunk sequence; fails, naming the instruction, if some op has neither a
    /// kernel nor a library thunk.
    pub fn new(
        module: Module,
        buffers: BufferAssignment,
        kernels: KernelSet,
    ) -> Result<Executable, RuntimeError> {
        Ok(Executable {
            module,
            buffers,
            kernels,
        })
    }

    /// Runs on `args` (the entry parameters, in the layouts of the entry computation) and
    /// returns the entry result.
    pub fn execute(&mut self, _args: &[Literal]) -> Result<Literal, RuntimeError> {
        Err(RuntimeError::new("the runtime is not built yet"))
    }

    /// `thunk-sequence.txt`: one line per thunk, nested for control flow.
    pub fn thunk_sequence_text(&self) -> String {
        String::new()
    }
}
