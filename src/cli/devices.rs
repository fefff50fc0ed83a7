//! `--partitions N [--replicas R] [--device-assignment a,b,...] [--output-shards DIR]`:
//! a sharded module on N simulated devices. The module is partitioned (XLA's
//! `spmd-partitioner` pipeline) unless XLA already did (`xla_opt.hlo`: an entry named
//! `*_spmd`), the global inputs are sharded by the entry parameters' shardings, every device
//! runs the per-partition program (compiled once, or on the interpreter) on the collectives
//! runtime, and the global results are assembled by the result's sharding.

use std::path::PathBuf;

use clap::Args;

use super::prepare::{compile_options, optimize_loaded};
use super::{Failure, RunArgs, model};
use crate::compiler::{DeviceBackend, DeviceRunOptions, run_on_devices};
use crate::eval::{EvalOptions, evaluate};
use crate::io::arguments::{ParameterInfo, entry_parameters};
use crate::io::npz::write_npz;
use crate::ir::sharding::HloSharding;
use crate::ir::{ArrayShape, Literal, Module, Shape};
use crate::runtime::collectives::DeviceGrid;
use crate::spmd::run::{
    Grid, assemble_results, global_dims, parameter_shardings, result_shardings, shard_arguments,
};
use crate::spmd::{SpmdOptions, devices_in_shardings, is_partitioned, needs_partitioning};

use crate::runtime::collectives::checked_device_count;

/// Multi-device flags of `run`, `compile` and `bench`.
#[derive(Args, Debug, Clone, Default)]
pub struct DeviceFlags {
    /// Partitions (XLA's num_partitions). Default: the module's num_partitions= /
    /// mhlo.num_partitions, else the device count in its shardings, else 1.
    /// `--partitions 1` runs a sharded module on one device, ignoring its shardings.
    #[arg(long, value_name = "N")]
    pub partitions: Option<usize>,
    /// Replicas (XLA's num_replicas). Default: the module's replica_count, else 1.
    #[arg(long, value_name = "R")]
    pub replicas: Option<usize>,
    /// The device of each (replica, partition), in order replica*N+partition
    /// (jax's mesh device order); default the identity.
    #[arg(long, value_name = "a,b,...", value_delimiter = ',')]
    pub device_assignment: Vec<i64>,
    /// Also write each device's result shards to DIR/device_<id>.npz (arr_0, ...).
    #[arg(long, value_name = "DIR")]
    pub output_shards: Option<PathBuf>,
    /// Read each device's argument shards from DIR/device_<id>.npz (arr_0, ... one per
    /// parameter, in the per-device shapes) instead of cutting global inputs; under
    /// --distributed each rank reads only its own device's file.
    #[arg(long, value_name = "DIR", conflicts_with = "inputs")]
    pub input_shards: Option<PathBuf>,
    /// The sharding of each result leaf of an already partitioned module (XLA's
    /// `xla_opt.hlo` does not record it), in XLA's text: `{devices=[8,1]<=[8]}`; give it
    /// once for every leaf, or once per leaf in order.
    #[arg(long, value_name = "SHARDING")]
    pub result_sharding: Vec<String>,
}

/// The result shardings `--result-sharding` gives for a result of `leaves` leaves.
fn flag_result_shardings(
    flags: &[String],
    leaves: usize,
) -> Result<Option<Vec<HloSharding>>, Failure> {
    if flags.is_empty() {
        return Ok(None);
    }
    let parsed: Vec<HloSharding> = flags
        .iter()
        .map(|t| {
            HloSharding::parse(t).map_err(|e| Failure::usage(format!("--result-sharding {t}: {e}")))
        })
        .collect::<Result<_, _>>()?;
    match parsed.len() {
        1 => Ok(Some(vec![parsed[0].clone(); leaves])),
        n if n == leaves => Ok(Some(parsed)),
        n => Err(Failure::usage(format!(
            "--result-sharding is given {n} times; result arrays: {leaves} (give it once, or once per result array)"
        ))),
    }
}

