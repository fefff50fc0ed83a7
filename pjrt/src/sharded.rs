//! Programs over several devices: a compile with `num_partitions` / `num_replicas` above one
//! goes through xlac's SPMD pipeline (sharding propagation, then the partitioner) into one
//! per-device program, loaded on every device of the grid; an Execute runs every device on
//! its own argument list through the in-process collectives runtime.
//!
//! The parameter and result shardings the partitioner decided are what JAX reads back
//! (through the optimized program's `spmd_parameters_shardings` / `spmd_output_sharding`),
//! so it places its arrays the way the program takes them.
//!
//! In a `jax.distributed` job a program's devices may belong to several processes; each
//! process then runs only its own devices. A program without collectives needs nothing
//! more (every device computes alone); one with collectives runs this process's devices on
//! their threads, the collectives across processes over MPI ([`crate::mpi_job`]).

use std::sync::{Arc, Mutex};

use xlac::compiler::{
    CompileOptions as XlacCompileOptions, DeviceBackend, DeviceRunOptions, LoadedDevices,
    load_on_devices,
};
use xlac::eval::CustomCallHandler;
use xlac::ir::sharding::HloSharding;
use xlac::ir::{ArrayShape, Literal, Module, Shape};
use xlac::runtime::Argument;
use xlac::runtime::collectives::{
    CollectiveKind, CollectiveMode, Collectives, DeviceGrid, DeviceId, InProcess,
};
use xlac::spmd::SpmdOptions;
use xlac::spmd::run::{parameter_shardings, result_shardings};

use crate::client::{Client, Mode};
use crate::error::{Code, Error, Result};

/// The per-device programs, behind a mutex: one run at a time.
struct SendDevices(LoadedDevices);

// SAFETY: the loaded devices own their modules and JIT-compiled code; none of it is tied to
// the thread that built it, and the mutex gives one thread at a time access.
unsafe impl Send for SendDevices {}

/// A program compiled for a grid of devices.
pub struct Sharded {
    devices: Mutex<SendDevices>,
    /// Per-device entry parameter shapes.
    pub parameters: Vec<Shape>,
    /// The entry parameters' shardings, as the partitioner left them.
    pub parameter_shardings: Vec<HloSharding>,
    /// The result's sharding per leaf, tokens included.
    pub result_shardings: Vec<HloSharding>,
    /// The per-device result leaves, tokens as `None` (an ordered effect's token).
    pub outputs: Vec<Option<ArrayShape>>,
    /// Device 0's module after the whole pipeline (what `compiled.as_text()` shows).
    pub module: Module,
    /// In a program over several processes: the devices (positions in the program) this
    /// process runs, in execution order; `None`: it runs every device.
    own: Option<Vec<DeviceId>>,
    /// In a program with collectives over several processes: this process's devices and
    /// collectives.
    #[cfg(feature = "mpi")]
    job: Option<crate::mpi_job::JobPart>,
}

