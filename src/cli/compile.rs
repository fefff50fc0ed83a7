//! `xlac compile MODEL --dump-to DIR [--isa x86_64,aarch64,riscv64,s390x]`: load and
//! compile (passes, fusion, buffers, kernels, thunks), writing every stage into the dump
//! folder; nothing executes. Also the shared step `optimize` that `xlac run --backend
//! interpreter` uses.
//!
//! `--isa` (comma-separated, repeatable) also compiles every kernel for other instruction
//! sets and writes `KERNEL.ISA.asm` beside the host's `KERNEL.asm`: `x86_64`, `aarch64`,
//! `riscv64` (rv64gc, no vector extension: kernels are re-emitted without their vector
//! loop), `riscv64v` (rv64gcv: RVV code, listed as Cranelift's VCode because Capstone cannot
//! decode RVV), `s390x`; `host` names this machine's ISA and `all` every one. A kernel an
//! ISA cannot compile gets a listing saying why, an `index.txt` line saying so and a
//! `warning:` line on stderr; the compile still succeeds. An unknown name is a usage error.
//! See `crate::codegen::inspect::cross_isa`.

use super::{CompileArgs, Failure, PassFlags, model};
use crate::compiler::{CompileOptions, Optimized, optimize};

/// Runs `xlac compile`.
pub fn compile(args: &CompileArgs) -> Result<(), Failure> {
    // Check the names before loading anything: a typo is a usage error, not a compile.
    crate::codegen::inspect::cross_isa::parse_isas(&args.isa).map_err(Failure::usage)?;
    super::refusals::check_compile(args)?;
    let loaded = model::load(&args.model, false)?;
    let mut options = compile_options(&args.passes, Some(args.dump_to.clone()), false)?;
    options.isas = args.isa.clone();
    options.spmd = super::devices::one_device_spmd(&loaded.module);
    if let Some(grid) = super::devices::grid(&loaded.module, &args.devices, &loaded.file)?
        && !crate::spmd::is_partitioned(&loaded.module)
    {
        options.spmd = Some(crate::spmd::SpmdOptions {
            num_partitions: grid.partitions,
            num_replicas: grid.replicas,
        });
    }
    let compiled = super::run::compile_loaded(loaded, &options)?;
    for w in &compiled.warnings {
        eprintln!("warning: {w}");
    }
    Ok(())
}

/// Turns the pipeline flags into compiler options.
pub fn compile_options(
    flags: &PassFlags,
    dump_to: Option<std::path::PathBuf>,
    keep_snapshots: bool,
) -> Result<CompileOptions, Failure> {
    let dump_pass_re = match &flags.dump_pass_re {
        Some(re) => Some(regex::Regex::new(re).map_err(|e| {
            Failure::usage(format!(
                "--dump-pass-re: {}",
                e.to_string().replace('\n', " ")
            ))
        })?),
        None => None,
    };
    let known = crate::compiler::pass_and_pipeline_names();
    for name in &flags.disable_passes {
        if !known.contains(&name.as_str()) {
            let close = crate::explain::closest_names(name, &known, 3);
            return Err(Failure::usage(format!(
                "--disable-passes: unknown pass or pipeline '{name}'; closest: {}",
                close.join(", ")
            )));
        }
    }
    Ok(CompileOptions {
        disabled_passes: flags.disable_passes.clone(),
        dump_to,
        dump_pass_re,
        stablehlo_source: None,
        keep_snapshots,
        forced_parameter_layouts: flags
            .layouts
            .iter()
            .map(|s| parse_layout_flag(s))
            .collect::<Result<_, _>>()?,
        isas: Vec::new(),
        keep_kernel_artifacts: false,
        inline_math: flags.inline_math,
        no_fp_contraction: false,
        spmd: None,
        guard_buffers: flags.guard_buffers,
        autotune: if flags.autotune {
            crate::autotune::AutotuneMode::Race
        } else {
            crate::autotune::AutotuneMode::UseCache
        },
    })
}

/// `param0={0,1}` → (0, layout `{0,1}`); anything else is a usage error naming the flag.
fn parse_layout_flag(s: &str) -> Result<(usize, crate::ir::Layout), Failure> {
    let bad = || {
        Failure::usage(format!(
            "--layout {s}: expected paramN={{d,...}} (minor-to-major dimensions, e.g. param0={{0,1}})"
        ))
    };
    let (param, layout) = s.split_once('=').ok_or_else(bad)?;
    let number: usize = param
        .trim()
        .strip_prefix("param")
        .and_then(|n| n.parse().ok())
        .ok_or_else(bad)?;
    let inner = layout
        .trim()
        .strip_prefix('{')
        .and_then(|l| l.strip_suffix('}'))
        .ok_or_else(bad)?;
    let minor_to_major = if inner.trim().is_empty() {
        Vec::new()
    } else {
        inner
            .split(',')
            .map(|d| d.trim().parse::<usize>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| bad())?
    };
    Ok((
        number,
        crate::ir::Layout {
            minor_to_major,
            extra: None,
        },
    ))
}

/// Runs the pipeline on a loaded model; a pipeline failure becomes one `error:` line naming
/// the model file.
pub fn optimize_loaded(
    loaded: model::LoadedModel,
    options: &CompileOptions,
) -> Result<Optimized, Failure> {
    let file = loaded.file.clone();
    let mut options = options.clone();
    options.stablehlo_source = loaded.stablehlo;
    optimize(loaded.module, &options).map_err(|e| Failure::error(format!("{file}: {e}")))
}
