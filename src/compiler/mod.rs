//! The one function that strings the stages together. `optimize` runs every HLO-to-HLO
//! stage (the pass pipeline with layout assignment, fusion, copy insertion, scheduling);
//! `compile` goes on to buffer assignment, codegen and the runtime's executable. Each stage
//! returns a printable value and this file hands it to the dump writer; stages never write
//! files themselves.

pub mod coverage;
pub mod devices;
pub mod thunk_emitter;

pub use devices::{
    DeviceBackend, DeviceRunError, DeviceRunOptions, LoadedDevices, load_on_devices, run_on_devices,
};

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::rc::Rc;

use crate::codegen::inspect::cross_isa;
use crate::codegen::{CodegenOptions, KernelSet, compile_kernels};
use crate::fusion::decisions::decisions_text;
use crate::fusion::{DecisionLog, FusionDecision, fusion_pipeline};
use crate::ir::denormal_mode::{DenormalMode, with_denormal_mode};
use crate::ir::provenance::{self, Provenance};
use crate::ir::{Layout, Module};
use crate::layout::BufferAssignment;
use crate::layout::copy_insertion::CopyInsertion;
use crate::layout::layout_assignment::LayoutAssignment;
use crate::layout::scheduler::HloMemoryScheduler;
use crate::pipeline::bisect::Snapshot;
use crate::pipeline::cpu::cpu_pipeline;
use crate::pipeline::while_loop_input_projection::InputProjectionLog;
use crate::pipeline::{Artifact, DumpWriter, PassRecord, Pipeline, PipelineContext, PipelineError};
use crate::report::{ReportData, ReportOptions};
use crate::runtime::buffer_plan::Plan;
use crate::runtime::{BufferMode, Executable};

/// What a compile should do besides compiling.
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
    /// Entry parameter layouts forced by the user (`--layout param0={0,1}`).
    pub forced_parameter_layouts: Vec<(usize, Layout)>,
    /// Race tunable thunks (`--autotune`), use cached winners (default), or neither.
    pub autotune: crate::autotune::AutotuneMode,
    /// Other instruction sets to list every kernel's machine code for (`--isa`; names from
    /// [`crate::codegen::inspect::cross_isa::SUPPORTED_ISAS`]). Only used with `dump_to`.
    pub isas: Vec<String>,
    /// Keep each kernel's CLIF and assembly text even without `dump_to` (`xlac explain`).
    pub keep_kernel_artifacts: bool,
    /// Never call the native block routines of `codegen/block_math` (`--inline-math`):
    /// every transcendental stays inline CLIF.
    pub inline_math: bool,
    /// Never contract `a*b + c` into an FMA, even where the host has one (every op
    /// rounded, as HLO's plain semantics; XLA:CPU contracts, see `ir::fp_contraction`).
    pub no_fp_contraction: bool,
    /// Partition the module for this device grid first (XLA's `spmd-partitioner`
    /// pipeline); `None` for a one-device program.
    pub spmd: Option<crate::spmd::SpmdOptions>,
    /// `--guard-buffers`: one buffer per value, each against a protected page.
    pub guard_buffers: bool,
}

/// The module after every HLO-to-HLO stage, and how each pass went.
#[derive(Clone, Debug)]
pub struct Optimized {
    /// The final module: laid out, fused, scheduled.
    pub module: Module,
    /// Every pass run, in order, with its time.
    pub passes: Vec<PassRecord>,
    /// The module after each pass that changed it, when `keep_snapshots` was set.
    pub snapshots: Vec<Snapshot>,
    /// Every producer–consumer pair the fusion passes considered.
    pub fusion_decisions: Vec<FusionDecision>,
    /// What each pass did to each instruction (`xlac explain` reads it).
    pub provenance: Provenance,
    /// With a dump: each changing pass's diff, for the report's pipeline view.
    pub pass_steps: Vec<crate::report::passes::PassStep>,
    /// For a sharded compile: what the partitioner decided.
    pub spmd_decisions: Option<crate::spmd::DecisionLog>,
}