/// Partitions `module` for `replicas x partitions` devices and loads the per-device program
/// on each. `options` carries the dump folder, which gains `spmd-decisions.txt` here and the
/// collectives trace at each run.
pub fn compile(
    client: &Client,
    module: Module,
    replicas: usize,
    partitions: usize,
    options: XlacCompileOptions,
    spans: Option<(Vec<u32>, Vec<i64>)>,
) -> Result<Sharded> {
    // Over several processes: each device's process, and the devices' ids.
    let (owners, ids) = match spans {
        Some((o, i)) => (Some(o), i),
        None => (None, Vec::new()),
    };
    let name = module.name.clone();
    let failed = |e: String| Error::invalid(format!("error: {name}: {e}"));
    let spmd = SpmdOptions {
        num_partitions: partitions,
        num_replicas: replicas,
    };
    let needs_spmd = partitions > 1 || xlac::spmd::needs_partitioning(&module);
    // The entry's shardings and per-device shapes, from the partitioned module before the
    // CPU pipeline rewrites its root.
    let partitioned = if needs_spmd {
        xlac::spmd::partition(module.clone(), spmd).map_err(failed)?
    } else {
        module.clone()
    };
    let entry = partitioned.entry_computation();
    let parameters: Vec<Shape> = entry
        .parameters()
        .iter()
        .map(|&p| entry.instrs[p].shape.clone())
        .collect();
    let mut outputs = Vec::new();
    crate::executable::result_leaves(partitioned.result_shape(), &mut outputs);
    let mut compile = options;
    compile.spmd = needs_spmd.then_some(spmd);
    let backend = match client.options.mode {
        Mode::Compiled => DeviceBackend::Compiled,
        Mode::Interpreter => DeviceBackend::Interpreter,
    };
    let program = match backend {
        DeviceBackend::Compiled => module,
        DeviceBackend::Interpreter => {
            xlac::compiler::optimize(module, &compile)
                .map_err(|e| failed(e.to_string()))?
                .module
        }
    };
    let mut grid = DeviceGrid::new(replicas as u32, partitions as u32);
    // Over several processes, a device's physical id is its process (its MPI rank).
    grid.device_assignment = owners.clone();
    let run = DeviceRunOptions {
        backend,
        mode: None,
        compile,
        eval: xlac::eval::EvalOptions::default(),
    };
    let devices =
        client.install(|| load_on_devices(&[program], &grid, &run).map_err(|e| e.to_string()));
    let devices = devices.map_err(failed)?;
    let module = devices.module(0).clone();
    let own = owners.as_ref().map(|o| {
        (0..o.len())
            .filter(|&d| o[d] as usize == client.process_index)
            .collect::<Vec<_>>()
    });
    // Collectives cross processes when the program's devices belong to more than one (a
    // program on one other process's devices runs there alone, in process).
    let processes = owners.as_ref().map_or(1, |o| {
        let mut p = o.clone();
        p.sort_unstable();
        p.dedup();
        p.len()
    });
    let crosses = processes > 1 && has_collectives(devices.module(0));
    if let (true, Some(o)) = (crosses, &owners) {
        crate::mpi_job::check_job_program(client, &ids, o)?;
    }
    #[cfg(feature = "mpi")]
    let job = if crosses {
        Some(crate::mpi_job::join(
            &devices,
            &grid,
            client.options.collectives_timeout,
        )?)
    } else {
        None
    };
    #[cfg(not(feature = "mpi"))]
    if crosses {
        return Err(Error::new(
            Code::Internal,
            "a program with collectives over several processes reached a plugin without MPI",
        ));
    }
    Ok(Sharded {
        own,
        #[cfg(feature = "mpi")]
        job,
        devices: Mutex::new(SendDevices(devices)),
        parameter_shardings: parameter_shardings(&partitioned),
        result_shardings: with_tokens(result_shardings(&partitioned), &outputs),
        parameters,
        outputs,
        module,
    })
}

impl Sharded {
    /// Runs every device on its arguments (`args[d]`, in execution order) with this run's
    /// host callbacks (`host`) and returns each device's flattened result leaves. A
    /// collective mismatch, a stall or a failed device is an error naming the collectives
    /// and devices; the programs stay loaded for the next run.
    pub fn execute(
        &self,
        client: &Client,
        name: &str,
        args: Vec<Vec<Argument<'_>>>,
        host: Option<Arc<dyn CustomCallHandler>>,
    ) -> Result<Vec<Vec<Literal>>> {
        let mut guard = self.devices.lock().unwrap_or_else(|e| e.into_inner());
        let devices: &mut SendDevices = &mut guard;
        devices.0.set_custom_call_handler(host);
        let run = self.run(client, name, &mut devices.0, args);
        // The callables belong to this run only.
        devices.0.set_custom_call_handler(None);
        run
    }

