//! Programs for a grid of devices: per-device modules compiled once
//! ([`load_on_devices`]), replicated per device, and run on the in-process collectives
//! runtime ([`run_on_devices`]); what `xlac run --partitions` and `ifrt::LoadedExecutable`
//! stand on. With a dump folder, the collectives trace and the measured report go there.

use crate::fusion::FusionDecision;
use crate::ir::Module;
use crate::report::{ReportData, ReportOptions};

use super::{CompileError, CompileOptions, compile, write_collectives_dump, write_measured_report};

/// Which backend runs the devices of [`run_on_devices`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeviceBackend {
    /// Each device runs the compiled executable.
    Compiled,
    /// Each device runs the reference interpreter.
    Interpreter,
}

/// How [`run_on_devices`] runs.
#[derive(Clone, Debug)]
pub struct DeviceRunOptions {
    /// The backend.
    pub backend: DeviceBackend,
    /// The scheduler; `None`: deterministic up to 64 devices, threaded beyond.
    pub mode: Option<crate::runtime::collectives::CollectiveMode>,
    /// How the compiled backend compiles (a dump goes to `compile.dump_to`; with several
    /// distinct modules, only the first is dumped).
    pub compile: CompileOptions,
    /// Interpreter settings (seed of `rng`).
    pub eval: crate::eval::EvalOptions,
}

impl Default for DeviceRunOptions {
    fn default() -> DeviceRunOptions {
        DeviceRunOptions {
            backend: DeviceBackend::Compiled,
            mode: None,
            compile: CompileOptions::default(),
            eval: crate::eval::EvalOptions::default(),
        }
    }
}

/// Why a multi-device run failed.
#[derive(Debug, Clone, PartialEq)]
pub enum DeviceRunError {
    /// A module did not compile.
    Compile(CompileError),
    /// The run stopped: a deadlock report, a mismatch, a bad collective, a failed device.
    Collectives(crate::runtime::collectives::CollectiveError),
}

impl std::fmt::Display for DeviceRunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceRunError::Compile(e) => write!(f, "{e}"),
            DeviceRunError::Collectives(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DeviceRunError {}

impl crate::runtime::collectives::DeviceProgram for &mut crate::runtime::Executable {
    fn run(
        &mut self,
        collectives: &std::sync::Arc<dyn crate::runtime::collectives::Collectives>,
        device: crate::runtime::collectives::DeviceId,
        args: Vec<crate::runtime::Argument<'_>>,
    ) -> Result<crate::ir::Literal, String> {
        let binding = crate::runtime::context::DeviceBinding {
            collectives: collectives.clone(),
            device,
        };
        self.execute_arguments_on(args, binding)
            .map_err(|e| e.message)
    }
}

/// Runs already-partitioned per-device modules on `grid`: device `d` (flattened,
/// `replica * partitions + partition`) runs `modules[d]` (or `modules[0]` when one module
/// serves every device, as SPMD programs do) on `args[d]`, on its own thread, its
/// collectives meeting the others' in one in-process runtime. Returns every device's
/// result and the collectives trace; with `options.compile.dump_to`, also writes
/// `collectives.trace.json` and `collectives.txt` there.
pub fn run_on_devices(
    modules: &[Module],
    grid: &crate::runtime::collectives::DeviceGrid,
    args: &[Vec<crate::ir::Literal>],
    options: &DeviceRunOptions,
) -> Result<crate::runtime::collectives::devices::DeviceRun, DeviceRunError> {
    load_on_devices(modules, grid, options)?.execute(args)
}

/// Per-device programs compiled once for a grid and run any number of times
/// ([`load_on_devices`]): what `ifrt::LoadedExecutable` wraps. Each run gets a fresh
/// rendezvous; the arguments are borrowed, so the caller's per-device buffers stay where
/// they are between runs.
pub struct LoadedDevices {
    modules: Vec<Module>,
    grid: crate::runtime::collectives::DeviceGrid,
    options: DeviceRunOptions,
    /// One executable per device (compiled backend; empty for the interpreter).
    executables: Vec<crate::runtime::Executable>,
    /// With a dump on the compiled backend: device 0's compile record, so the report can
    /// be rewritten with the run's collectives and times.
    report: Option<ReportParts>,
    /// Custom calls neither backend runs on its own (host callbacks) go here first.
    handler: Option<std::sync::Arc<dyn crate::eval::CustomCallHandler>>,
}

/// What `report.html` shows besides the executable.
struct ReportParts {
    fusion_decisions: Vec<FusionDecision>,
    pass_steps: Vec<crate::report::passes::PassStep>,
    spmd_decisions: Option<crate::spmd::DecisionLog>,
}

/// Times the thunks of the program it wraps, on the thread that runs it (the profiler is
/// per thread), for the report of a multi-device run.
struct Profiled<'p> {
    program: Box<dyn crate::runtime::collectives::DeviceProgram + 'p>,
    times: std::sync::Arc<std::sync::Mutex<Option<crate::runtime::profile::ThunkTimes>>>,
}

