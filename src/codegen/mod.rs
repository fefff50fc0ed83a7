//! Code generation: every fusion becomes one Cranelift function with one ABI for all
//! kernels, compiled into one JIT module per executable. See design.md §2,
//! ../shared/notes/cranelift.md and ../shared/notes/xla-cpu.md §10.
//!
//! The kernel ABI ([`KernelFn`]) is XLA:CPU's call frame reduced to what xlac needs: a table
//! of buffer pointers and the range of work units this call computes, so the runtime can
//! split any kernel across threads by splitting the range.

pub mod asm_map;
pub mod column_reduce;
pub mod cross_isa;
pub mod denormals;
pub mod disassembly;
pub mod elemental;
pub mod hoist;
pub mod isa;
pub mod jit;
pub mod kernel;
pub mod libcalls;
pub mod loop_emitter;
pub mod math;
#[cfg(test)]
mod tests;
pub mod tiled_loops;
pub mod vector_reduce;
pub mod vector_window;
pub mod vectorize;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::time::Instant;

use cranelift_codegen::ir::UserFuncName;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module as _, ModuleError};

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
    /// Dump texts and compile time.
    pub artifacts: KernelArtifacts,
}

/// All kernels of one module, alive as long as the JIT memory holding their code.
pub struct KernelSet {
    /// The kernels, in the order they were compiled.
    pub kernels: Vec<Kernel>,
    by_instruction: HashMap<(ComputationId, InstrId), usize>,
    /// The JIT memory holding the code (never freed while the set lives; see pitfall 11 of
    /// the Cranelift notes: dropping a `JITModule` leaks its code, which is what we want
    /// while any `KernelFn` may still run).
    _jit: Option<JITModule>,
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
/// in every non-fused computation of `module` (entry and control-flow bodies), all into one
/// JIT module.
pub fn compile_kernels(
    module: &Module,
    options: &CodegenOptions,
) -> Result<KernelSet, CodegenError> {
    let fail = |message: String| CodegenError {
        instruction: module.name.clone(),
        message,
    };
    // Tests and debug builds run Cranelift's verifier on every kernel.
    let (mut jit, libcalls) = jit::new_jit(cfg!(debug_assertions)).map_err(fail)?;
    let mut env = elemental::KernelEnv {
        libcalls,
        constants: Vec::new(),
        math: math::MathOptions {
            has_fma: jit.isa().has_native_fma(),
        },
        vectors: true,
    };
    let fused: HashSet<ComputationId> = module
        .order
        .iter()
        .flat_map(|&c| module.computation(c).iter())
        .filter_map(|(_, i)| match &i.op {
            Op::Fusion { calls, .. } => Some(*calls),
            _ => None,
        })
        .collect();
    let call_conv = jit.isa().default_call_conv();
    let frontend_config = jit.isa().frontend_config();
    let sig = kernel::kernel_signature(call_conv);
    let mut ctx = jit.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let mut pending = Vec::new();
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
            let start = Instant::now();
            let mut name = instr.name.clone();
            if !used_names.insert(name.clone()) {
                name = format!("{}.{}", comp.name, instr.name);
                used_names.insert(name.clone());
            }
            let func_id = jit
                .declare_function(&name, Linkage::Local, &sig)
                .map_err(|e| fail(format!("declaring {name}: {e}")))?;
            ctx.func.signature = sig.clone();
            ctx.func.name = UserFuncName::user(0, func_id.as_u32());
            let layout = {
                let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
                let layout = kernel::emit_kernel(module, comp, instr, &mut b, &mut env)?;
                b.seal_all_blocks();
                b.finalize(frontend_config);
                layout
            };
            let mut artifacts = KernelArtifacts::default();
            if options.keep_artifacts {
                artifacts.clif_no_opt = disassembly::annotated_clif(&ctx.func, &layout.names);
                artifacts.function = Some(ctx.func.clone());
                ctx.set_disasm(true);
            }
            if let Err(e) = jit.define_function(func_id, &mut ctx) {
                let message = match e {
                    ModuleError::Compilation(err) => {
                        cranelift_codegen::print_errors::pretty_error(&ctx.func, err)
                    }
                    other => other.to_string(),
                };
                return Err(CodegenError {
                    instruction: instr.name.clone(),
                    message: format!("Cranelift rejected the kernel: {message}"),
                });
            }
            if options.keep_artifacts {
                artifacts.clif_with_opt = disassembly::annotated_clif(&ctx.func, &layout.names);
                artifacts.asm = disassembly::host_asm(&ctx, jit.isa());
                artifacts.asm_hlo = asm_map::line_names(&ctx, jit.isa(), &layout.names);
            }
            jit.clear_context(&mut ctx);
            artifacts.compile_ms = start.elapsed().as_secs_f64() * 1e3;
            pending.push((name, comp_id, instr_id, func_id, layout, artifacts));
        }
    }
    jit.finalize_definitions()
        .map_err(|e| fail(format!("finalizing the JIT module: {e}")))?;
    let mut kernels = Vec::with_capacity(pending.len());
    let mut by_instruction = HashMap::new();
    for (name, computation, instruction, func_id, layout, artifacts) in pending {
        let code = jit.get_finalized_function(func_id);
        // SAFETY: the function was declared with `kernel_signature`, which is exactly
        // `KernelFn`'s C ABI: three 64-bit integer arguments, no result.
        let entry: KernelFn = unsafe { std::mem::transmute::<*const u8, KernelFn>(code) };
        by_instruction.insert((computation, instruction), kernels.len());
        kernels.push(Kernel {
            name,
            computation,
            instruction,
            entry,
            work_units: layout.work_units,
            min_units_per_task: layout.min_units_per_task,
            operand_count: layout.operand_count,
            output_count: layout.output_count,
            artifacts,
        });
    }
    Ok(KernelSet {
        kernels,
        by_instruction,
        _jit: Some(jit),
        _constants: env.constants,
    })
}
