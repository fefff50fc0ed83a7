//! The cross-ISA view (`xlac compile --isa x86_64,aarch64,riscv64,s390x`): every kernel's
//! CLIF function, as emitted for the host, is compiled again by Cranelift's backend for
//! other instruction sets and its machine code listed. Nothing here runs: the code only
//! exists to be read next to the host's. One kernel that an ISA cannot compile is reported
//! in its listing (and by the caller in `index.txt` and on stderr), never a crash: every
//! compile runs under `catch_unwind`, because some unsupported cases panic inside Cranelift
//! instead of returning an error.
//!
//! What each name means (the triple is always `*-unknown-linux-gnu`, so the kernel's
//! `system_v` calling convention and 64-bit pointers fit every target unchanged):
//!
//! | name | Cranelift target | vectors | listing |
//! |---|---|---|---|
//! | `x86_64` | the host ISA with the CPU's detected features when the host is x86-64, otherwise x86-64 baseline (SSE2) | SSE | Capstone (AT&T) |
//! | `aarch64` | aarch64, Cranelift defaults | NEON | Capstone |
//! | `riscv64` | rv64gc (`has_c`; M, A, F, D are Cranelift's defaults), no V | none | Capstone |
//! | `riscv64v` | rv64gcv (`has_c` + `has_v`) | RVV | Cranelift's VCode listing (Capstone 5 cannot decode RVV) |
//! | `s390x` | s390x, Cranelift defaults (z13 vector facility) | z/Vector | Capstone |
//!
//! An ISA without vectors gets the kernel re-emitted without its vector inner loop (the
//! kernels vectorize only elementwise float fusions, so this is the scalar loop XLA would
//! also run there); Cranelift's riscv64 backend would panic on `f32x4`.
//!
//! There is no XLA counterpart: XLA:CPU compiles for one target per run
//! (`--xla_cpu_...` target flags); this is the learner's side-by-side.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::str::FromStr;
use std::sync::Once;

use cranelift_codegen::Context;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::Function;
use cranelift_codegen::isa::{self, OwnedTargetIsa, TargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use rayon::prelude::*;
use target_lexicon::Triple;

use crate::codegen::elemental::KernelEnv;
use crate::codegen::{KernelSet, jit, kernel};
use crate::ir::Module;

/// One instruction set the cross-ISA dump can compile for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IsaSpec {
    /// The name on the command line and in the file name (`KERNEL.NAME.asm`).
    pub name: &'static str,
    /// The target triple handed to `cranelift_codegen::isa::lookup`.
    pub triple: &'static str,
    /// ISA flags or presets enabled on top of Cranelift's defaults.
    pub enable: &'static [&'static str],
    /// Whether the target has 128-bit vector registers Cranelift uses for `f32x4`.
    pub vectors: bool,
    /// Whether Capstone decodes its vector instructions (RVV: no).
    pub capstone_decodes_vectors: bool,
    /// One line for learners: what this target is.
    pub description: &'static str,
}

/// Every ISA `--isa` accepts, in the order `all` lists them.
pub const SUPPORTED_ISAS: &[IsaSpec] = &[
    IsaSpec {
        name: "x86_64",
        triple: "x86_64-unknown-linux-gnu",
        enable: &[],
        vectors: true,
        capstone_decodes_vectors: true,
        description: "x86-64 (the host's detected features when the host is x86-64, else SSE2)",
    },
    IsaSpec {
        name: "aarch64",
        triple: "aarch64-unknown-linux-gnu",
        enable: &[],
        vectors: true,
        capstone_decodes_vectors: true,
        description: "AArch64 with NEON (Cranelift defaults)",
    },
    IsaSpec {
        name: "riscv64",
        triple: "riscv64gc-unknown-linux-gnu",
        enable: &["has_c"],
        vectors: false,
        capstone_decodes_vectors: false,
        description: "RISC-V rv64gc, no vector extension (scalar kernels)",
    },
    IsaSpec {
        name: "riscv64v",
        triple: "riscv64gc-unknown-linux-gnu",
        enable: &["has_c", "has_v"],
        vectors: true,
        capstone_decodes_vectors: false,
        description: "RISC-V rv64gcv, with the V vector extension",
    },
    IsaSpec {
        name: "s390x",
        triple: "s390x-unknown-linux-gnu",
        enable: &[],
        vectors: true,
        capstone_decodes_vectors: true,
        description: "IBM z/Architecture s390x, z13 vector facility (Cranelift defaults)",
    },
];