/// A compiled module: the optimized module's record, and the executable.
pub struct Compiled {
    /// Every pass run, in order, with its time.
    pub passes: Vec<PassRecord>,
    /// Every producer–consumer pair the fusion passes considered.
    pub fusion_decisions: Vec<FusionDecision>,
    /// The thing that runs; it owns the final module, the buffer plan and the kernels.
    pub executable: Executable,
    /// Milliseconds from the start of `compile` to a ready executable.
    pub compile_ms: f64,
    /// One line per kernel an `--isa` target could not compile (also in the dump).
    pub warnings: Vec<String>,
    /// What each pass did to each instruction (`xlac explain` reads it).
    pub provenance: Provenance,
    /// Thunks raced by `--autotune` or tuned from the cache.
    pub autotune: Vec<crate::autotune::Race>,
    /// With a dump: each changing pass's diff, for the report's pipeline view.
    pub pass_steps: Vec<crate::report::passes::PassStep>,
    /// For a sharded compile: what the partitioner decided.
    pub spmd_decisions: Option<crate::spmd::DecisionLog>,
}

/// Why a compile failed.
#[derive(Debug, Clone, PartialEq)]
pub enum CompileError {
    /// A pass failed or broke the module.
    Pipeline(PipelineError),
    /// Buffer assignment failed.
    BufferAssignment(crate::layout::BufferAssignmentError),
    /// A kernel could not be generated.
    Codegen(crate::codegen::CodegenError),
    /// The executable could not be built.
    Runtime(crate::runtime::RuntimeError),
    /// The dump folder could not be written.
    Dump(crate::pipeline::DumpError),
    /// `--autotune` could not race or save its cache.
    Autotune(crate::autotune::AutotuneError),
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Pipeline(e) => write!(f, "{e}"),
            CompileError::BufferAssignment(e) => write!(f, "buffer assignment: {e}"),
            CompileError::Codegen(e) => write!(f, "{e}"),
            CompileError::Runtime(e) => write!(f, "{e}"),
            CompileError::Dump(e) => write!(f, "cannot write the dump: {e}"),
            CompileError::Autotune(e) => write!(f, "autotune: {e}"),
        }
    }
}

impl std::error::Error for CompileError {}

impl CompileError {
    /// Whether the module is wrong, xlac lacks something it needs, or xlac has a bug.
    pub fn kind(&self) -> crate::ir::ErrorKind {
        use crate::ir::ErrorKind;
        match self {
            CompileError::Pipeline(e) => e.kind(),
            CompileError::BufferAssignment(e) => e.kind(),
            CompileError::Codegen(e) => e.kind,
            CompileError::Runtime(e) => e.kind,
            CompileError::Dump(_) => ErrorKind::Invalid,
            CompileError::Autotune(e) => e.kind(),
        }
    }
}

impl From<PipelineError> for CompileError {
    fn from(e: PipelineError) -> CompileError {
        CompileError::Pipeline(e)
    }
}

/// Runs every HLO-to-HLO stage on `module`, dumping as `options` say.
pub fn optimize(module: Module, options: &CompileOptions) -> Result<Optimized, CompileError> {
    let mut dump = open_dump(&module, options)?;
    let optimized = optimize_with(module, options, dump.as_mut())?;
    if let Some(mut d) = dump {
        write(
            &mut d,
            Artifact::CpuAfterOptimizations,
            &optimized.module.to_string(),
        )?;
        write(
            &mut d,
            Artifact::FusionDecisions,
            &decisions_text(&optimized.fusion_decisions),
        )?;
        write(
            &mut d,
            Artifact::CompileTimes,
            &compile_times(&optimized.passes, None),
        )?;
        d.finish().map_err(CompileError::Dump)?;
    }
    Ok(optimized)
}

