//! `xlac compile MODEL --dump-to DIR`: load and run the pass pipeline, writing every stage
//! into the dump folder; nothing executes. Also the shared step `optimize` that `xlac run`
//! uses.

use super::{CompileArgs, Failure, PassFlags, model};
use crate::compiler::{CompileOptions, Optimized, optimize};

/// Runs `xlac compile`.
pub fn compile(args: &CompileArgs) -> Result<(), Failure> {
    if !args.isa.is_empty() {
        return Err(Failure::usage(
            "--isa is not available yet: it needs the Cranelift code generator",
        ));
    }
    let loaded = model::load(&args.model, false)?;
    let options = compile_options(&args.passes, Some(args.dump_to.clone()), false)?;
    optimize_loaded(loaded, &options)?;
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
    Ok(CompileOptions {
        disabled_passes: flags.disable_passes.clone(),
        dump_to,
        dump_pass_re,
        stablehlo_source: None,
        keep_snapshots,
        forced_parameter_layouts: Vec::new(),
    })
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
