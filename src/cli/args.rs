//! The command line's grammar: the clap definitions of every subcommand and shared flag
//! group, with the value parsers that check a flag's text. Apart from `mod.rs` because
//! this is what the command line says, and `mod.rs` is what the binary does with it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::{Failure, devices, distributed, serve};

/// `xlac`: a small, real CPU backend for XLA programs.
#[derive(Parser, Debug, Clone)]
#[command(name = "xlac", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// Run a model on inputs and print (or save) its result.
    Run(RunArgs),
    /// Compile a model (no execution) and write every stage to a dump folder.
    Compile(CompileArgs),
    /// Time the compiled model: compile once, then steady-state runs.
    Bench(BenchArgs),
    /// Run self-checking StableHLO test files (`check.*` ops, `// -----` cases).
    Check(CheckArgs),
    /// Compile a model and follow one instruction through passes, fusion, buffers and kernels.
    Explain(ExplainArgs),
    /// Put xlac's decisions beside XLA's own dump folder (--xla_dump_to).
    DiffDump(DiffDumpArgs),
    /// Print a model (HLO text, StableHLO text or a StableHLO portable artifact) as
    /// StableHLO text or HLO text.
    Convert(ConvertArgs),
    /// List every device's collectives and flag sequences that can diverge, before running.
    CheckCollectives(CheckCollectivesArgs),
    /// Be a worker of a single controller: hold shards, run the programs it is sent
    /// (one device per worker; several workers under `mpirun`).
    Serve(serve::ServeArgs),
}

/// What `xlac convert` prints.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConvertTo {
    /// StableHLO MLIR text.
    Mlir,
    /// HLO text, as ingested (before any pass).
    Hlo,
}

/// `xlac convert`.
#[derive(Args, Debug, Clone)]
pub struct ConvertArgs {
    /// HLO text, StableHLO MLIR, or a StableHLO portable artifact (MLIR bytecode).
    pub model: PathBuf,
    /// The output format.
    #[arg(long, value_enum)]
    pub to: ConvertTo,
}

/// How devices are scheduled when a module runs on several (`--collectives`).
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectivesFlag {
    /// One device at a time; a deadlock is reported the moment every live device waits
    /// (the default up to 64 devices).
    Deterministic,
    /// Every device on its own thread at once; a wait past --collectives-deadline stops the
    /// run with the same report.
    Threaded,
}

/// `xlac check-collectives`.
#[derive(Args, Debug, Clone)]
pub struct CheckCollectivesArgs {
    /// The model (a per-device module, e.g. XLA's optimized SPMD module).
    pub model: std::path::PathBuf,
    /// Number of partitions (XLA's num_partitions).
    #[arg(long, value_name = "N")]
    pub partitions: u32,
    /// Number of replicas (default 1).
    #[arg(long, value_name = "R")]
    pub replicas: Option<u32>,
}

/// Which engine runs the module.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Native code generated with Cranelift, run by the runtime's thunks (the default).
    Compiled,
    /// The reference interpreter.
    Interpreter,
}

/// What `--compare-to` checks the result against.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// The reference interpreter.
    Interpreter,
}