/// Compiles `module` into an executable: `optimize`, then buffer assignment, codegen and
/// the runtime's thunk sequence, dumping every stage as `options` say.
pub fn compile(module: Module, options: &CompileOptions) -> Result<Compiled, CompileError> {
    let start = std::time::Instant::now();
    let mut dump = open_dump(&module, options)?;
    let optimized = optimize_with(module, options, dump.as_mut())?;
    let module = optimized.module;
    if let Some(d) = dump.as_mut() {
        write(d, Artifact::CpuAfterOptimizations, &module.to_string())?;
        write(
            d,
            Artifact::FusionDecisions,
            &decisions_text(&optimized.fusion_decisions),
        )?;
        let contracting = !options.no_fp_contraction && crate::codegen::isa::host_contracts_fma();
        write(
            d,
            Artifact::FpContraction,
            &crate::ir::fp_contraction::describe(&module, contracting),
        )?;
    }
    let buffers = BufferAssignment::run(&module).map_err(CompileError::BufferAssignment)?;
    if let Some(d) = dump.as_mut() {
        write(d, Artifact::BufferAssignment, &buffers.to_text(&module))?;
        write(d, Artifact::LiveRange, &buffers.live_range_text(&module))?;
        write(
            d,
            Artifact::MemoryUsageReport,
            &buffers.memory_usage_report(&module),
        )?;
    }
    let isas = cross_isa::parse_isas(&options.isas).map_err(|message| {
        CompileError::Codegen(crate::codegen::CodegenError {
            kind: crate::ir::ErrorKind::Internal,
            instruction: module.name.clone(),
            message,
        })
    })?;
    let codegen_options = CodegenOptions {
        keep_artifacts: dump.is_some() || options.keep_kernel_artifacts,
        block_math: !options.inline_math,
        no_fp_contraction: options.no_fp_contraction,
    };
    let kernels = compile_kernels(&module, &codegen_options).map_err(CompileError::Codegen)?;
    let mut warnings = Vec::new();
    if let Some(d) = dump.as_mut() {
        write_kernel_artifacts(d, &module, &kernels)?;
        if !isas.is_empty() {
            warnings = write_cross_isa_listings(d, &module, &kernels, &isas)?;
        }
    }
    let (plan, mode) = if options.guard_buffers {
        (Plan::one_buffer_per_value(&module), BufferMode::Guarded)
    } else {
        (Plan::from_assignment(&module, &buffers), BufferMode::Plain)
    };
    let mut executable = thunk_emitter::emit_executable(module, buffers, plan, kernels, mode)
        .map_err(CompileError::Runtime)?;
    let compile_ms = start.elapsed().as_secs_f64() * 1e3;
    // Races are timed runs, not compilation: they stay out of compile_ms.
    let autotune = match crate::autotune::tune(&mut executable, options.autotune) {
        Ok(races) => races,
        Err(e) if options.autotune == crate::autotune::AutotuneMode::Race => {
            return Err(CompileError::Autotune(e));
        }
        Err(e) => {
            warnings.push(format!("autotune cache not used: {e}"));
            Vec::new()
        }
    };
    if let Some(mut d) = dump {
        let cpu = crate::autotune::cpu_id();
        let cache = crate::autotune::cache::default_path();
        for race in &autotune {
            write(
                &mut d,
                Artifact::Autotune { thunk: &race.thunk },
                &race.table(&cpu, cache.as_ref()),
            )?;
        }
        write(
            &mut d,
            Artifact::ThunkSequence,
            &executable.thunk_sequence_text(),
        )?;
        write(
            &mut d,
            Artifact::CompileTimes,
            &compile_times(&optimized.passes, Some(&executable.kernels)),
        )?;
        let report = ReportData {
            executable: &executable,
            fusion_decisions: &optimized.fusion_decisions,
            pass_steps: &optimized.pass_steps,
            spmd: optimized.spmd_decisions.as_ref(),
            collectives: None,
        };
        write(
            &mut d,
            Artifact::Report,
            &crate::report::render(&report, &ReportOptions::default()),
        )?;
        let (graph, node_data) = crate::report::model_explorer::export(
            &executable.module,
            &crate::report::graph::nodes(
                &executable.module,
                &executable.buffers,
                &executable
                    .kernels
                    .kernels
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>(),
            ),
        );
        write(&mut d, Artifact::ModelExplorerGraph, &graph.to_string())?;
        write(
            &mut d,
            Artifact::ModelExplorerNodeData,
            &node_data.to_string(),
        )?;
        d.finish().map_err(CompileError::Dump)?;
    }
    Ok(Compiled {
        passes: optimized.passes,
        fusion_decisions: optimized.fusion_decisions,
        executable,
        compile_ms,
        warnings,
        provenance: optimized.provenance,
        autotune,
        pass_steps: optimized.pass_steps,
        spmd_decisions: optimized.spmd_decisions,
    })
}