/// The device grid `module` runs on under `flags`; `None` for a plain one-device run.
pub fn grid(module: &Module, flags: &DeviceFlags, file: &str) -> Result<Option<Grid>, Failure> {
    let declared = module
        .config
        .num_partitions
        .filter(|&n| n > 0)
        .map(|n| n as usize);
    if let (Some(f), Some(m)) = (flags.partitions, declared)
        && f != m
        && f != 1
    {
        return Err(Failure::error(format!(
            "{file}: --partitions {f} disagrees with the module's num_partitions={m}"
        )));
    }
    let partitions = flags
        .partitions
        .or(declared)
        .or_else(|| devices_in_shardings(module))
        .unwrap_or(1);
    let replicas = flags
        .replicas
        .or(module
            .config
            .replica_count
            .filter(|&r| r > 0)
            .map(|r| r as usize))
        .unwrap_or(1);
    if partitions == 0 || replicas == 0 {
        return Err(Failure::usage(
            "--partitions and --replicas must be at least 1",
        ));
    }
    let devices = checked_device_count(replicas as u64, partitions as u64)
        .map_err(|e| Failure::error(format!("{file}: {e}")))?;
    if !flags.device_assignment.is_empty() {
        let a = &flags.device_assignment;
        let mut seen = std::collections::HashSet::new();
        if a.len() != devices {
            return Err(Failure::error(format!(
                "--device-assignment lists {} devices, the grid has {devices}",
                a.len()
            )));
        }
        if let Some(bad) = a.iter().find(|&&d| d < 0 || !seen.insert(d)) {
            return Err(Failure::error(format!(
                "--device-assignment: device {bad} is negative or listed twice"
            )));
        }
    }
    if devices == 1
        && flags.output_shards.is_none()
        && flags.input_shards.is_none()
        && flags.device_assignment.is_empty()
    {
        return Ok(None);
    }
    if let Some(max) = devices_in_shardings(module)
        && max > partitions
        && partitions > 1
    {
        return Err(Failure::error(format!(
            "{file}: the module's shardings name {max} devices, --partitions is {partitions}"
        )));
    }
    Ok(Some(Grid {
        replicas,
        partitions,
        device_assignment: if flags.device_assignment.is_empty() {
            (0..devices as i64).collect()
        } else {
            flags.device_assignment.clone()
        },
    }))
}

/// For a one-device run of a module with shardings (`--partitions 1`): the partitioner on
/// one partition, which turns its sharding annotations and shard_map boundaries into
/// plain HLO.
pub fn one_device_spmd(module: &Module) -> Option<SpmdOptions> {
    (needs_partitioning(module) && !is_partitioned(module)).then_some(SpmdOptions {
        num_partitions: 1,
        num_replicas: 1,
    })
}

/// True if the module has shard_map regions (their bodies are per-device code, so there is
/// no one-device program to compare with).
fn has_manual_regions(module: &Module) -> bool {
    module.order.iter().any(|&c| {
        module.computations[c].iter().any(|(_, i)| {
            matches!(&i.op, crate::ir::Op::CustomCall(cc)
                if matches!(cc.target.as_str(), "SPMDFullToShardShape" | "xla.sdy.GlobalToLocalShape"))
        })
    })
}

/// What a multi-device run produced.
pub struct DeviceRun {
    /// The global result leaves.
    pub outputs: Vec<crate::ir::ArrayLiteral>,
    /// Each device's result, in device order.
    pub per_device: Vec<Literal>,
}

/// The global parameters of a module: as declared, or, for an already partitioned one,
/// the per-partition shapes times their shardings' tile counts.
pub fn global_parameters(module: &Module) -> Vec<ParameterInfo> {
    let mut params = entry_parameters(module);
    if is_partitioned(module) {
        for (p, s) in params.iter_mut().zip(parameter_shardings(module)) {
            if let Shape::Array(a) = &mut p.shape {
                let dims = global_dims(&a.dims, &s);
                *a = ArrayShape::new(a.element_type, &dims);
            }
        }
    }
    params
}

/// The global result shape of `module` whose leaves are held in `shardings`.
fn global_result(module: &Module, shardings: &[HloSharding]) -> Shape {
    let shape = module.result_shape().clone();
    if !is_partitioned(module) {
        return shape;
    }
    let leaves: Vec<Shape> = shape
        .leaves()
        .iter()
        .zip(shardings)
        .map(|(a, s)| Shape::array(a.element_type, &global_dims(&a.dims, s)))
        .collect();
    if shape.is_tuple() {
        Shape::Tuple(leaves)
    } else {
        leaves.into_iter().next().unwrap_or(shape)
    }
}