/// `xlac run`.
#[derive(Args, Debug, Clone)]
#[command(group(clap::ArgGroup::new("reference").args(["compare_to", "expected"]).multiple(true)))]
pub struct RunArgs {
    /// HLO text (`HloModule ...`), StableHLO MLIR (`module` / `func.func`) or a StableHLO
    /// portable artifact (MLIR bytecode), told apart by content.
    pub model: PathBuf,
    /// One .npz holding the entry parameters in order, or one .npy per parameter (repeat the flag).
    /// Parameters without an input get random values from --seed.
    #[arg(long = "input", value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Write the result's array leaves (tuples flattened depth-first) as arr_0, arr_1, ...
    #[arg(long, value_name = "OUT.npz")]
    pub output: Option<PathBuf>,
    /// Write the module at each stage into this folder (XLA's file names).
    #[arg(long, value_name = "DIR")]
    pub dump_to: Option<PathBuf>,
    /// Which engine runs the module.
    #[arg(long, value_enum, default_value_t = Backend::Compiled)]
    pub backend: Backend,
    /// Seed of the random inputs and of the `rng` op (default 0). Given explicitly, it also
    /// allows an `--input` archive that holds no arrays.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Print nothing but errors.
    #[arg(long)]
    pub quiet: bool,
    /// Threads of the kernels' pool (default: every core, or $RAYON_NUM_THREADS). Results
    /// do not depend on it: every kernel splits its work the same way whatever the count.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Also run this reference on the module as loaded and report, per output, the largest
    /// absolute and relative error (an element fails only if both bounds are exceeded).
    #[arg(long, value_enum, value_name = "REFERENCE")]
    pub compare_to: Option<Reference>,
    /// Pipeline settings.
    #[command(flatten)]
    pub passes: PassFlags,
    /// Resource limits.
    #[command(flatten)]
    pub limits: LimitFlags,
    /// Run the interpreter before the pipeline and after each pass that changed the module,
    /// and name the first pass whose outputs differ (runs the interpreter backend).
    #[arg(long)]
    pub bisect: bool,
    /// Relative tolerance of --compare-to and --expected (default 1e-3, as run_hlo_module).
    #[arg(long, value_name = "R", requires = "reference")]
    pub rtol: Option<f64>,
    /// Absolute tolerance of --compare-to and --expected (default 1e-3, as run_hlo_module).
    #[arg(long, value_name = "A", requires = "reference")]
    pub atol: Option<f64>,
    /// The machine's STREAM triad bandwidth in GB/s: report.html shows achieved bandwidth
    /// as a fraction of it (needs --dump-to).
    #[arg(long, value_name = "GBS", requires = "dump_to")]
    pub triad_gbs: Option<f64>,
    /// Warm runs, after the real one, whose mean thunk times report.html shows (default 5;
    /// 0 times the real run itself, cold, and the page says so). Needs --dump-to.
    #[arg(long, value_name = "N", requires = "dump_to")]
    pub profile_runs: Option<u64>,
    /// Compare the result with these outputs (an .npz of the flattened result leaves, as
    /// --output writes and scripts/export_jax.py's expected.npz holds), with the tolerance
    /// rules of --compare-to (--rtol, --atol). Exit 1 on a mismatch.
    #[arg(long, value_name = "FILE.npz")]
    pub expected: Option<PathBuf>,
    /// Multi-device flags.
    #[command(flatten)]
    pub devices: devices::DeviceFlags,
    /// How devices are scheduled on a multi-device run (default: deterministic up to 64
    /// devices, threaded beyond).
    #[arg(long, value_enum, value_name = "MODE")]
    pub collectives: Option<CollectivesFlag>,
    /// How long one device may wait in one collective under --collectives threaded
    /// (seconds, default 10).
    #[arg(long, value_name = "SECONDS")]
    pub collectives_deadline: Option<f64>,
    /// Run as one rank of a multi-process job: `mpi` runs one device per MPI rank (start
    /// it under `mpirun -np N`, N = the device count; needs a build with `--features mpi`).
    #[arg(long, value_enum, value_name = "ENGINE")]
    pub distributed: Option<distributed::DistributedFlag>,
    /// With --distributed: before every collective the ranks compare where they are (op,
    /// group, sequence number), so a misordered program stops with the per-device report
    /// before any data moves.
    #[arg(long, requires = "distributed")]
    pub check_collective_order: bool,
}

impl RunArgs {
    /// `--distributed` and its settings (`--collectives-deadline` bounds every wait).
    pub fn distributed(&self) -> Result<Option<distributed::Distributed>, Failure> {
        let Some(engine) = self.distributed else {
            return Ok(None);
        };
        if self.collectives.is_some() {
            return Err(Failure::usage(
                "--collectives schedules devices of one process; with --distributed each rank runs one device",
            ));
        }
        let deadline = match self.collective_mode()? {
            Some(crate::runtime::collectives::CollectiveMode::Threaded { deadline }) => deadline,
            _ => crate::runtime::collectives::CollectiveMode::DEFAULT_DEADLINE,
        };
        Ok(Some(distributed::Distributed {
            engine,
            check_order: self.check_collective_order,
            deadline,
        }))
    }

