//! The pass pipeline: the [`Pass`] trait, named pipelines that nest, fixed-point loops,
//! and the one loop over passes that verifies, times and dumps (passes never do).
//! XLA: `xla/hlo/pass/hlo_pass_interface.h`, `hlo_pass_pipeline.cc`, `hlo_pass_fix.h`.
//!
//! `Pipeline::run` is the only place that runs passes. For each pass it checks whether the
//! pass is disabled (`--disable-passes`), times it, and when the pass reports a change,
//! verifies the module (an error names the pass) and tells the dump writer, which names
//! the file `SSSS.PIPELINE.after_PASS.before_NEXT` as XLA does.

pub mod algsimp;
pub mod all_reduce_promotion;
pub mod bisect;
pub mod call_inliner;
pub mod cholesky_expander;
pub mod conditional_simplifier;
pub mod constant_folding;
pub mod cpu;
pub mod cse;
pub mod dce;
pub mod dot_decomposer;
pub mod dump;
pub mod dynamic_padder;
pub mod flatten_call_graph;
pub mod float_normalization;
pub mod identity_custom_calls;
pub mod memory_placement_remover;
pub mod op_expander;
pub mod optimize_input_output_buffer_alias;
pub mod pass;
pub mod qr_expander;
pub mod rng_bit_generator_expander;
pub mod topk_decomposer;
pub mod triangular_solve_expander;
pub mod tuple_simplifier;
pub mod while_loop_input_projection;
pub mod while_loop_simplifier;

#[cfg(test)]
mod structural_corpus;
#[cfg(test)]
pub mod testing;

use std::collections::HashSet;
use std::fmt;
use std::time::{Duration, Instant};

use crate::ir::Module;
use crate::ir::verifier::verify;

pub use dump::{Artifact, DumpError, DumpWriter};
pub use pass::{Pass, PassError};

/// Why a pipeline stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum PipelineError {
    /// A pass returned an error.
    Pass {
        /// The pass.
        pass: String,
        /// Its error.
        error: PassError,
    },
    /// The module no longer verifies after a pass changed it: a bug in that pass.
    Verify {
        /// The pass that broke the module.
        pass: String,
        /// The verifier's findings.
        errors: Vec<String>,
    },
    /// A fixed-point loop did not settle.
    NoFixedPoint {
        /// The looping pipeline.
        pipeline: String,
        /// How many rounds ran.
        rounds: usize,
    },
    /// The dump folder could not be written.
    Dump(DumpError),
}

impl PipelineError {
    /// A pass's own error keeps its kind; a module a pass left invalid, or a loop that
    /// never settles, is a bug in xlac.
    pub fn kind(&self) -> crate::ir::ErrorKind {
        match self {
            PipelineError::Pass { error, .. } => error.kind,
            PipelineError::Verify { .. } | PipelineError::NoFixedPoint { .. } => {
                crate::ir::ErrorKind::Internal
            }
            PipelineError::Dump(_) => crate::ir::ErrorKind::Invalid,
        }
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipelineError::Pass { pass, error } => write!(f, "pass {pass} failed: {error}"),
            PipelineError::Verify { pass, errors } => {
                write!(f, "verifier failed after {pass}: {}", errors.join("; "))
            }
            PipelineError::NoFixedPoint { pipeline, rounds } => {
                write!(
                    f,
                    "{pipeline} still changed the module after {rounds} rounds"
                )
            }
            PipelineError::Dump(e) => write!(f, "cannot write the dump: {e}"),
        }
    }
}

impl std::error::Error for PipelineError {}

/// One entry of a pipeline.
enum Step {
    Pass(Box<dyn Pass>),
    Pipeline(Pipeline),
}

/// A named list of passes and sub-pipelines, run in order, optionally until nothing
/// changes (XLA's `HloPassFix`).
pub struct Pipeline {
    name: &'static str,
    steps: Vec<Step>,
    fixed_point: Option<usize>,
}

/// How a pass went, for `compile-times.txt` and the pass table of docs/pipeline.md.
#[derive(Debug, Clone, PartialEq)]
pub struct PassRecord {
    /// The innermost pipeline it ran in.
    pub pipeline: String,
    /// The pass.
    pub pass: String,
    /// Wall time.
    pub time: Duration,
    /// Whether it changed the module.
    pub changed: bool,
}

/// What one compile carries through the pipelines: settings, the dump writer, the record.
pub struct PipelineContext<'a> {
    /// Passes (or whole pipelines) to skip, by name.
    pub disabled: HashSet<String>,
    /// Verify after every pass that changed the module.
    pub verify: bool,
    /// Where dumps go, if anywhere.
    pub dump: Option<&'a mut DumpWriter>,
    /// Every pass run, in order.
    pub record: Vec<PassRecord>,
    /// When `Some`, a copy of the module after every pass that changed it (`--bisect`).
    pub snapshots: Option<Vec<bisect::Snapshot>>,
}

impl<'a> PipelineContext<'a> {
    /// A context that verifies, dumps nowhere and disables nothing.
    pub fn new() -> PipelineContext<'a> {
        PipelineContext {
            disabled: HashSet::new(),
            verify: true,
            dump: None,
            record: Vec::new(),
            snapshots: None,
        }
    }
}

impl Default for PipelineContext<'_> {
    fn default() -> Self {
        PipelineContext::new()
    }
}

