//! Code generation: every fusion becomes one Cranelift function with one ABI for all
//! kernels, compiled into one JIT module per executable. See `docs/architecture.md`.
//!
//! The kernel ABI ([`KernelFn`]) is XLA:CPU's call frame reduced to what xlac needs: a table
//! of buffer pointers and the range of work units this call computes, so the runtime can
//! split any kernel across threads by splitting the range.

pub mod block_math;
pub mod compile_job;
pub mod denormals;
pub mod elemental;
pub mod inspect;
pub mod isa;
pub mod jit;
pub mod kernel;
pub mod libcalls;
pub mod math;
pub mod plan;
pub mod scalar_function;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::fmt;

use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _};

pub use scalar_function::ScalarFn;

use crate::ir::{ComputationId, FusionKind, InstrId, Module, Op};

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
    /// For each line of `asm`, the HLO instruction it computes, when the machine code's
    /// source locations say (`asm_map.rs`).
    pub asm_hlo: Vec<Option<String>>,
    /// Milliseconds to emit and compile this kernel.
    pub compile_ms: f64,
    /// The CLIF function as emitted, before Cranelift's optimizer: what the cross-ISA dump
    /// (`cross_isa`) compiles for other instruction sets.
    pub function: Option<cranelift_codegen::ir::Function>,
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
    /// Number of input buffers at the front of the table: the fusion's operands, plus (for a
    /// `kOutput` fusion) the buffer holding the fused `dot`'s result, which the runtime's
    /// GEMM computes before calling the kernel.
    pub operand_count: usize,
    /// Number of result buffers after them.
    pub output_count: usize,
    /// Work units follow the output's physical order, the same number of consecutive units
    /// for every row of its physical minor dimension: so any block of whole rows is a
    /// range of units a caller may run alone (a kOutput fusion's GEMM rows, right after the
    /// GEMM computed them).
    pub units_in_layout_order: bool,
    /// Elements per work unit when every unit is that many consecutive elements of one row
    /// of the physical minor dimension (a kOutput epilogue's column tiles cut rows there).
    pub unit_elements: Option<u64>,
    /// Two phases: `entry(buffers, 0, n)` must finish before any unit of `n..work_units`
    /// starts (a column reduction's partial rows, then their combination).
    pub first_phase_units: Option<u64>,
    /// Bytes of scratch the caller appends to the buffer table, after the outputs (0: none).
    /// Its contents need not survive between calls.
    pub scratch_bytes: u64,
    /// The loop nest the kernel runs and why (`plan.rs`; the dump's `*.plan.txt`).
    pub plan: plan::KernelPlan,
    /// Dump texts and compile time.
    pub artifacts: KernelArtifacts,
}

/// All kernels of one module, alive as long as the JIT memory holding their code.
pub struct KernelSet {
    /// The kernels, in the order they were compiled.
    pub kernels: Vec<Kernel>,
    by_instruction: HashMap<(ComputationId, InstrId), usize>,
    /// The compiled scalar computations library routines call, by computation.
    scalar_functions: HashMap<ComputationId, ScalarFunction>,
    /// The JIT memory holding the code, freed when the set is dropped (a dropped
    /// `JITModule` would leak it: a process that compiles many programs, as a JAX session
    /// does, would grow with every executable it ever compiled).
    jit: Option<JITModule>,
    /// Constant arrays the kernels read by address.
    _constants: Vec<Box<[u64]>>,
}

// SAFETY: after `finalize_definitions` the JIT module is only kept alive, never mutated; the
// finalized code and the constant arrays are immutable, so sharing the set and calling its
// `KernelFn`s from several threads at once is sound (kernels write only the buffers their
// callers pass, and callers give concurrent calls disjoint work ranges).
unsafe impl Send for KernelSet {}
// SAFETY: as above: no interior mutability is reachable through `&KernelSet`.
unsafe impl Sync for KernelSet {}

impl Drop for KernelSet {
    fn drop(&mut self) {
        if let Some(jit) = self.jit.take() {
            // SAFETY: the code is only reachable through this set: kernels, scalar functions
            // and the thunks that copied their entry points all live in executables that
            // hold the set by `Arc`, and a run returns only after every kernel call (on any
            // pool thread) has returned. The last holder dropping the set ends all of them.
            unsafe { jit.free_memory() };
        }
    }
}

impl KernelSet {
    /// The kernel compiled for fusion instruction `instr` of `computation`.
    pub fn get(&self, computation: ComputationId, instr: InstrId) -> Option<&Kernel> {
        self.by_instruction
            .get(&(computation, instr))
            .map(|&i| &self.kernels[i])
    }

    /// The native function compiled for scalar computation `comp` (a sort comparator, a
    /// scatter combiner, ...), if it was compiled.
    pub fn scalar_function(&self, comp: ComputationId) -> Option<&ScalarFunction> {
        self.scalar_functions.get(&comp)
    }