/// True if the root of a partitioned module says how its result is sharded.
fn root_has_sharding(module: &Module) -> bool {
    module.entry_computation().root_instr().sharding.is_some()
}

/// How [`run_on_grid`] runs the devices.
pub struct GridRun<'a> {
    /// Pipeline flags.
    pub passes: &'a super::PassFlags,
    /// `--dump-to`.
    pub dump_to: Option<PathBuf>,
    /// Seed of `rng`.
    pub seed: u64,
    /// Compiled executables or the interpreter on every device.
    pub backend: super::Backend,
    /// The collectives scheduler (`None`: the default for the device count).
    pub mode: Option<crate::runtime::collectives::CollectiveMode>,
    /// `--result-sharding`.
    pub result_sharding: &'a [String],
    /// `--quiet`.
    pub quiet: bool,
    /// `--distributed`: this process runs one device of a multi-process job.
    pub distributed: Option<super::distributed::Distributed>,
    /// Under `--distributed`: every rank writes its own result shards here and rank 0
    /// gathers nothing (`--output-shards` without `--output`).
    pub own_output_shards: Option<PathBuf>,
    /// `--timeout` and `--max-while-iterations`, on every device.
    pub limits: crate::eval::limits::RunLimits,
}

/// Where a multi-device run's arguments come from.
pub enum GridArguments<'a> {
    /// Global arrays, cut into each device's shards by the parameters' shardings.
    Global(&'a [Literal]),
    /// One file of shards per device (`--input-shards DIR`: `DIR/device_<id>.npz`).
    Shards(&'a std::path::Path),
}

/// Reads the argument shards of `devices` (flattened indices) from `dir`, checked against
/// the per-device parameters `params`; the other devices get no arguments.
fn read_input_shards(
    dir: &std::path::Path,
    params: &[ParameterInfo],
    grid: &Grid,
    devices: &[usize],
) -> Result<Vec<Vec<Literal>>, Failure> {
    let mut per_device = vec![Vec::new(); grid.device_assignment.len()];
    for &d in devices {
        let path = dir.join(format!("device_{}.npz", grid.device_assignment[d]));
        let inputs = crate::io::npz::read_npz(&path)?;
        let given = inputs.len();
        let bound = crate::io::arguments::bind_arguments(params, inputs, 0).map_err(|e| {
            Failure::error(format!(
                "{}: device {d}'s shards: {}",
                path.display(),
                e.message
            ))
        })?;
        if !bound.randomized.is_empty() {
            return Err(Failure::error(format!(
                "{}: {given} arrays; device {d} takes {} parameter shards",
                path.display(),
                params.len()
            )));
        }
        per_device[d] = bound.literals;
    }
    Ok(per_device)
}

/// Partitions (unless already partitioned) and compiles `loaded` for `grid`, shards
/// `arguments` (or reads each device's shards), runs every device on the collectives
/// runtime and assembles the results. `None`: a distributed run's rank other than 0 (rank 0
/// assembles).
pub fn run_on_grid(
    loaded: model::LoadedModel,
    arguments: GridArguments<'_>,
    grid: &Grid,
    how: GridRun<'_>,
) -> Result<Option<DeviceRun>, Failure> {
    let file = loaded.file.clone();
    let leaves = loaded.module.result_shape().leaves().len();
    let given = flag_result_shardings(how.result_sharding, leaves)?;
    let mut options = compile_options(how.passes, how.dump_to, false)?;
    options.stablehlo_source = loaded.stablehlo.clone();
    // The entry's shardings, from the partitioned module before the CPU pipeline rewrites
    // its root.
    // `None`: an XLA-partitioned module that does not say (decided from the results).
    let (param_shardings, out_shardings, shard_params) = if is_partitioned(&loaded.module) {
        let m = &loaded.module;
        let out = match given {
            Some(g) => Some(g),
            None if root_has_sharding(m) || grid.partitions == 1 => Some(result_shardings(m)),
            None => None,
        };
        (parameter_shardings(m), out, entry_parameters(m))
    } else {
        if given.is_some() {
            return Err(Failure::usage(format!(
                "{file}: --result-sharding is for an already partitioned module; this one's result shardings come from its annotations"
            )));
        }
        let spmd = SpmdOptions {
            num_partitions: grid.partitions,
            num_replicas: grid.replicas,
        };
        options.spmd = Some(spmd);
        let p = crate::spmd::partition(loaded.module.clone(), spmd)
            .map_err(|e| Failure::error(format!("{file}: {e}")))?;
        (
            parameter_shardings(&p),
            Some(result_shardings(&p)),
            entry_parameters(&p),
        )
    };
    let unpartitioned = loaded.module.clone();
    let backend = match how.backend {
        super::Backend::Compiled => DeviceBackend::Compiled,
        super::Backend::Interpreter => DeviceBackend::Interpreter,
    };
    // The compiled backend compiles (partitioning first) once for every device; the
    // interpreter runs the module after the same HLO pipeline.
    let module = match backend {
        DeviceBackend::Compiled => loaded.module,
        DeviceBackend::Interpreter => optimize_loaded(loaded, &options)?.module,
    };
    let device_grid = DeviceGrid {
        replicas: grid.replicas as u32,
        partitions: grid.partitions as u32,
        device_assignment: Some(
            grid.device_assignment
                .iter()
                .map(|&d| u32::try_from(d).unwrap_or(u32::MAX))
                .collect(),
        ),
    };
    let per_device = match arguments {
        GridArguments::Global(globals) => shard_arguments(globals, &param_shardings, grid)
            .map_err(|e| Failure::error(format!("{file}: {e}")))?,
        GridArguments::Shards(dir) => {
            // A rank reads its own device's file only.
            let devices: Vec<usize> = match (how.distributed, super::distributed::launcher_rank()) {
                (Some(_), Some(rank)) => device_grid.device_of_physical(rank).into_iter().collect(),
                _ => (0..grid.device_assignment.len()).collect(),
            };
            read_input_shards(dir, &shard_params, grid, &devices)?
        }
    };
    let run_options = DeviceRunOptions {
        backend,
        mode: how.mode,
        compile: options,
        eval: EvalOptions {
            seed: how.seed,
            limits: how.limits,
            ..EvalOptions::default()
        },
    };
    let results = match how.distributed {
        None => {
            run_on_devices(&[module], &device_grid, &per_device, &run_options)
                .map_err(|e| Failure::error(format!("{file}: {e}")))?
                .results
        }
        Some(d) => match super::distributed::run_rank(
            &file,
            module,
            &device_grid,
            &per_device,
            &run_options,
            d,
            how.own_output_shards.as_deref(),
        )? {
            Some(all) => all,
            None => return Ok(None),
        },
    };
    let out_shardings = match out_shardings {
        Some(s) => s,
        None => {
            // Equal results on every partition are a replicated result; otherwise the
            // shards cannot be placed without the sharding, and guessing would be wrong.
            let first = &results[0];
            if results[..grid.partitions].iter().any(|r| r != first) {
                return Err(Failure::error(format!(
                    "{file}: the module does not record its result sharding and the devices' results differ: give --result-sharding (XLA's text, e.g. {{devices=[{},1]<=[{}]}})",
                    grid.partitions, grid.partitions
                )));
            }
            if !how.quiet {
                eprintln!(
                    "note: {file} does not record its result sharding; every device returned the same values, so the result is taken as replicated"
                );
            }
            vec![HloSharding::Replicated; leaves]
        }
    };
    let result_shape = global_result(&unpartitioned, &out_shardings);
    let outputs = assemble_results(&results, &out_shardings, &result_shape, grid)
        .map_err(|e| Failure::error(format!("{file}: {e}")))?;
    Ok(Some(DeviceRun {
        outputs,
        per_device: results,
    }))
}

/// `xlac run ... --partitions N`.
pub fn run(loaded: model::LoadedModel, args: &RunArgs, grid: Grid) -> Result<(), Failure> {
    let file = loaded.file.clone();
    let original = loaded.module.clone();
    let params = global_parameters(&loaded.module);
    // Under a launcher every rank runs this; notes come from rank 0 only.
    let quiet = args.quiet
        || (args.distributed.is_some()
            && super::distributed::launcher_rank().is_some_and(|r| r != 0));
    if args.compare_to.is_some() && is_partitioned(&original) {
        return Err(Failure::usage(format!(
            "--compare-to: {file} is already partitioned (a per-device program), so there is no one-device program to compare with; give --expected FILE.npz"
        )));
    }
    if args.devices.input_shards.is_some() && args.compare_to.is_some() {
        return Err(Failure::usage(
            "--compare-to runs the global program on the global inputs: give --input, not --input-shards",
        ));
    }
    let globals = match &args.devices.input_shards {
        Some(_) => Vec::new(),
        None => super::prepare::bind_inputs(&params, &args.inputs, args.seed, quiet)?.literals,
    };
    let run = run_on_grid(
        loaded,
        match &args.devices.input_shards {
            Some(dir) => GridArguments::Shards(dir),
            None => GridArguments::Global(&globals),
        },
        &grid,
        GridRun {
            passes: &args.passes,
            dump_to: args.dump_to.clone(),
            seed: args.seed.unwrap_or(0),
            backend: args.backend,
            mode: args.collective_mode()?,
            result_sharding: &args.devices.result_sharding,
            quiet,
            distributed: args.distributed()?,
            own_output_shards: match (&args.distributed, &args.output) {
                (Some(_), None) => args.devices.output_shards.clone(),
                _ => None,
            },
            limits: args.limits.run_limits(),
        },
    )?;
    let Some(run) = run else {
        // Another rank of the job; rank 0 prints and writes the result.
        return Ok(());
    };
    let leaves: Vec<Literal> = run.outputs.iter().cloned().map(Literal::Array).collect();
    let result = if original.result_shape().is_tuple() || leaves.len() != 1 {
        Literal::Tuple(leaves)
    } else {
        leaves.into_iter().next().unwrap()
    };
    if let Some(dir) = &args.devices.output_shards {
        std::fs::create_dir_all(dir).map_err(|e| {
            Failure::error(format!(
                "cannot create {}: {}",
                dir.display(),
                crate::io::io_error_text(&e)
            ))
        })?;
        for (d, r) in run.per_device.iter().enumerate() {
            let path = dir.join(format!("device_{}.npz", grid.device_assignment[d]));
            write_npz(&path, &r.leaves())?;
        }
    }
    super::outcome::print_and_save(&result, args)?;
    if let Some(expected) = &args.expected {
        super::outcome::compare_with_file(&result, expected, args, &file)?;
    }
    if args.compare_to.is_some() && has_manual_regions(&original) {
        if !args.quiet {
            eprintln!("note: a shard_map program has no one-device reference to compare with");
        }
    } else if args.compare_to.is_some() && !is_partitioned(&original) {
        // xlac's own one-device run of the global program is the reference.
        let options = crate::compiler::CompileOptions {
            spmd: one_device_spmd(&original),
            ..Default::default()
        };
        let reference = crate::compiler::optimize(original.clone(), &options)
            .map_err(|e| Failure::error(format!("{file}: one-device pipeline: {e}")))?
            .module;
        let want = evaluate(
            &reference,
            &globals,
            &EvalOptions {
                seed: args.seed.unwrap_or(0),
                limits: args.limits.run_limits(),
                ..EvalOptions::default()
            },
        )
        .map_err(|e| Failure::error(format!("{file}: one-device interpreter: {e}")))?;
        let tol = crate::eval::compare::Tolerance {
            rtol: args.rtol.unwrap_or(super::outcome::DEFAULT_TOLERANCE.rtol),
            atol: args.atol.unwrap_or(super::outcome::DEFAULT_TOLERANCE.atol),
        };
        let (report, failed) = super::outcome::comparison_report(&result, &want, tol)?;
        if !args.quiet {
            print!("{report}");
        }
        if failed > 0 {
            return Err(Failure::error(format!(
                "{file}: {failed} output(s) differ from the one-device run"
            )));
        }
    }
    Ok(())
}