/// Comma-separated names of [`SUPPORTED_ISAS`], for usage messages and `--help`.
pub fn supported_names() -> String {
    SUPPORTED_ISAS
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Resolves `--isa` names (each string may hold several, comma-separated): each must be a
/// supported name, `host` (the host's architecture) or `all`. Duplicates are dropped; the
/// order is kept.
pub fn parse_isas(names: &[String]) -> Result<Vec<IsaSpec>, String> {
    let mut out: Vec<IsaSpec> = Vec::new();
    let mut push = |s: IsaSpec| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for raw in names.iter().flat_map(|n| n.split(',')) {
        let name = raw.trim();
        if name.is_empty() {
            continue;
        }
        if name == "all" {
            SUPPORTED_ISAS.iter().for_each(|s| push(*s));
            continue;
        }
        let wanted = if name == "host" { host_name() } else { name };
        match SUPPORTED_ISAS.iter().find(|s| s.name == wanted) {
            Some(s) => push(*s),
            None => {
                return Err(format!(
                    "--isa {name}: unknown instruction set (supported: {}, host, all)",
                    supported_names()
                ));
            }
        }
    }
    Ok(out)
}

/// The `--isa` name of the machine xlac runs on (`x86_64` here).
pub fn host_name() -> &'static str {
    match std::env::consts::ARCH {
        "riscv64" => "riscv64",
        "aarch64" => "aarch64",
        "s390x" => "s390x",
        _ => "x86_64",
    }
}

/// One kernel's machine code for one ISA.
#[derive(Clone, Debug)]
pub struct CrossListing {
    /// The kernel's name.
    pub kernel: String,
    /// The ISA's `--isa` name.
    pub isa: &'static str,
    /// The text of `KERNEL.ISA.asm`: a header, then the listing or the reason there is none.
    pub text: String,
    /// Why the kernel could not be compiled for this ISA (`None` when it was).
    pub error: Option<String>,
}

