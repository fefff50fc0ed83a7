//! One function's trip from HLO to machine code bytes, on any thread: build the CLIF (a
//! kernel for a fusion, or a scalar function for a library routine's computation), run
//! Cranelift's `Context::compile` against the shared ISA, and keep the bytes, alignment
//! and relocations for the JIT module to install. `compile_kernels` runs these jobs on the
//! rayon pool: `JITModule` is not `Sync`, but an `OwnedTargetIsa` is, and a `Context`
//! per job needs nothing else.
//! XLA: the parallel codegen of `xla/service/cpu/cpu_compiler.cc` (kernels compiled by a
//! thread pool, then linked into one JIT).

use std::time::Instant;

use cranelift_codegen::Context;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{Function, Signature, UserFuncName};
use cranelift_codegen::isa::TargetIsa;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId, ModuleReloc};

use super::elemental::KernelEnv;
use super::inspect::disassembly;
use super::jit::DeclaredLibcalls;
use super::kernel::{KernelLayout, emit_kernel};
use super::scalar_function::emit_scalar_function;
use super::{CodegenError, KernelArtifacts, math};
use crate::ir::{ComputationId, InstrId, Module};

/// What a job compiles.
pub enum What {
    /// The kernel of fusion `instruction` in `computation`.
    Kernel {
        /// The computation holding the fusion.
        computation: ComputationId,
        /// The fusion instruction.
        instruction: InstrId,
    },
    /// The scalar function of `computation`.
    Scalar {
        /// A scalar computation (comparator, combiner, ...).
        computation: ComputationId,
    },
}

/// One function to compile, already declared in the JIT module.
pub struct Job {
    /// Symbol and dump stem.
    pub name: String,
    /// The declared function.
    pub func_id: FuncId,
    /// Its source.
    pub what: What,
}

/// A compiled function, ready for `JITModule::define_function_bytes`.
pub struct Compiled {
    /// Machine code (with its constant pool).
    pub bytes: Vec<u8>,
    /// Required alignment of the code.
    pub alignment: u64,
    /// Relocations (libcall addresses) for the module to patch.
    pub relocs: Vec<ModuleReloc>,
    /// For kernels: how to call them.
    pub layout: Option<KernelLayout>,
    /// Dump texts and compile time.
    pub artifacts: KernelArtifacts,
    /// Constant arrays the code reads by address (must outlive it).
    pub constants: Vec<Box<[u64]>>,
}

/// What every job reads; shared by reference across threads.
pub struct Shared<'a> {
    /// The module.
    pub module: &'a Module,
    /// The host ISA, the same object (and flags) the JIT module has.
    pub isa: &'a dyn TargetIsa,
    /// Libcalls declared in the JIT module.
    pub libcalls: &'a DeclaredLibcalls,
    /// Math library options.
    pub math: math::MathOptions,
    /// Kernel ABI.
    pub kernel_sig: &'a Signature,
    /// Scalar function ABI.
    pub scalar_sig: &'a Signature,
    /// Keep CLIF and disassembly.
    pub keep_artifacts: bool,
    /// Kernels may call the native block routines.
    pub block_math: bool,
    /// Kernels contract multiply-adds into FMAs (`elemental/fp_contraction.rs`).
    pub fp_contraction: bool,
}

impl Shared<'_> {
    /// Emits and compiles `job`. `Ok(None)` for a scalar computation the emitter does not
    /// handle (the caller keeps the reference implementation for its users).
    pub fn compile(&self, job: &Job) -> Result<Option<Compiled>, CodegenError> {
        let start = Instant::now();
        let sig = match job.what {
            What::Kernel { .. } => self.kernel_sig,
            What::Scalar { .. } => self.scalar_sig,
        };
        let mut func =
            Function::with_name_signature(UserFuncName::user(0, job.func_id.as_u32()), sig.clone());
        let mut env = KernelEnv {
            libcalls: self.libcalls.clone(),
            constants: Vec::new(),
            math: self.math,
            vectors: true,
            block_math: self.block_math,
            fp_contraction: self.fp_contraction,
        };
        let mut fctx = FunctionBuilderContext::new();
        let (layout, names) = {
            let mut b = FunctionBuilder::new(&mut func, &mut fctx);
            let emitted = match job.what {
                What::Kernel {
                    computation,
                    instruction,
                } => {
                    let comp = self.module.computation(computation);
                    emit_kernel(self.module, comp, comp.instr(instruction), &mut b, &mut env).map(
                        |mut l| {
                            let names = std::mem::take(&mut l.names);
                            (Some(l), names)
                        },
                    )?
                }
                What::Scalar { computation } => {
                    match emit_scalar_function(self.module, computation, &mut b, &mut env) {
                        Ok(names) => (None, names),
                        Err(_) => return Ok(None),
                    }
                }
            };
            b.seal_all_blocks();
            b.finalize(self.isa.frontend_config());
            emitted
        };
        let mut artifacts = KernelArtifacts::default();
        let mut ctx = Context::for_function(func);
        if self.keep_artifacts {
            artifacts.clif_no_opt = disassembly::annotated_clif(&ctx.func, &names);
            artifacts.function = Some(ctx.func.clone());
            ctx.set_disasm(true);
        }
        let (bytes, alignment, relocs) = match ctx.compile(self.isa, &mut ControlPlane::default()) {
            Ok(code) => (
                code.code_buffer().to_vec(),
                u64::from(code.buffer.alignment),
                code.buffer.relocs().to_vec(),
            ),
            Err(e) => {
                let message = cranelift_codegen::print_errors::pretty_error(e.func, e.inner);
                return Err(CodegenError {
                    kind: crate::ir::ErrorKind::Internal,
                    instruction: job.name.clone(),
                    message: format!("internal: Cranelift rejected the function: {message}"),
                });
            }
        };
        let relocs = relocs
            .iter()
            .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, job.func_id))
            .collect();
        if self.keep_artifacts {
            artifacts.clif_with_opt = disassembly::annotated_clif(&ctx.func, &names);
            artifacts.asm = disassembly::host_asm(&ctx, self.isa);
            artifacts.asm_hlo = super::inspect::asm_map::line_names(&ctx, self.isa, &names);
        }
        artifacts.compile_ms = start.elapsed().as_secs_f64() * 1e3;
        let layout = layout.map(|mut l| {
            l.names = names;
            l
        });
        Ok(Some(Compiled {
            bytes,
            alignment,
            relocs,
            layout,
            artifacts,
            constants: env.constants,
        }))
    }
}
