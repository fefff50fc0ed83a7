//! `xlac run MODEL --distributed mpi` under `mpirun -np N`: the multi-controller model. Every rank
//! runs this same command, compiles the same program, and runs one device of the grid (the
//! device whose id in the device assignment is its rank); ranks meet only in collectives
//! (`runtime::collectives::mpi`). Rank 0 gathers the result shards and prints or writes
//! the assembled result; with `--dump-to`, rank 0 writes the dump folder and every rank its
//! own `rank_R.collectives.txt`: the same program, the same collective sequence, no
//! coordinator.

use std::time::Duration;

use crate::compiler::DeviceRunOptions;
use crate::ir::{Literal, Module};
use crate::runtime::collectives::DeviceGrid;

use super::Failure;

/// The engine `--distributed` names.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistributedFlag {
    /// One device per MPI rank (a build with the `mpi` feature, run under `mpirun`).
    Mpi,
}

/// How a distributed run goes.
#[derive(Clone, Copy, Debug)]
pub struct Distributed {
    /// The engine.
    pub engine: DistributedFlag,
    /// `--check-collective-order`.
    pub check_order: bool,
    /// How long a rank may wait in one collective (`--collectives-deadline`).
    pub deadline: Duration,
}

/// This process's rank as the launcher says before MPI starts (Open MPI, MPICH, PMIx).
pub fn launcher_rank() -> Option<usize> {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// Runs this rank's device of `module` on `grid` (`per_device[d]`: device d's arguments;
/// only this rank's are used). Rank 0 returns every device's result, in device order; the
/// other ranks return `None`. With `own_shards`, every rank writes its own result to
/// `own_shards/device_<id>.npz` instead, nothing is gathered, and every rank returns `None`.
#[cfg(feature = "mpi")]
pub fn run_rank(
    file: &str,
    module: Module,
    grid: &DeviceGrid,
    per_device: &[Vec<Literal>],
    options: &DeviceRunOptions,
    how: Distributed,
    own_shards: Option<&std::path::Path>,
) -> Result<Option<Vec<Literal>>, Failure> {
    use crate::runtime::buffers::{literal_bytes, read_array};
    use crate::runtime::collectives::CollectiveError;
    use crate::runtime::collectives::mpi::{Mpi, MpiOptions, MpiWorld};
    use std::sync::Arc;

    let DistributedFlag::Mpi = how.engine;
    let world = MpiWorld::initialize().map_err(|e| Failure::error(format!("{file}: {e}")))?;
    let rank = world.rank();
    // One report for the job: rank 0 prints what every rank knows alike (a deadlock or
    // order report), then all ranks meet before any exits. A rank's own failure is printed
    // by that rank, named, and stops the job at once: the other ranks may be waiting for it
    // in a collective that can no longer complete, and an MPI collective cannot be
    // cancelled (a rank that just returned would leave them waiting until the deadline).
    let fail = |e: String, shared: bool| -> Failure {
        if !shared {
            eprintln!("error: {file}: rank {rank}: {e}");
            world.abort(1);
        }
        if rank == 0 {
            eprintln!("error: {file}: {e}");
        }
        world.barrier(how.deadline);
        Failure {
            lines: Vec::new(),
            code: 1,
        }
    };
    let mut options = options.clone();
    let dump_to = options.compile.dump_to.clone();
    if rank != 0 {
        options.compile.dump_to = None;
    }
    let mut loaded =
        crate::compiler::load_on_devices(std::slice::from_ref(&module), grid, &options)
            .map_err(|e| fail(e.to_string(), true))?;
    let collectives = Mpi::new(
        &world,
        &[loaded.module(0)],
        grid,
        MpiOptions {
            check_order: how.check_order,
            deadline: how.deadline,
        },
    )
    .map_err(|e| fail(e.to_string(), true))?;
    let device = collectives.device();
    let collectives = Arc::new(collectives);
    let outcome = loaded.execute_device(device, &per_device[device], collectives.clone());
    if let Some(dir) = &dump_to {
        let trace = crate::runtime::collectives::Collectives::trace(&*collectives);
        let text = format!(
            "rank {rank} of {}: device {device} (replica {}, partition {}) runs {} ({} collectives)\n{}",
            world.size(),
            grid.replica(device),
            grid.partition(device),
            module.name,
            trace.events.len(),
            trace.table_of([device])
        );
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(dir.join(format!("rank_{rank}.collectives.txt")), text))
            .map_err(|e| {
                fail(
                    format!(
                        "cannot write the rank log: {}",
                        crate::io::io_error_text(&e)
                    ),
                    false,
                )
            })?;
    }
    let (result, _trace) = outcome.map_err(|e| match e {
        crate::compiler::DeviceRunError::Collectives(
            c @ (CollectiveError::Deadlock(_) | CollectiveError::Mismatch(_)),
        ) => fail(c.to_string(), true),
        other => fail(other.to_string(), false),
    })?;
    if let Some(dir) = own_shards {
        let path = dir.join(format!("device_{rank}.npz"));
        std::fs::create_dir_all(dir)
            .map_err(|e| {
                fail(
                    format!(
                        "cannot create {}: {}",
                        dir.display(),
                        crate::io::io_error_text(&e)
                    ),
                    false,
                )
            })
            .and_then(|()| {
                crate::io::npz::write_npz(&path, &result.leaves())
                    .map_err(|e| fail(e.message, false))
            })?;
        return Ok(None);
    }
    // Rank 0 assembles: every rank sends its result leaves as row-major bytes.
    let leaves: Vec<crate::ir::ArrayLiteral> = result
        .leaves()
        .into_iter()
        .map(|a| a.to_row_major())
        .collect();
    let mut bytes = Vec::new();
    for a in &leaves {
        bytes.extend_from_slice(literal_bytes(a));
    }
    let gathered = world
        .gather_to_root(&bytes)
        .map_err(|e| fail(e.to_string(), false))?;
    let Some(gathered) = gathered else {
        return Ok(None);
    };
    let tuple = result.as_tuple().is_some();
    let mut results = Vec::with_capacity(gathered.len());
    for (r, b) in gathered.iter().enumerate() {
        if b.len() != bytes.len() {
            return Err(fail(
                format!(
                    "rank {r} returned {} result bytes, rank 0 {}",
                    b.len(),
                    bytes.len()
                ),
                false,
            ));
        }
        let mut at = 0;
        let mut values = Vec::with_capacity(leaves.len());
        for a in &leaves {
            let n = a.shape.byte_size();
            // SAFETY: `b[at..at + n]` holds one row-major array of `a.shape` (lengths
            // checked above: every rank's leaves have rank 0's shapes).
            values.push(Literal::Array(unsafe {
                read_array(b[at..at + n].as_ptr(), &a.shape)
            }));
            at += n;
        }
        results.push(if tuple {
            Literal::Tuple(values)
        } else {
            values.remove(0)
        });
    }
    // Ranks are physical ids; results go in device order.
    let mut by_device: Vec<Option<Literal>> = vec![None; results.len()];
    for (r, lit) in results.into_iter().enumerate() {
        if let Some(d) = grid.device_of_physical(r) {
            by_device[d] = Some(lit);
        }
    }
    by_device
        .into_iter()
        .enumerate()
        .map(|(d, l)| l.ok_or_else(|| fail(format!("no rank ran device {d}"), false)))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Without the `mpi` feature: says how to get it.
#[cfg(not(feature = "mpi"))]
pub fn run_rank(
    _file: &str,
    _module: Module,
    _grid: &DeviceGrid,
    _per_device: &[Vec<Literal>],
    _options: &DeviceRunOptions,
    _how: Distributed,
    _own_shards: Option<&std::path::Path>,
) -> Result<Option<Vec<Literal>>, Failure> {
    Err(Failure::usage(
        "--distributed mpi: this xlac was built without MPI; build it with `cargo build --release --features mpi` (needs libopenmpi-dev and libclang-dev)",
    ))
}
