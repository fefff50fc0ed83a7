//! Programs over several devices: a compile with `num_partitions` / `num_replicas` above one
//! goes through xlac's SPMD pipeline (sharding propagation, then the partitioner) into one
//! per-device program, loaded on every device of the grid; an Execute runs every device on
//! its own argument list through the in-process collectives runtime.
//!
//! The parameter and result shardings the partitioner decided are what JAX reads back
//! (through the optimized program's `spmd_parameters_shardings` / `spmd_output_sharding`),
//! so it places its arrays the way the program takes them.

use std::sync::Mutex;

use xlac::compiler::{
    CompileOptions as XlacCompileOptions, DeviceBackend, DeviceRunOptions, LoadedDevices,
    load_on_devices,
};
use xlac::ir::sharding::HloSharding;
use xlac::ir::{ArrayShape, Literal, Module, Shape};
use xlac::runtime::collectives::DeviceGrid;
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
    /// The result's sharding per leaf.
    pub result_shardings: Vec<HloSharding>,
    /// The per-device result leaves.
    pub outputs: Vec<ArrayShape>,
    /// Device 0's module after the whole pipeline (what `compiled.as_text()` shows).
    pub module: Module,
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
) -> Result<Sharded> {
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
    for leaf in partitioned.result_shape().leaves() {
        outputs.push(leaf.clone());
    }
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
    let grid = DeviceGrid::new(replicas as u32, partitions as u32);
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
    Ok(Sharded {
        devices: Mutex::new(SendDevices(devices)),
        parameter_shardings: parameter_shardings(&partitioned),
        result_shardings: result_shardings(&partitioned),
        parameters,
        outputs,
        module,
    })
}

impl Sharded {
    /// Runs every device on its arguments (`args[d]`, in execution order), with `host`
    /// running the host callbacks, and returns each device's flattened result leaves. A
    /// collective mismatch or a stall is an error naming
    /// the collectives and devices; the programs stay loaded for the next run.
    pub fn execute<A: std::borrow::Borrow<Literal> + Sync>(
        &self,
        client: &Client,
        name: &str,
        args: &[Vec<A>],
        host: Option<std::sync::Arc<dyn xlac::eval::CustomCallHandler>>,
    ) -> Result<Vec<Vec<Literal>>> {
        let mut guard = self.devices.lock().unwrap_or_else(|e| e.into_inner());
        let devices: &mut SendDevices = &mut guard;
        // The run's host callbacks, for this run only.
        devices.0.set_custom_call_handler(host);
        let run = client.install(|| devices.0.execute(args));
        devices.0.set_custom_call_handler(None);
        let run = run.map_err(|e| Error::invalid(format!("error: {name}: {e}")))?;
        run.results
            .into_iter()
            .map(|r| {
                let mut leaves = Vec::new();
                crate::executable::flatten(r, &mut leaves);
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
            })
            .collect()
    }
}