impl crate::runtime::collectives::DeviceProgram for Profiled<'_> {
    fn run(
        &mut self,
        collectives: &std::sync::Arc<dyn crate::runtime::collectives::Collectives>,
        device: crate::runtime::collectives::DeviceId,
        args: Vec<crate::runtime::Argument<'_>>,
    ) -> Result<crate::ir::Literal, String> {
        let profiling = crate::runtime::profile::Profiling::start();
        let result = self.program.run(collectives, device, args);
        if let Ok(mut t) = self.times.lock() {
            *t = Some(profiling.finish());
        }
        result
    }
}

/// Compiles `modules` (one for every device, or one per device) for `grid`, once; see
/// [`run_on_devices`] for what a run does.
pub fn load_on_devices(
    modules: &[Module],
    grid: &crate::runtime::collectives::DeviceGrid,
    options: &DeviceRunOptions,
) -> Result<LoadedDevices, DeviceRunError> {
    use crate::runtime::collectives::CollectiveError;
    // The one place every multi-device entry (run, serve, the IFRT client) passes through
    // before anything is allocated per device.
    let count = crate::runtime::collectives::checked_device_count(
        u64::from(grid.replicas),
        u64::from(grid.partitions),
    )
    .map_err(|e| DeviceRunError::Collectives(CollectiveError::BadOp(e.to_string())))?;
    if modules.is_empty() || (modules.len() != 1 && modules.len() != count) {
        return Err(DeviceRunError::Collectives(CollectiveError::BadOp(
            format!(
                "{} modules for {count} devices: give one, or one per device",
                modules.len()
            ),
        )));
    }
    let mut executables: Vec<crate::runtime::Executable> = Vec::new();
    let mut report = None;
    if options.backend == DeviceBackend::Compiled {
        let mut compiled: Vec<crate::runtime::Executable> = Vec::new();
        for (i, m) in modules.iter().enumerate() {
            let mut o = options.compile.clone();
            if i > 0 {
                o.dump_to = None;
            }
            let c = compile(m.clone(), &o).map_err(DeviceRunError::Compile)?;
            if o.dump_to.is_some() {
                report = Some(ReportParts {
                    fusion_decisions: c.fusion_decisions,
                    pass_steps: c.pass_steps,
                    spmd_decisions: c.spmd_decisions,
                });
            }
            compiled.push(c.executable);
        }
        if compiled.len() == 1 && count > 1 {
            let first = compiled.remove(0);
            for _ in 1..count {
                executables.push(
                    first
                        .replicate()
                        .map_err(|e| DeviceRunError::Compile(CompileError::Runtime(e)))?,
                );
            }
            executables.insert(0, first);
        } else {
            executables = compiled;
        }
    }
    let mut loaded = LoadedDevices {
        modules: modules.to_vec(),
        grid: grid.clone(),
        options: options.clone(),
        executables,
        report,
        handler: None,
    };
    // The run limits in `options.eval` hold on both backends.
    loaded.set_limits(options.eval.limits.clone());
    Ok(loaded)
}

impl LoadedDevices {
    /// Puts `limits` (timeout, while-iteration cap, cancellation) in force for every later
    /// run, on either backend. A timeout counts from the start of each run.
    pub fn set_limits(&mut self, limits: crate::eval::limits::RunLimits) {
        for e in &mut self.executables {
            e.limits = limits.clone();
        }
        self.options.eval.limits = limits;
    }