fn open_dump(
    module: &Module,
    options: &CompileOptions,
) -> Result<Option<DumpWriter>, CompileError> {
    let Some(dir) = &options.dump_to else {
        return Ok(None);
    };
    let mut d = DumpWriter::new(dir, &module.name, options.dump_pass_re.clone())
        .map_err(CompileError::Dump)?;
    if let Some(source) = &options.stablehlo_source {
        write(&mut d, Artifact::StableHlo, source)?;
    }
    write(&mut d, Artifact::BeforeOptimizations, &module.to_string())?;
    Ok(Some(d))
}

fn write(d: &mut DumpWriter, what: Artifact<'_>, text: &str) -> Result<(), CompileError> {
    d.write(what, text).map_err(CompileError::Dump)
}

/// The HLO stages: the CPU pass pipeline (with layout assignment), fusion, copy insertion
/// and scheduling, in one pipeline so every changed pass gets its numbered dump.
fn compile_pipeline(
    options: &CompileOptions,
    log: &DecisionLog,
    spmd_log: &std::rc::Rc<std::cell::RefCell<crate::spmd::DecisionLog>>,
    hoist_log: &Rc<std::cell::RefCell<InputProjectionLog>>,
) -> Pipeline {
    let layout = LayoutAssignment {
        forced_parameter_layouts: options.forced_parameter_layouts.clone(),
    };
    let mut pipeline = Pipeline::new("cpu-compiler");
    pipeline = match options.spmd {
        Some(spmd) => pipeline.pipeline(crate::spmd::spmd_pipeline(spmd, spmd_log)),
        // One device: sharding annotations jax writes anyway are identities (XLA:CPU's
        // `sharding-removal` pipeline).
        None => pipeline.pipeline(
            Pipeline::new("sharding-removal")
                .pass(crate::pipeline::memory_placement_remover::MemoryPlacementRemover)
                .pass(crate::spmd::sharding_remover::ShardingRemover),
        ),
    };
    pipeline
        .pipeline(cpu_pipeline(layout, hoist_log))
        .pipeline(fusion_pipeline(log))
        .pipeline(
            Pipeline::new("scheduling")
                .pass(crate::pipeline::optimize_input_output_buffer_alias::OptimizeInputOutputBufferAlias)
                .pass(CopyInsertion)
                .pass(HloMemoryScheduler),
        )
}

