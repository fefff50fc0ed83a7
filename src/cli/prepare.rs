//! From a loaded model to what a command runs: compiler options from the pass flags, the
//! pipeline or the whole compile with the model file named on failure, and `--input`
//! files bound to the entry parameters. Shared by `run`, `compile`, `bench`, `explain`,
//! `diff-dump` and the multi-device runs.

use std::path::PathBuf;

use super::{Failure, PassFlags, model};
use crate::compiler::{CompileOptions, Compiled, Optimized, compile, optimize};
use crate::io::arguments::{Arguments, ParameterInfo, bind_arguments};
use crate::io::npz::{NamedArray, read_arrays};

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
pub fn parse_layout_flag(s: &str) -> Result<(usize, crate::ir::Layout), Failure> {
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

/// Compiles a loaded module; a failure becomes one `error:` line naming the model file.
pub fn compile_loaded(
    loaded: model::LoadedModel,
    options: &CompileOptions,
) -> Result<Compiled, Failure> {
    let file = loaded.file.clone();
    let mut options = options.clone();
    options.stablehlo_source = loaded.stablehlo;
    compile(loaded.module, &options).map_err(|e| Failure::error(format!("{file}: {e}")))
}

/// Binds `--input` files (random data from `seed` for the rest) to `params`, warning
/// about parameters that got random values when some inputs were given.
pub fn bind_inputs(
    params: &[ParameterInfo],
    paths: &[PathBuf],
    seed_flag: Option<u64>,
    quiet: bool,
) -> Result<Arguments, Failure> {
    let seed = seed_flag.unwrap_or(0);
    let inputs = read_inputs(paths)?;
    let given = inputs.len();
    if given == 0 && !paths.is_empty() && !params.is_empty() && seed_flag.is_none() {
        // An empty archive is more often a mistake than a request for random inputs.
        let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Failure::error(format!(
            "{} holds no arrays for the model's {} parameter(s); give --seed N to run on random inputs",
            files.join(", "),
            params.len()
        )));
    }
    let arguments = bind_arguments(params, inputs, seed)?;
    if given > 0 && !arguments.randomized.is_empty() && !quiet {
        let names: Vec<String> = arguments
            .randomized
            .iter()
            .map(|&n| format!("{n} ({})", params[n].name))
            .collect();
        eprintln!(
            "warning: {} input(s) for {} parameters; parameter(s) {} get random values from --seed {}",
            given,
            params.len(),
            names.join(", "),
            seed
        );
    }
    Ok(arguments)
}

/// Reads `--input` files: one `.npz` (or `.npy`) alone, or several files of one array each.
pub fn read_inputs(paths: &[PathBuf]) -> Result<Vec<NamedArray>, Failure> {
    if let [single] = paths {
        return Ok(read_arrays(single)?);
    }
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        let mut arrays = read_arrays(path)?;
        if arrays.len() != 1 {
            return Err(Failure::error(format!(
                "{} holds {} arrays; give one .npz alone, or one array per --input",
                path.display(),
                arrays.len()
            )));
        }
        out.append(&mut arrays);
    }
    Ok(out)
}