impl Pipeline {
    /// An empty pipeline; `name` goes into dump file names.
    pub fn new(name: &'static str) -> Pipeline {
        Pipeline {
            name,
            steps: Vec::new(),
            fixed_point: None,
        }
    }

    /// Appends a pass.
    pub fn pass(mut self, pass: impl Pass + 'static) -> Pipeline {
        self.steps.push(Step::Pass(Box::new(pass)));
        self
    }

    /// Appends a sub-pipeline.
    pub fn pipeline(mut self, pipeline: Pipeline) -> Pipeline {
        self.steps.push(Step::Pipeline(pipeline));
        self
    }

    /// Runs the whole pipeline again until a round changes nothing, at most `max_rounds`
    /// rounds (XLA's `HloPassFix`, whose limit is 25).
    pub fn until_fixed_point(mut self, max_rounds: usize) -> Pipeline {
        self.fixed_point = Some(max_rounds);
        self
    }

    /// The pipeline's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The names of every pass, depth-first (for `--disable-passes` help and tests).
    pub fn pass_names(&self) -> Vec<&'static str> {
        self.steps
            .iter()
            .flat_map(|s| match s {
                Step::Pass(p) => vec![p.name()],
                Step::Pipeline(p) => p.pass_names(),
            })
            .collect()
    }

    /// The names `--disable-passes` accepts: this pipeline's, its sub-pipelines' and
    /// every pass's, depth-first, each once.
    pub fn step_names(&self) -> Vec<&'static str> {
        let mut out = vec![self.name];
        for s in &self.steps {
            match s {
                Step::Pass(p) => out.push(p.name()),
                Step::Pipeline(p) => out.extend(p.step_names()),
            }
        }
        let mut seen = HashSet::new();
        out.retain(|n| seen.insert(*n));
        out
    }

    /// Runs the pipeline on `module`; returns whether anything changed.
    pub fn run(
        &mut self,
        module: &mut Module,
        ctx: &mut PipelineContext<'_>,
    ) -> Result<bool, PipelineError> {
        if ctx.disabled.contains(self.name) {
            return Ok(false);
        }
        let Some(max_rounds) = self.fixed_point else {
            return self.run_once(module, ctx);
        };
        let mut changed = false;
        for _ in 0..max_rounds {
            if !self.run_once(module, ctx)? {
                return Ok(changed);
            }
            changed = true;
        }
        Err(PipelineError::NoFixedPoint {
            pipeline: self.name.to_string(),
            rounds: max_rounds,
        })
    }

    /// One pass over the steps. A changed module is dumped when the next pass starts (or
    /// the pipeline ends), so the file can name both neighbours as XLA's do.
    fn run_once(
        &mut self,
        module: &mut Module,
        ctx: &mut PipelineContext<'_>,
    ) -> Result<bool, PipelineError> {
        let mut changed = false;
        let mut pending_dump: Option<&'static str> = None;
        for step in &mut self.steps {
            let step_changed = match step {
                Step::Pass(pass) => {
                    let name = pass.name();
                    if ctx.disabled.contains(name) {
                        continue;
                    }
                    if let Some(after) = pending_dump.take() {
                        dump_between(ctx, module, self.name, after, name)?;
                    }
                    crate::ir::provenance::set_pass(self.name, name);
                    let start = Instant::now();
                    let result = pass.run(module);
                    let time = start.elapsed();
                    let pass_changed = result.map_err(|error| PipelineError::Pass {
                        pass: name.to_string(),
                        error,
                    })?;
                    ctx.record.push(PassRecord {
                        pipeline: self.name.to_string(),
                        pass: name.to_string(),
                        time,
                        changed: pass_changed,
                    });
                    if pass_changed {
                        if ctx.verify
                            && let Err(errors) = verify(module)
                        {
                            return Err(PipelineError::Verify {
                                pass: name.to_string(),
                                errors: errors.iter().map(|e| e.to_string()).collect(),
                            });
                        }
                        if let Some(snapshots) = ctx.snapshots.as_mut() {
                            let pass = ctx.record.last().cloned().expect("just recorded");
                            snapshots.push(bisect::Snapshot {
                                pass,
                                module: module.clone(),
                            });
                        }
                        pending_dump = Some(name);
                    }
                    pass_changed
                }
                Step::Pipeline(inner) => {
                    if let Some(after) = pending_dump.take() {
                        dump_between(ctx, module, self.name, after, inner.name)?;
                    }
                    inner.run(module, ctx)?
                }
            };
            changed |= step_changed;
        }
        if let Some(after) = pending_dump {
            dump_between(ctx, module, self.name, after, "pipeline-end")?;
        }
        Ok(changed)
    }
}

/// Writes `SSSS.PIPELINE.after_AFTER.before_BEFORE.txt` if dumping is on.
fn dump_between(
    ctx: &mut PipelineContext<'_>,
    module: &Module,
    pipeline: &str,
    after: &str,
    before: &str,
) -> Result<(), PipelineError> {
    if let Some(dump) = ctx.dump.as_deref_mut() {
        dump.write(
            Artifact::AfterPass {
                pipeline,
                after,
                before,
            },
            &module.to_string(),
        )
        .map_err(PipelineError::Dump)?;
    }
    Ok(())
}
