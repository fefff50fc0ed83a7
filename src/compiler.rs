//! The one function that strings the stages together: `optimize` runs the pass pipeline
//! and hands each stage's printable result to the dump writer. Stages never write files.
//! (Layout, fusion, buffer assignment and codegen join here as they are built.)

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use crate::ir::Module;
use crate::pipeline::bisect::Snapshot;
use crate::pipeline::cpu::cpu_pipeline;
use crate::pipeline::{Artifact, DumpWriter, PassRecord, PipelineContext, PipelineError};

/// What `optimize` should do besides optimizing.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// Passes (or pipelines) to skip, by name (`--disable-passes`).
    pub disabled_passes: Vec<String>,
    /// Write the dump folder here (`--dump-to`).
    pub dump_to: Option<PathBuf>,
    /// Only dump per-pass files for passes matching this (`--dump-pass-re`).
    pub dump_pass_re: Option<regex::Regex>,
    /// The StableHLO text the module came from, dumped as given.
    pub stablehlo_source: Option<String>,
    /// Keep a copy of the module after every pass that changed it (for `--bisect`).
    pub keep_snapshots: bool,
}

/// The optimized module and how each pass went.
#[derive(Clone, Debug)]
pub struct Optimized {
    /// The module after the whole pipeline.
    pub module: Module,
    /// Every pass run, in order, with its time.
    pub passes: Vec<PassRecord>,
    /// The module after each pass that changed it, when `keep_snapshots` was set.
    pub snapshots: Vec<Snapshot>,
}

/// Runs the CPU pipeline on `module`, dumping as `options` say.
pub fn optimize(mut module: Module, options: &CompileOptions) -> Result<Optimized, PipelineError> {
    let mut dump = match &options.dump_to {
        Some(dir) => Some(
            DumpWriter::new(dir, &module.name, options.dump_pass_re.clone())
                .map_err(PipelineError::Dump)?,
        ),
        None => None,
    };
    if let Some(d) = dump.as_mut() {
        if let Some(source) = &options.stablehlo_source {
            d.write(Artifact::StableHlo, source)
                .map_err(PipelineError::Dump)?;
        }
        d.write(Artifact::BeforeOptimizations, &module.to_string())
            .map_err(PipelineError::Dump)?;
    }
    let mut ctx = PipelineContext::new();
    ctx.disabled = options
        .disabled_passes
        .iter()
        .cloned()
        .collect::<HashSet<_>>();
    ctx.dump = dump.as_mut();
    ctx.snapshots = options.keep_snapshots.then(Vec::new);
    cpu_pipeline().run(&mut module, &mut ctx)?;
    let passes = std::mem::take(&mut ctx.record);
    let snapshots = ctx.snapshots.take().unwrap_or_default();
    drop(ctx);
    if let Some(mut d) = dump {
        d.write(Artifact::CpuAfterOptimizations, &module.to_string())
            .map_err(PipelineError::Dump)?;
        d.write(Artifact::CompileTimes, &compile_times(&passes))
            .map_err(PipelineError::Dump)?;
        d.finish().map_err(PipelineError::Dump)?;
    }
    Ok(Optimized {
        module,
        passes,
        snapshots,
    })
}

/// `compile-times.txt`: one line per pass run, `pipeline/pass  ms  changed`, then the total.
fn compile_times(passes: &[PassRecord]) -> String {
    let mut out = String::new();
    let mut total = 0.0;
    for p in passes {
        let ms = p.time.as_secs_f64() * 1e3;
        total += ms;
        let changed = if p.changed { "changed" } else { "-" };
        let _ = writeln!(
            out,
            "{:<48} {ms:>9.3} ms  {changed}",
            format!("{}/{}", p.pipeline, p.pass)
        );
    }
    let _ = writeln!(out, "{:<48} {total:>9.3} ms", "total");
    out
}