    /// Every compiled scalar function, in no particular order.
    pub fn scalar_functions(&self) -> impl Iterator<Item = &ScalarFunction> {
        self.scalar_functions.values()
    }
}

/// A scalar computation compiled to a native function (see [`scalar_function`]).
pub struct ScalarFunction {
    /// The symbol: the computation's name with `.scalar`.
    pub name: String,
    /// The code.
    pub entry: ScalarFn,
    /// Dump texts and compile time.
    pub artifacts: KernelArtifacts,
}

/// Settings of one codegen run.
#[derive(Clone, Debug, Default)]
pub struct CodegenOptions {
    /// Keep CLIF and disassembly texts in [`KernelArtifacts`] (costs compile time).
    pub keep_artifacts: bool,
    /// Let row kernels call the native block routines of `codegen/block_math` when the
    /// host runs them (`codegen/kernel/loops/row_cache_emitter.rs`); `false` keeps all math inline.
    pub block_math: bool,
    /// Never contract `a*b + c` into an FMA (`elemental/fp_contraction.rs`), even where
    /// the host has one: every op rounded, as the interpreter's default computes them.
    pub no_fp_contraction: bool,
}

/// A kernel that could not be generated; names the instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct CodegenError {
    /// Whether the fusion is wrong, the emitters lack a case, or xlac has a bug.
    pub kind: crate::ir::ErrorKind,
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

crate::ir::impl_unsupported!(CodegenError);

/// Whether Cranelift's verifier checks every generated function: in debug builds (and so
/// in `cargo test` without `--release`), and whenever `XLAC_VERIFY_CLIF` is set (the test
/// suite sets it for its release run). Off otherwise: it costs about 30% of compile time.
pub fn verify_clif() -> bool {
    cfg!(debug_assertions) || std::env::var_os("XLAC_VERIFY_CLIF").is_some()
}

/// [`compile_job::Shared::compile`], with a panic inside the emitter or Cranelift (an
/// assertion on malformed IR) turned into an `internal:` error naming the kernel.
fn compile_caught(
    shared: &compile_job::Shared<'_>,
    job: &compile_job::Job,
) -> Result<Option<compile_job::Compiled>, CodegenError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shared.compile(job))).unwrap_or_else(
        |payload| {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            Err(CodegenError {
                kind: crate::ir::ErrorKind::Internal,
                instruction: job.name.clone(),
                message: format!("internal: code generation panicked: {message}"),
            })
        },
    )
}

/// The computations that fusion instructions call: their code lives inside kernels, not
/// in a function of its own.
pub fn fused_computations(module: &Module) -> HashSet<ComputationId> {
    module
        .order
        .iter()
        .flat_map(|&c| module.computation(c).iter())
        .filter_map(|(_, i)| match &i.op {
            Op::Fusion { calls, .. } => Some(*calls),
            _ => None,
        })
        .collect()
}

/// Declares one JIT function per kernel (every kLoop, kInput and kOutput fusion outside
/// fused computations) and per scalar computation a library routine calls, in module
/// order: the declaration order gives the function ids the emitted code names.
fn declare_jobs(
    module: &Module,
    jit: &mut cranelift_jit::JITModule,
    kernel_sig: &cranelift_codegen::ir::Signature,
    scalar_sig: &cranelift_codegen::ir::Signature,
) -> Result<Vec<compile_job::Job>, String> {
    let fused = fused_computations(module);
    let mut jobs = Vec::new();
    let mut used_names = HashSet::new();
    for &comp_id in &module.order {
        if fused.contains(&comp_id) {
            continue;
        }
        let comp = module.computation(comp_id);
        for (instr_id, instr) in comp.iter() {
            let Op::Fusion { kind, .. } = &instr.op else {
                continue;
            };
            if !matches!(
                kind,
                FusionKind::Loop | FusionKind::Input | FusionKind::Output
            ) {
                continue;
            }
            let mut name = instr.name.clone();
            if !used_names.insert(name.clone()) {
                name = format!("{}.{}", comp.name, instr.name);
                used_names.insert(name.clone());
            }
            let func_id = jit
                .declare_function(&name, Linkage::Local, kernel_sig)
                .map_err(|e| format!("declaring {name}: {e}"))?;
            jobs.push(compile_job::Job {
                name,
                func_id,
                what: compile_job::What::Kernel {
                    computation: comp_id,
                    instruction: instr_id,
                },
            });
        }
    }
    for comp_id in scalar_function::library_computations(module) {
        let mut name = format!("{}.scalar", module.computation(comp_id).name);
        while !used_names.insert(name.clone()) {
            name.push('_');
        }
        let func_id = jit
            .declare_function(&name, Linkage::Local, scalar_sig)
            .map_err(|e| format!("declaring {name}: {e}"))?;
        jobs.push(compile_job::Job {
            name,
            func_id,
            what: compile_job::What::Scalar {
                computation: comp_id,
            },
        });
    }
    Ok(jobs)
}