    /// [`Sharded::execute`] once the host callbacks are in place: this process's part over
    /// MPI, this process's devices alone, or every device in process.
    fn run(
        &self,
        client: &Client,
        name: &str,
        devices: &mut LoadedDevices,
        args: Vec<Vec<Argument<'_>>>,
    ) -> Result<Vec<Vec<Literal>>> {
        #[cfg(feature = "mpi")]
        if let Some(job) = &self.job {
            if args.len() != job.devices.len() {
                return Err(Error::invalid(format!(
                    "error: {name}: {} argument lists; this process runs {} devices of the program",
                    args.len(),
                    job.devices.len()
                )));
            }
            let run =
                client.install(|| devices.execute_devices(&job.devices, args, job.collectives()));
            let (results, _trace) = run.map_err(|e| {
                use xlac::compiler::DeviceRunError::Collectives;
                use xlac::runtime::collectives::CollectiveError::ProcessesGone;
                // A process of the job is gone: not the caller's program or arguments.
                let code = match &e {
                    Collectives(ProcessesGone(_)) => Code::Unavailable,
                    _ => Code::InvalidArgument,
                };
                Error::new(code, format!("error: {name}: {e}"))
            })?;
            return results.into_iter().map(|r| self.leaves(name, r)).collect();
        }
        if let Some(own) = &self.own {
            return self.run_own(client, name, devices, own, args);
        }
        let run = client.install(|| devices.execute(args));
        let run = run.map_err(|e| Error::invalid(format!("error: {name}: {e}")))?;
        run.results
            .into_iter()
            .map(|r| self.leaves(name, r))
            .collect()
    }

    /// Runs this process's devices `own` (`args[i]` for `own[i]`) of a program without
    /// collectives, one after another: each computes alone.
    fn run_own(
        &self,
        client: &Client,
        name: &str,
        devices: &mut LoadedDevices,
        own: &[DeviceId],
        args: Vec<Vec<Argument<'_>>>,
    ) -> Result<Vec<Vec<Literal>>> {
        if args.len() != own.len() {
            return Err(Error::invalid(format!(
                "error: {name}: {} argument lists; this process runs {} devices of the program",
                args.len(),
                own.len()
            )));
        }
        // No collective is ever called; the runtime is there because a device runs in one.
        let alone: Arc<dyn Collectives> = Arc::new(InProcess::new(
            devices.grid().clone(),
            CollectiveMode::Threaded {
                deadline: std::time::Duration::from_secs(1),
            },
        ));
        let mut out = Vec::with_capacity(own.len());
        for (&d, row) in own.iter().zip(args) {
            let run = client.install(|| devices.execute_device(d, row, alone.clone()));
            let (result, _trace) =
                run.map_err(|e| Error::invalid(format!("error: {name}: {e}")))?;
            out.push(self.leaves(name, result)?);
        }
        Ok(out)
    }

    /// One device's result, flattened into its leaves.
    fn leaves(&self, name: &str, result: Literal) -> Result<Vec<Literal>> {
        let mut leaves = Vec::new();
        crate::executable::flatten(result, &mut leaves);
        if leaves.len() != self.outputs.len() {
            return Err(Error::new(
                Code::Internal,
                format!(
                    "{name}: {} result leaves, {} expected",
                    leaves.len(),
                    self.outputs.len()
                ),
            ));
        }
        Ok(leaves)
    }
}

/// The array leaves' shardings spread over every output leaf: a token (an ordered effect's,
/// which every device returns) is replicated.
fn with_tokens(arrays: Vec<HloSharding>, outputs: &[Option<ArrayShape>]) -> Vec<HloSharding> {
    let mut arrays = arrays.into_iter();
    outputs
        .iter()
        .map(|leaf| match leaf {
            Some(_) => arrays.next().unwrap_or(HloSharding::Replicated),
            None => HloSharding::Replicated,
        })
        .collect()
}

/// True if `module` has a collective anywhere (a per-device program that never meets the
/// other devices has none).
fn has_collectives(module: &Module) -> bool {
    module.order.iter().any(|&c| {
        module
            .computation(c)
            .iter()
            .any(|(_, instr)| CollectiveKind::of(instr.opcode()).is_some())
    })
}