/// Compiles every kernel of `kernels` (compiled with `keep_artifacts`, which keeps each
/// kernel's un-optimized CLIF function) for every ISA in `isas`. `module` is the module the
/// kernels were compiled from: kernels for ISAs without vectors are re-emitted from it
/// without their vector loop. Returns one listing per kernel and ISA, kernel-major; an
/// error only when an ISA itself cannot be set up (a Cranelift build without that backend).
pub fn compile_for_isas(
    module: &Module,
    kernels: &KernelSet,
    isas: &[IsaSpec],
) -> Result<Vec<CrossListing>, String> {
    let targets = isas
        .iter()
        .map(|s| target_isa(s).map(|isa| (*s, isa)))
        .collect::<Result<Vec<_>, _>>()?;
    let scalar_needed = isas.iter().any(|s| !s.vectors);
    // Scalar variants are emitted on this thread (the emitter's environment is not shared).
    let mut scalar: Vec<Option<Result<Function, String>>> = Vec::new();
    let mut env = None;
    for k in &kernels.kernels {
        let vectorized = k.artifacts.function.as_ref().is_some_and(has_vector_types);
        if !(scalar_needed && vectorized) {
            scalar.push(None);
            continue;
        }
        if env.is_none() {
            let (_jit, libcalls) = jit::new_jit(false)?;
            env = Some((
                _jit,
                KernelEnv {
                    libcalls,
                    constants: Vec::new(),
                    // Re-emitted for other ISAs: plain multiply and add, which every
                    // target has (an `fma` without native support would be a libcall).
                    math: crate::codegen::math::MathOptions { has_fma: false },
                    vectors: false,
                    block_math: false,
                    fp_contraction: false,
                },
            ));
        }
        let (jit_module, env) = env.as_mut().expect("set above");
        // Emission is ordinary xlac code, but a panic here must not lose the other ISAs.
        let emitted = quietly(|| scalar_function(module, k, jit_module, env))
            .unwrap_or_else(|panic| Err(format!("panicked: {panic}")));
        scalar.push(Some(emitted));
    }
    let listings: Vec<Vec<CrossListing>> = kernels
        .kernels
        .par_iter()
        .zip(scalar.par_iter())
        .map(|(k, scalar)| {
            targets
                .iter()
                .map(|(spec, isa)| {
                    let func = match (&k.artifacts.function, spec.vectors, scalar) {
                        (None, _, _) => Err(
                            "the kernel's CLIF was not kept (compile with keep_artifacts)"
                                .to_string(),
                        ),
                        (Some(_), false, Some(Ok(f))) => Ok(f),
                        (Some(_), false, Some(Err(e))) => {
                            Err(format!("the scalar kernel could not be emitted: {e}"))
                        }
                        (Some(f), _, _) => Ok(f),
                    };
                    let result = func.and_then(|f| compile_one(f, spec, &**isa));
                    listing(&k.name, spec, result)
                })
                .collect()
        })
        .collect();
    Ok(listings.into_iter().flatten().collect())
}

/// The Cranelift ISA for `spec`; the host's own (with its detected CPU features) when `spec`
/// is the host's architecture.
fn target_isa(spec: &IsaSpec) -> Result<OwnedTargetIsa, String> {
    let mut flags = settings::builder();
    for (k, v) in [
        ("opt_level", "speed"),
        ("enable_verifier", "false"),
        ("is_pic", "false"),
        ("use_colocated_libcalls", "false"),
    ] {
        flags
            .set(k, v)
            .map_err(|e| format!("cranelift flag {k}={v}: {e}"))?;
    }
    let mut builder = if spec.name == host_name() && spec.enable.is_empty() {
        cranelift_native::builder().map_err(|e| format!("host ISA: {e}"))?
    } else {
        let triple = Triple::from_str(spec.triple)
            .map_err(|e| format!("{}: bad triple {}: {e}", spec.name, spec.triple))?;
        isa::lookup(triple).map_err(|e| format!("{}: {e}", spec.name))?
    };
    for f in spec.enable {
        builder
            .enable(f)
            .map_err(|e| format!("{}: ISA flag {f}: {e}", spec.name))?;
    }
    builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| format!("{}: {e}", spec.name))
}

/// Whether any value of `func` has a vector type.
fn has_vector_types(func: &Function) -> bool {
    func.dfg
        .values()
        .any(|v| func.dfg.value_type(v).is_vector())
}

/// Kernel `k` emitted again without its vector inner loop.
fn scalar_function(
    module: &Module,
    k: &crate::codegen::Kernel,
    jit_module: &cranelift_jit::JITModule,
    env: &mut KernelEnv,
) -> Result<Function, String> {
    use cranelift_module::Module as _;
    let original = k.artifacts.function.as_ref().ok_or("no CLIF kept")?;
    let comp = module.computation(k.computation);
    let instr = comp.instr(k.instruction);
    let mut func = Function::with_name_signature(original.name.clone(), original.signature.clone());
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    kernel::emit_kernel_with(module, comp, instr, &mut b, env, false).map_err(|e| e.to_string())?;
    b.seal_all_blocks();
    b.finalize(jit_module.isa().frontend_config());
    Ok(func)
}