/// Compiles one kernel for every `fusion` instruction of kind `kLoop`, `kInput` or `kOutput`
/// in every non-fused computation of `module` (entry and control-flow bodies), and one
/// [`ScalarFn`] for every scalar computation a library routine calls (sort comparators,
/// scatter combiners, select-and-scatter's select and scatter), all into one JIT module.
///
/// Functions are emitted and compiled in parallel on the rayon pool (see [`compile_job`]);
/// the JIT module, which is not `Sync`, only declares them first and installs the finished
/// bytes afterwards, in declaration order, so the result does not depend on thread timing.
/// A scalar computation the emitter cannot compile (a complex comparator, say) is left
/// out: its instruction keeps the reference implementation, labelled as such.
pub fn compile_kernels(
    module: &Module,
    options: &CodegenOptions,
) -> Result<KernelSet, CodegenError> {
    let fail = |message: String| CodegenError {
        kind: crate::ir::ErrorKind::Internal,
        instruction: module.name.clone(),
        message,
    };
    let (mut jit, libcalls, isa) = jit::new_jit_with_isa(verify_clif()).map_err(fail)?;
    let math = math::MathOptions {
        has_fma: isa.has_native_fma(),
    };
    let call_conv = isa.default_call_conv();
    let kernel_sig = kernel::kernel_signature(call_conv);
    let scalar_sig = scalar_function::scalar_signature(call_conv);
    let jobs = declare_jobs(module, &mut jit, &kernel_sig, &scalar_sig).map_err(fail)?;
    let shared = compile_job::Shared {
        module,
        isa: &*isa,
        libcalls: &libcalls,
        math,
        kernel_sig: &kernel_sig,
        scalar_sig: &scalar_sig,
        keep_artifacts: options.keep_artifacts,
        block_math: options.block_math && crate::codegen::block_math::block_math_available(),
        fp_contraction: math.has_fma && !options.no_fp_contraction,
    };
    let results: Vec<Result<Option<compile_job::Compiled>, CodegenError>> = {
        use rayon::prelude::*;
        jobs.par_iter()
            .map(|job| compile_caught(&shared, job))
            .collect()
    };
    let mut compiled = Vec::with_capacity(jobs.len());
    for (job, result) in jobs.into_iter().zip(results) {
        // `None`: a scalar computation the emitter does not handle (see the doc above).
        if let Some(c) = result? {
            jit.define_function_bytes(job.func_id, c.alignment, &c.bytes, &c.relocs)
                .map_err(|e| CodegenError {
                    kind: crate::ir::ErrorKind::Internal,
                    instruction: job.name.clone(),
                    message: format!("installing the compiled code: {e}"),
                })?;
            compiled.push((job, c));
        }
    }
    jit.finalize_definitions()
        .map_err(|e| fail(format!("finalizing the JIT module: {e}")))?;
    let mut kernels = Vec::new();
    let mut by_instruction = HashMap::new();
    let mut scalar_functions = HashMap::new();
    let mut constants = Vec::new();
    for (job, c) in compiled {
        constants.extend(c.constants);
        let code = jit.get_finalized_function(job.func_id);
        match (job.what, c.layout) {
            (
                compile_job::What::Kernel {
                    computation,
                    instruction,
                },
                Some(layout),
            ) => {
                // SAFETY: the function was declared with `kernel_signature`, which is
                // exactly `KernelFn`'s C ABI: three 64-bit integer arguments, no result.
                let entry: KernelFn = unsafe { std::mem::transmute::<*const u8, KernelFn>(code) };
                by_instruction.insert((computation, instruction), kernels.len());
                kernels.push(Kernel {
                    name: job.name,
                    computation,
                    instruction,
                    entry,
                    work_units: layout.work_units,
                    min_units_per_task: layout.min_units_per_task,
                    operand_count: layout.operand_count,
                    output_count: layout.output_count,
                    units_in_layout_order: layout.units_in_layout_order,
                    unit_elements: layout.unit_elements,
                    first_phase_units: layout.first_phase_units,
                    scratch_bytes: layout.scratch_bytes,
                    plan: layout.plan,
                    artifacts: c.artifacts,
                });
            }
            (compile_job::What::Scalar { computation }, _) => {
                // SAFETY: declared with `scalar_signature`: two 64-bit integer arguments,
                // no result, which is `ScalarFn`'s C ABI.
                let entry: ScalarFn = unsafe { std::mem::transmute::<*const u8, ScalarFn>(code) };
                scalar_functions.insert(
                    computation,
                    ScalarFunction {
                        name: job.name,
                        entry,
                        artifacts: c.artifacts,
                    },
                );
            }
            (compile_job::What::Kernel { .. }, None) => {
                return Err(fail(format!("kernel {} has no layout", job.name)));
            }
        }
    }
    Ok(KernelSet {
        kernels,
        by_instruction,
        scalar_functions,
        jit: Some(jit),
        _constants: constants,
    })
}