    /// The scheduler `--collectives` and `--collectives-deadline` ask for (`None`: the
    /// default for the device count).
    pub fn collective_mode(
        &self,
    ) -> Result<Option<crate::runtime::collectives::CollectiveMode>, Failure> {
        use crate::runtime::collectives::CollectiveMode;
        let deadline = match self.collectives_deadline {
            None => CollectiveMode::DEFAULT_DEADLINE,
            Some(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => {
                std::time::Duration::from_secs_f64(s)
            }
            Some(s) => {
                return Err(Failure::usage(format!(
                    "--collectives-deadline {s}: give seconds between 0 and 86400"
                )));
            }
        };
        Ok(match self.collectives {
            None if self.collectives_deadline.is_some() => {
                Some(CollectiveMode::Threaded { deadline })
            }
            None => None,
            Some(CollectivesFlag::Deterministic) => Some(CollectiveMode::Deterministic),
            Some(CollectivesFlag::Threaded) => Some(CollectiveMode::Threaded { deadline }),
        })
    }
}

/// `xlac compile`.
#[derive(Args, Debug, Clone)]
pub struct CompileArgs {
    /// The model (HLO text or StableHLO MLIR).
    pub model: PathBuf,
    /// The dump folder.
    #[arg(long, value_name = "DIR")]
    pub dump_to: PathBuf,
    /// Also compile every kernel for these instruction sets and write KERNEL.ISA.asm beside
    /// the host's, comma-separated: x86_64, aarch64, riscv64 (rv64gc, scalar), riscv64v
    /// (with the V extension), s390x; `host` or `all`. Listings only: nothing runs.
    #[arg(long, value_name = "ISA", value_delimiter = ',')]
    pub isa: Vec<String>,
    /// Pipeline settings.
    #[command(flatten)]
    pub passes: PassFlags,
    /// Multi-device flags.
    #[command(flatten)]
    pub devices: devices::DeviceFlags,
    /// Resource limits.
    #[command(flatten)]
    pub limits: LimitFlags,
}

/// Resource limits, shared by `run`, `compile` and `bench`.
#[derive(Args, Debug, Clone, Default)]
pub struct LimitFlags {
    /// The largest array any instruction, input or buffer may have, in bytes (default
    /// 2^40 = 1 TiB; at most 2^62). A larger shape is a verifier error before anything is
    /// allocated or compiled.
    #[arg(long, value_name = "B")]
    pub max_array_bytes: Option<u64>,
    /// Stop the run (exit 1) when a while loop is still running this many seconds after
    /// execution started.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Stop the run (exit 1) when any one while loop reaches this many iterations (off by
    /// default: a loop may legitimately run long).
    #[arg(long, value_name = "N")]
    pub max_while_iterations: Option<u64>,
}

impl LimitFlags {
    /// Puts the limits in force for this process.
    pub fn apply(&self) {
        crate::ir::size::set_max_array_bytes(
            self.max_array_bytes
                .unwrap_or(crate::ir::size::DEFAULT_MAX_ARRAY_BYTES),
        );
    }

    /// The limits of one run, with the clock starting now.
    pub fn run_limits(&self) -> crate::eval::limits::RunLimits {
        crate::eval::limits::RunLimits::starting_now(
            self.timeout.map(std::time::Duration::from_secs_f64),
            self.max_while_iterations,
        )
    }
}

/// The most threads `--threads` accepts.
pub const MAX_THREADS: usize = 1024;

/// A thread count: a whole number from 1 to [`MAX_THREADS`].
fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        Ok(_) => Err(format!(
            "'{s}' is not a thread count: give a whole number from 1 to {MAX_THREADS}"
        )),
        Err(_) => Err(format!(
            "'{s}' is not a thread count (a whole number, at least 1)"
        )),
    }
}

/// A number of seconds: finite, not negative.
fn parse_seconds(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0 && *x < 1e9)
        .ok_or_else(|| format!("'{s}' is not a number of seconds"))
}

/// Flags of the pass pipeline, shared by `run` and `compile`.
#[derive(Args, Debug, Clone, Default)]
pub struct PassFlags {
    /// Skip these passes or pipelines, by name (comma-separated), like XLA's
    /// --xla_disable_hlo_passes.
    #[arg(long, value_name = "PASS,...", value_delimiter = ',')]
    pub disable_passes: Vec<String>,
    /// Only write per-pass dump files for passes whose name matches this regex, like XLA's
    /// --xla_dump_hlo_pass_re (needs --dump-to).
    #[arg(long, value_name = "REGEX", requires = "dump_to")]
    pub dump_pass_re: Option<String>,
    /// Force an entry parameter's layout, minor-to-major as HLO prints it
    /// (`--layout param0={0,1}` is column-major); repeatable.
    #[arg(long = "layout", value_name = "paramN={...}")]
    pub layouts: Vec<String>,
    /// Race the choices no rule can rank (kernel thread split, dot threading, convolution
    /// algorithm) on the real shapes, keep the winners and cache them on disk
    /// ($XLAC_AUTOTUNE_CACHE or ~/.cache/xlac/autotune.json); without it, cached winners
    /// are used when present. With --dump-to, each race is in KERNEL.autotune.txt.
    #[arg(long)]
    pub autotune: bool,
    /// Keep every exp and tanh as inline Cranelift code; by default a row kernel calls the
    /// native AVX-512/AVX2 block routines for them when the host has them (same bits).
    #[arg(long)]
    pub inline_math: bool,
    /// Debugging: give every buffer its own memory, placed against a protected page, so a
    /// kernel that reads or writes past a buffer faults at once instead of corrupting a
    /// neighbour. Slower; results are the same.
    #[arg(long)]
    pub guard_buffers: bool,
}