/// Every name `--disable-passes` accepts: the passes and pipelines of the compile
/// pipeline.
pub fn pass_and_pipeline_names() -> Vec<&'static str> {
    // Every step, the SPMD ones included: a grid's options add them.
    let options = CompileOptions {
        spmd: Some(crate::spmd::SpmdOptions {
            num_partitions: 2,
            num_replicas: 1,
        }),
        ..CompileOptions::default()
    };
    let mut names = compile_pipeline(
        &options,
        &DecisionLog::default(),
        &Rc::default(),
        &Rc::default(),
    )
    .step_names();
    // One device's steps: the sharding removal that replaces the SPMD pipeline.
    for name in compile_pipeline(
        &CompileOptions::default(),
        &DecisionLog::default(),
        &Rc::default(),
        &Rc::default(),
    )
    .step_names()
    {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Runs [`compile_pipeline`] on `module`, dumping and recording as `options` say.
fn optimize_with(
    mut module: Module,
    options: &CompileOptions,
    dump: Option<&mut DumpWriter>,
) -> Result<Optimized, CompileError> {
    let log: DecisionLog = Rc::default();
    let spmd_log: std::rc::Rc<std::cell::RefCell<crate::spmd::DecisionLog>> = Rc::default();
    let hoist_log: Rc<std::cell::RefCell<InputProjectionLog>> = Rc::default();
    let mut pipeline = compile_pipeline(options, &log, &spmd_log, &hoist_log);
    let mut ctx = PipelineContext::new();
    ctx.disabled = options
        .disabled_passes
        .iter()
        .cloned()
        .collect::<HashSet<_>>();
    // XLA:CPU runs sibling multi-output fusion only behind a flag, so with its `fusion`
    // pass disabled XLA fuses nothing: xlac's extra pass goes with it, leaving one
    // `fusion-wrapper` kernel per op.
    if ctx.disabled.contains("fusion") {
        ctx.disabled.insert("multi_output_fusion".to_string());
    }
    // With a dump, the report's pipeline view diffs each changing pass's module against the
    // one before it.
    let before = dump.as_ref().map(|_| module.to_string());
    ctx.dump = dump;
    ctx.snapshots = (options.keep_snapshots || before.is_some()).then(Vec::new);
    let recording = provenance::Recording::start();
    // Passes fold float arithmetic as XLA's HloEvaluator does, keeping denormals, whatever
    // mode the calling thread runs in.
    with_denormal_mode(DenormalMode::Keep, || pipeline.run(&mut module, &mut ctx))?;
    let provenance = recording.finish();
    let passes = std::mem::take(&mut ctx.record);
    let mut snapshots = ctx.snapshots.take().unwrap_or_default();
    let pass_steps = before
        .map(|b| crate::report::passes::steps(&b, &snapshots))
        .unwrap_or_default();
    if !options.keep_snapshots {
        snapshots.clear();
    }
    if options.spmd.is_some()
        && let Some(d) = ctx.dump.as_deref_mut()
    {
        write(d, Artifact::SpmdDecisions, &spmd_log.borrow().to_string())?;
    }
    // Only modules with a dot in a loop body get the file, so other dumps stay as they were.
    if !hoist_log.borrow().decisions.is_empty()
        && let Some(d) = ctx.dump.as_deref_mut()
    {
        write(
            d,
            Artifact::WhileLoopInputProjection,
            &hoist_log.borrow().to_string(),
        )?;
    }
    let spmd_decisions = options.spmd.map(|_| spmd_log.borrow().clone());
    drop(ctx);
    let fusion_decisions = log.borrow().clone();
    Ok(Optimized {
        module,
        passes,
        snapshots,
        fusion_decisions,
        provenance,
        pass_steps,
        spmd_decisions,
    })
}

fn write_kernel_artifacts(
    d: &mut DumpWriter,
    module: &Module,
    kernels: &KernelSet,
) -> Result<(), CompileError> {
    for k in &kernels.kernels {
        let fused = match &module.computation(k.computation).instr(k.instruction).op {
            crate::ir::Op::Fusion { calls, .. } => module.computation(*calls),
            _ => continue,
        };
        write(
            d,
            Artifact::KernelPlan { kernel: &k.name },
            &k.plan.write(fused),
        )?;
    }
    // Kernels, then the scalar functions library routines call (sort comparators, ...).
    let mut scalars: Vec<_> = kernels.scalar_functions().collect();
    scalars.sort_by(|a, b| a.name.cmp(&b.name));
    let all = kernels
        .kernels
        .iter()
        .map(|k| (&k.name, &k.artifacts))
        .chain(scalars.iter().map(|s| (&s.name, &s.artifacts)));
    for (name, a) in all {
        write(
            d,
            Artifact::KernelClif {
                kernel: name,
                optimized: false,
            },
            &a.clif_no_opt,
        )?;
        write(
            d,
            Artifact::KernelClif {
                kernel: name,
                optimized: true,
            },
            &a.clif_with_opt,
        )?;
        write(
            d,
            Artifact::KernelAsm {
                kernel: name,
                isa: None,
            },
            &a.asm,
        )?;
    }
    Ok(())
}

/// Compiles every kernel for the `--isa` targets and writes `KERNEL.ISA.asm`; returns one
/// warning line per kernel an ISA could not compile.
fn write_cross_isa_listings(
    d: &mut DumpWriter,
    module: &Module,
    kernels: &KernelSet,
    isas: &[cross_isa::IsaSpec],
) -> Result<Vec<String>, CompileError> {
    let listings = cross_isa::compile_for_isas(module, kernels, isas).map_err(|message| {
        CompileError::Codegen(crate::codegen::CodegenError {
            kind: crate::ir::ErrorKind::Internal,
            instruction: module.name.clone(),
            message,
        })
    })?;
    let mut warnings = Vec::new();
    for l in &listings {
        let what = match &l.error {
            None => Artifact::KernelAsm {
                kernel: &l.kernel,
                isa: Some(l.isa),
            },
            Some(reason) => {
                warnings.push(format!(
                    "kernel {} not compiled for {}: {reason}",
                    l.kernel, l.isa
                ));
                Artifact::KernelAsmFailed {
                    kernel: &l.kernel,
                    isa: l.isa,
                    reason,
                }
            }
        };
        write(d, what, &l.text)?;
    }
    Ok(warnings)
}

/// `compile-times.txt`: one line per pass run, `pipeline/pass  ms  changed`, then one line
/// per kernel, then the total.
fn compile_times(passes: &[PassRecord], kernels: Option<&KernelSet>) -> String {
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
    for k in kernels.map(|k| k.kernels.as_slice()).unwrap_or_default() {
        let ms = k.artifacts.compile_ms;
        total += ms;
        let _ = writeln!(out, "{:<48} {ms:>9.3} ms", format!("kernel/{}", k.name));
    }
    let mut scalars: Vec<_> = kernels.iter().flat_map(|k| k.scalar_functions()).collect();
    scalars.sort_by(|a, b| a.name.cmp(&b.name));
    for s in scalars {
        let ms = s.artifacts.compile_ms;
        total += ms;
        let _ = writeln!(out, "{:<48} {ms:>9.3} ms", format!("scalar/{}", s.name));
    }
    let _ = writeln!(out, "{:<48} {total:>9.3} ms", "total");
    out
}

/// Rewrites `DIR/report.html` (which [`compile`] wrote, unmeasured) once a run has
/// measured the thunks: `xlac run --dump-to` and `xlac bench --dump-to` call it after
/// executing. Through the dump writer, like every other file of the folder.
pub fn write_measured_report(
    dir: &std::path::Path,
    data: &crate::report::ReportData<'_>,
    options: &crate::report::ReportOptions,
) -> Result<(), CompileError> {
    let name = &data.executable.module.name;
    let mut d = DumpWriter::reopen(dir, name).map_err(CompileError::Dump)?;
    d.write(Artifact::Report, &crate::report::render(data, options))
        .map_err(CompileError::Dump)?;
    d.finish().map_err(CompileError::Dump)
}

/// Writes `module_0000.NAME.collectives.trace.json` and `.collectives.txt` into `dir`.
pub fn write_collectives_dump(
    dir: &std::path::Path,
    name: &str,
    trace: &crate::runtime::collectives::Trace,
) -> Result<(), CompileError> {
    let mut d = DumpWriter::reopen(dir, name).map_err(CompileError::Dump)?;
    d.write(Artifact::CollectivesTrace, &trace.chrome_json())
        .map_err(CompileError::Dump)?;
    d.write(Artifact::CollectivesTable, &trace.table())
        .map_err(CompileError::Dump)?;
    d.finish().map_err(CompileError::Dump)
}
