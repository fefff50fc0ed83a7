//! Code generation: every fusion becomes one Cranelift function with one ABI for all
//! kernels, compiled into one JIT module per executable. See design.md §2,
//! ../shared/notes/cranelift.md and ../shared/notes/xla-cpu.md §10.
//!
//! The kernel ABI ([`KernelFn`]) is XLA:CPU's call frame reduced to what xlac needs: a table
//! of buffer pointers and the range of work units this call computes, so the runtime can
//! split any kernel across threads by splitting the range.

pub mod math;

use std::collections::HashMap;
use std::fmt;

use crate::ir::{ComputationId, InstrId, Module};

/// Every kernel's signature. `buffers[i]` is the base address of the fusion's i-th operand
/// (in operand order), followed by one pointer per result leaf (depth-first); each buffer is
/// laid out as its shape's layout says. The call computes work units `[begin, end)` of
/// `0..Kernel::work_units` and writes only the output elements those units own.
pub type KernelFn = unsafe extern "C" fn(buffers: *const *mut u8, begin: u64, end: u64);

/// What a learner reads about one kernel (written to the dump folder when asked).
#[derive(Clone, Debug, Default)]
pub struct KernelArtifacts {
    /// CLIF as emitted (`*.ir-no-opt.clif`).
    pub clif_no_opt: String,
    /// CLIF after Cranelift's optimizer (`*.ir-with-opt.clif`).
    pub clif_with_opt: String,
    /// Host disassembly, constant pool trimmed (`*.asm`).
    pub asm: String,
    /// Milliseconds to emit and compile this kernel.
    pub compile_ms: f64,
}

/// One compiled kernel: the code for one fusion instruction.
pub struct Kernel {
    /// The fusion instruction's name; also the kernel's symbol and dump file stem.
    pub name: String,
    /// Where the fusion instruction lives.
    pub computation: ComputationId,
    /// The fusion instruction.
    pub instruction: InstrId,
    /// The code.
    pub entry: KernelFn,
    /// The range a full run covers: `entry(buffers, 0, work_units)` computes everything.
    pub work_units: u64,
    /// Splitting the range into parts smaller than this is not worth a thread.
    pub min_units_per_task: u64,
    /// Number of operand buffers at the front of the table.
    pub operand_count: usize,
    /// Number of result buffers after them.
    pub output_count: usize,
    /// Dump texts and compile time.
    pub artifacts: KernelArtifacts,
}

/// All kernels of one module, alive as long as the JIT memory holding their code.
pub struct KernelSet {
    /// The kernels, in the order they were compiled.
    pub kernels: Vec<Kernel>,
    by_instruction: HashMap<(ComputationId, InstrId), usize>,
}

impl KernelSet {
    /// The kernel compiled for fusion instruction `instr` of `computation`.
    pub fn get(&self, computation: ComputationId, instr: InstrId) -> Option<&Kernel> {
        self.by_instruction
            .get(&(computation, instr))
            .map(|&i| &self.kernels[i])
    }
}

/// Settings of one codegen run.
#[derive(Clone, Debug, Default)]
pub struct CodegenOptions {
    /// Keep CLIF and disassembly texts in [`KernelArtifacts`] (costs compile time).
    pub keep_artifacts: bool,
}

/// A kernel that could not be generated; names the instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct CodegenError {
    /// The fusion (or fused instruction) at fault.
    pub instruction: String,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "codegen for {}: {}", self.instruction, self.message)
    }
}

impl std::error::Error for CodegenError {}

/// Compiles one kernel for every `fusion` instruction of kind `kLoop`, `kInput` or `kOutput`
/// in every non-fused computation of `module` (entry and control-flow bodies).
pub fn compile_kernels(
    _module: &Module,
    _options: &CodegenOptions,
) -> Result<KernelSet, CodegenError> {
    Ok(KernelSet {
        kernels: Vec::new(),
        by_instruction: HashMap::new(),
    })
}