/// `xlac explain`.
#[derive(Args, Debug, Clone)]
pub struct ExplainArgs {
    /// HLO text or StableHLO MLIR.
    pub model: PathBuf,
    /// The instruction: its HLO name (`tanh.1`), an `op_name` metadata substring
    /// (`jit(f)/tanh`), or a source location from metadata (`model.py:42`).
    #[arg(value_name = "INSTR")]
    pub instruction: String,
    /// Also write the dump folder of this compile (the story names its files).
    #[arg(long, value_name = "DIR")]
    pub dump_to: Option<PathBuf>,
    /// Pipeline flags, as for `xlac compile`.
    #[command(flatten)]
    pub passes: PassFlags,
}

/// `xlac bench`.
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// The model (HLO text or StableHLO MLIR).
    pub model: PathBuf,
    /// Inputs, as for `xlac run`.
    #[arg(long = "input", value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Timed iterations (default 30, after untimed warm-up runs: at least 3, for at least 0.3 s).
    #[arg(long, value_name = "N")]
    pub iters: Option<u64>,
    /// Print one JSON line.
    #[arg(long)]
    pub json: bool,
    /// Threads of the kernels' pool (default: every core, or $RAYON_NUM_THREADS). Results
    /// do not depend on it: every kernel splits its work the same way whatever the count.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Write the dump folder; its report.html then shows each thunk's mean time over the
    /// timed iterations.
    #[arg(long, value_name = "DIR")]
    pub dump_to: Option<PathBuf>,
    /// The machine's STREAM triad bandwidth in GB/s, for report.html (needs --dump-to).
    #[arg(
        long,
        value_name = "GBS",
        requires = "dump_to",
        conflicts_with = "triad"
    )]
    pub triad_gbs: Option<f64>,
    /// Measure a STREAM triad in process (one thread, then every thread), print it, and use
    /// the all-thread figure for report.html's `% of triad`.
    #[arg(long)]
    pub triad: bool,
    /// Skip these passes or pipelines (see `xlac run --disable-passes`); `fusion` leaves one
    /// loop kernel per op, as XLA's --xla_disable_hlo_passes=fusion does.
    #[arg(long, value_name = "PASS,...", value_delimiter = ',')]
    pub disable_passes: Vec<String>,
    /// Race tunable thunks before timing (see `xlac run --autotune`).
    #[arg(long)]
    pub autotune: bool,
    /// Keep every exp and tanh inline (see `xlac run --inline-math`).
    #[arg(long)]
    pub inline_math: bool,
    /// Resource limits.
    #[command(flatten)]
    pub limits: LimitFlags,
}

/// `xlac diff-dump`.
#[derive(Args, Debug, Clone)]
pub struct DiffDumpArgs {
    /// The folder XLA wrote with --xla_dump_to (before_optimizations, pass files,
    /// cpu_after_optimizations, buffer-assignment).
    #[arg(value_name = "XLA_DUMP_DIR")]
    pub xla_dump: PathBuf,
    /// A model to compile with xlac (default: XLA's before_optimizations.txt), or a dump
    /// folder xlac wrote (read, not compiled).
    #[arg(long, value_name = "MODEL|XLAC_DUMP_DIR")]
    pub against: Option<PathBuf>,
    /// Write xlac's dump here, with diff-dump.txt and a section in report.html (default:
    /// a temporary folder, removed afterwards).
    #[arg(long, value_name = "DIR")]
    pub dump_to: Option<PathBuf>,
    /// The module of XLA's folder to compare, by NAME, when it holds several (default: the
    /// largest).
    #[arg(long, value_name = "NAME")]
    pub module: Option<String>,
    /// Also run xlac's executable warm and list each kernel's mean time.
    #[arg(long)]
    pub measure: bool,
    /// Timed runs of --measure (default 10, after one untimed run).
    #[arg(long, value_name = "N", requires = "measure")]
    pub iters: Option<u64>,
    /// Inputs of --measure, as for `xlac run` (default: random from seed 0).
    #[arg(long = "input", value_name = "FILE", requires = "measure")]
    pub inputs: Vec<PathBuf>,
    /// Pipeline flags, as for `xlac compile`.
    #[command(flatten)]
    pub passes: PassFlags,
}

/// `xlac check`.
#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// StableHLO test files with `check.*` ops.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Also write every `interpreter.probe` value to `DIR/<probe_id>_<n>.npy`, listed in
    /// `DIR/index.csv`.
    #[arg(long, value_name = "DIR")]
    pub probe_output_dir: Option<PathBuf>,
    /// Run the cases on this backend (the `check.*` ops always run on the interpreter).
    #[arg(long, value_enum, default_value_t = Backend::Interpreter)]
    pub backend: Backend,
    /// With `--backend compiled`: every buffer against a protected page (see `xlac run
    /// --guard-buffers`).
    #[arg(long)]
    pub guard_buffers: bool,
    /// How long one case may run before it is an ERROR (default 60).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
}