    /// Puts `handler` in front of the built-in custom calls of every device's program, on
    /// either backend, for every later run (`None` removes it). A host callback runs on the
    /// thread of the device that calls it.
    pub fn set_custom_call_handler(
        &mut self,
        handler: Option<std::sync::Arc<dyn crate::eval::CustomCallHandler>>,
    ) {
        for e in &mut self.executables {
            e.custom_call_handler = handler.clone();
        }
        self.handler = handler;
    }

    /// Starts the timeout's clock of every device's program now.
    fn start_clock(&mut self) {
        let now = Some(std::time::Instant::now());
        for e in &mut self.executables {
            e.limits.start = now;
        }
        self.options.eval.limits.start = now;
    }

    /// The grid the programs run on.
    pub fn grid(&self) -> &crate::runtime::collectives::DeviceGrid {
        &self.grid
    }

    /// The module device `d` runs (after the CPU pipeline on the compiled backend).
    pub fn module(&self, d: usize) -> &Module {
        match self.executables.get(d) {
            Some(e) => &e.module,
            None => &self.modules[if self.modules.len() == 1 { 0 } else { d }],
        }
    }

    /// Runs every device on its arguments (`args[d]`: references to buffers the caller
    /// keeps, or [`crate::runtime::Argument`]s some of which are donated), as
    /// [`run_on_devices`] does, on a fresh in-process runtime.
    pub fn execute<'a, R: crate::runtime::collectives::devices::DeviceArguments<'a>>(
        &mut self,
        args: impl IntoIterator<Item = R>,
    ) -> Result<crate::runtime::collectives::devices::DeviceRun, DeviceRunError> {
        use crate::runtime::collectives::{CollectiveMode, InProcess};
        let count = self.grid.count();
        let mode = self
            .options
            .mode
            .unwrap_or_else(|| CollectiveMode::default_for(count));
        let collectives: std::sync::Arc<dyn crate::runtime::collectives::Collectives> =
            std::sync::Arc::new(InProcess::new(self.grid.clone(), mode));
        let all: Vec<usize> = (0..count).collect();
        self.start_clock();
        let timed = self.report.is_some();
        let mut programs = self.programs(&all);
        // With a report to write, device 0's thunks are timed on this run.
        let times = std::sync::Arc::new(std::sync::Mutex::new(None));
        if timed && !programs.is_empty() {
            let first = programs.remove(0);
            programs.insert(
                0,
                Box::new(Profiled {
                    program: first,
                    times: times.clone(),
                }),
            );
        }
        let outcome =
            crate::runtime::collectives::run_devices(&mut programs, args, collectives.clone());
        drop(programs);
        let trace = collectives.trace();
        self.dump_trace(&trace)?;
        let times = times.lock().ok().and_then(|mut t| t.take());
        self.dump_report(&trace, times.as_ref())?;
        outcome.map_err(DeviceRunError::Collectives)
    }