/// Compiles `func` for `isa` and lists its machine code; panics inside Cranelift become
/// errors.
fn compile_one(func: &Function, spec: &IsaSpec, isa: &dyn TargetIsa) -> Result<String, String> {
    let vector = has_vector_types(func);
    if vector && !spec.vectors {
        return Err("the kernel uses vector types and this ISA has no vector unit".into());
    }
    let result = quietly(|| {
        let mut ctx = Context::for_function(func.clone());
        ctx.set_disasm(true);
        if let Err(e) = ctx.compile(isa, &mut ControlPlane::default()) {
            return Err(format!("Cranelift rejected the kernel: {:?}", e.inner));
        }
        let code = ctx.compiled_code().expect("compiled above");
        let vcode = code.vcode.clone().unwrap_or_default();
        if vector && !spec.capstone_decodes_vectors {
            return Ok(format!(
                "; listing: Cranelift's VCode (Capstone cannot decode this ISA's vector instructions)\n{vcode}"
            ));
        }
        let capstone = isa.to_capstone().map_err(|e| e.to_string()).and_then(|cs| {
            code.disassemble(Some(&ctx.func.params), &cs)
                .map_err(|e| e.to_string())
        });
        Ok(match capstone {
            Ok(text) => format!(
                "; listing: Capstone disassembly of the final bytes\n{}",
                trim_constant_pool(&text)
            ),
            Err(e) => format!("; listing: Cranelift's VCode (Capstone failed: {e})\n{vcode}"),
        })
    });
    match result {
        Ok(r) => r,
        Err(message) => Err(format!("Cranelift panicked: {message}")),
    }
}

/// The listing file for one kernel and ISA.
fn listing(kernel: &str, spec: &IsaSpec, result: Result<String, String>) -> CrossListing {
    let header = format!(
        "; kernel {kernel} for {} ({}, {})\n",
        spec.name, spec.triple, spec.description
    );
    match result {
        Ok(body) => CrossListing {
            kernel: kernel.to_string(),
            isa: spec.name,
            text: header + &body,
            error: None,
        },
        Err(e) => {
            let e = e.lines().next().unwrap_or("").to_string();
            CrossListing {
                kernel: kernel.to_string(),
                isa: spec.name,
                text: format!("{header}; NOT COMPILED for {}: {e}\n", spec.name),
                error: Some(e),
            }
        }
    }
}

/// Cuts the last block after its final return or unconditional branch: what follows is the
/// constant pool, which Capstone decodes as bogus instructions (or `.byte` runs).
fn trim_constant_pool(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let last_block = lines
        .iter()
        .rposition(|l| l.starts_with("block"))
        .unwrap_or(0);
    let is_terminator = |l: &str| {
        let mut words = l.split_whitespace();
        let mnemonic = words.next().unwrap_or("");
        let operand = words.next().unwrap_or("");
        matches!(mnemonic, "ret" | "retq" | "jmp" | "b" | "j" | "jg" | "c.j")
            || (mnemonic == "br" && operand == "%r14")
            || (mnemonic == "c.jr" && operand == "ra")
    };
    let cut = lines
        .iter()
        .enumerate()
        .skip(last_block)
        .filter(|(_, l)| is_terminator(l))
        .map(|(i, _)| i)
        .next_back();
    let keep = cut.map(|i| i + 1).unwrap_or(lines.len());
    let mut out = lines[..keep].join("\n");
    out.push('\n');
    if keep < lines.len() {
        out.push_str("; (constant pool follows)\n");
    }
    out
}

thread_local! {
    /// Set while [`quietly`] runs on this thread: the panic hook stays silent.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, turning a panic into `Err(message)` without the default hook printing it (the
/// caller reports it as one line). The hook wraps whatever hook was installed before, so
/// panics elsewhere print as usual.
fn quietly<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".to_string())
    })
}

#[cfg(test)]
mod tests;