    /// Runs only `device`, on `args`, as one member of `collectives` whose other devices run
    /// elsewhere (the other ranks of an MPI job). Returns its result and its trace.
    pub fn execute_device<'a>(
        &mut self,
        device: usize,
        args: impl crate::runtime::collectives::devices::DeviceArguments<'a>,
        collectives: std::sync::Arc<dyn crate::runtime::collectives::Collectives>,
    ) -> Result<(crate::ir::Literal, crate::runtime::collectives::Trace), DeviceRunError> {
        self.start_clock();
        let mut programs = self.programs(&[device]);
        let Some(program) = programs.first_mut() else {
            return Err(DeviceRunError::Collectives(
                crate::runtime::collectives::CollectiveError::BadOp(format!(
                    "device {device} is outside the grid"
                )),
            ));
        };
        let outcome = crate::runtime::collectives::devices::run_device(
            &mut **program,
            device,
            args,
            collectives.clone(),
        );
        drop(programs);
        self.dump_trace(&collectives.trace())?;
        outcome.map_err(DeviceRunError::Collectives)
    }

    /// Runs only `devices` (ascending), `args[i]` for `devices[i]`, as members of
    /// `collectives` whose other devices run elsewhere (the other processes of an MPI job),
    /// each on its own thread. Returns their results in that order, and the trace.
    pub fn execute_devices<'a, R: crate::runtime::collectives::devices::DeviceArguments<'a>>(
        &mut self,
        devices: &[usize],
        args: impl IntoIterator<Item = R>,
        collectives: std::sync::Arc<dyn crate::runtime::collectives::Collectives>,
    ) -> Result<(Vec<crate::ir::Literal>, crate::runtime::collectives::Trace), DeviceRunError> {
        use crate::runtime::collectives::CollectiveError;
        if devices.windows(2).any(|w| w[0] >= w[1])
            || devices.iter().any(|&d| d >= self.grid.count())
        {
            return Err(DeviceRunError::Collectives(CollectiveError::BadOp(
                format!("devices {devices:?}: give distinct devices of the grid, ascending"),
            )));
        }
        self.start_clock();
        let mut programs = self.programs(devices);
        let outcome = crate::runtime::collectives::devices::run_local_devices(
            &mut programs,
            devices,
            args,
            collectives.clone(),
        );
        drop(programs);
        self.dump_trace(&collectives.trace())?;
        outcome.map_err(DeviceRunError::Collectives)
    }

    /// The programs of `devices`: their compiled executables, or the interpreter over
    /// their modules.
    fn programs(
        &mut self,
        devices: &[usize],
    ) -> Vec<Box<dyn crate::runtime::collectives::DeviceProgram + '_>> {
        use crate::runtime::collectives::DeviceProgram;
        match self.options.backend {
            DeviceBackend::Compiled => self
                .executables
                .iter_mut()
                .enumerate()
                .filter(|(d, _)| devices.contains(d))
                .map(|(_, e)| Box::new(e) as Box<dyn DeviceProgram + '_>)
                .collect(),
            DeviceBackend::Interpreter => {
                let queues = std::sync::Arc::new(crate::eval::ProcessGrid::new(
                    self.grid.replicas,
                    self.grid.partitions,
                ));
                let modules = &self.modules;
                devices
                    .iter()
                    .filter(|&&d| d < self.grid.count())
                    .map(|&d| {
                        let module = if modules.len() == 1 {
                            &modules[0]
                        } else {
                            &modules[d]
                        };
                        Box::new(
                            crate::runtime::collectives::interpreter::InterpretedDevice {
                                module,
                                computation: module.entry,
                                options: self.options.eval.clone(),
                                handler: self.handler.clone(),
                                queues: queues.clone(),
                            },
                        ) as Box<dyn DeviceProgram + '_>
                    })
                    .collect()
            }
        }
    }

    /// With `dump_to` on the compiled backend, `report.html` again: device 0's executable
    /// with the run's collectives and, when they were timed, its thunk times.
    fn dump_report(
        &self,
        trace: &crate::runtime::collectives::Trace,
        times: Option<&crate::runtime::profile::ThunkTimes>,
    ) -> Result<(), DeviceRunError> {
        let (Some(dir), Some(parts), Some(executable)) = (
            &self.options.compile.dump_to,
            &self.report,
            self.executables.first(),
        ) else {
            return Ok(());
        };
        let data = ReportData {
            executable,
            fusion_decisions: &parts.fusion_decisions,
            pass_steps: &parts.pass_steps,
            spmd: parts.spmd_decisions.as_ref(),
            collectives: Some(trace),
        };
        let options = ReportOptions {
            thunk_ms: times.map(|t| t.mean_ms(1)),
            runs: 1,
            cold: true,
            triad_gbs: None,
            devices: Some(self.grid.count()),
        };
        write_measured_report(dir, &data, &options).map_err(DeviceRunError::Compile)
    }

    /// With `dump_to`, the collectives trace and table into the dump folder.
    fn dump_trace(&self, trace: &crate::runtime::collectives::Trace) -> Result<(), DeviceRunError> {
        if let Some(dir) = &self.options.compile.dump_to {
            write_collectives_dump(dir, &self.modules[0].name, trace)
                .map_err(DeviceRunError::Compile)?;
        }
        Ok(())
    }
}
