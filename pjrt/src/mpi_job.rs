//! Programs whose devices span the processes of a `jax.distributed` job: each process runs
//! its own devices' programs, one thread each, and the collectives cross processes over MPI
//! (xlac's [`MpiHybrid`](xlac::runtime::collectives::mpi_hybrid::MpiHybrid) collectives: the
//! local devices meet in process, one MPI exchange per collective per process). The processes must be the ranks of one `mpirun` job, with
//! MPI rank = jax's `process_id`.
//!
//! MPI is optional (cargo feature `mpi`, as for the `xlac` command): a plugin built without
//! it still lists the job's devices and runs programs on each process's own devices, and a
//! program over several processes is one error saying how to get MPI.

use crate::error::{Code, Error, Result};

/// The rank the launcher gave this process (Open MPI, MPICH, PMIx), read before MPI starts.
pub fn launcher_rank() -> Option<usize> {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// Starts MPI for a client of process `node_id` of `num_nodes` when the process was started
/// by mpirun and the plugin has MPI, so that every rank of the job initializes MPI (as the
/// launcher expects) on the thread that creates the client; checks that the MPI job and
/// the `jax.distributed` job agree. Elsewhere, nothing to do.
pub fn start(node_id: usize, num_nodes: usize) -> Result<()> {
    if cfg!(feature = "mpi") && launcher_rank().is_some() {
        check_launch(node_id, num_nodes)?;
    }
    Ok(())
}

/// Checks that this process can run its part of a program over `num_nodes` processes as
/// process `node_id`: the plugin has MPI and the process is MPI rank `node_id` of a job of
/// `num_nodes` ranks.
#[cfg_attr(not(feature = "mpi"), allow(unused_variables))]
pub fn check_launch(node_id: usize, num_nodes: usize) -> Result<()> {
    if !cfg!(feature = "mpi") {
        return Err(Error::unimplemented(
            "error: the program's devices span processes, and this xlac plugin was built without MPI: build it with `cargo build --release -p xlac_pjrt --features mpi` (needs libopenmpi-dev and libclang-dev), or `XLAC_MPI=1 pip install ./python`, and start the processes with mpirun",
        ));
    }
    let Some(rank) = launcher_rank() else {
        return Err(Error::new(
            Code::FailedPrecondition,
            "error: the program's devices span processes, and this process was not started by mpirun (no OMPI_COMM_WORLD_RANK, PMI_RANK or PMIX_RANK): xlac moves data between processes over MPI; start the script with `mpirun -np N python script.py`",
        ));
    };
    if rank != node_id {
        return Err(Error::new(
            Code::FailedPrecondition,
            format!(
                "error: this process is MPI rank {rank} and jax's process {node_id}: call jax.distributed.initialize() without process_id under mpirun (it reads the rank), or pass process_id={rank}"
            ),
        ));
    }
    #[cfg(feature = "mpi")]
    {
        let size = world()?.size();
        if size != num_nodes {
            return Err(Error::new(
                Code::FailedPrecondition,
                format!(
                    "error: the MPI job has {size} ranks and the jax.distributed job {num_nodes} processes: start one rank per process"
                ),
            ));
        }
    }
    Ok(())
}

/// Checks a program with collectives over the devices of several processes (`owners[i]`:
/// the process of device `i`): every process of the job runs one or more devices of it,
/// over MPI.
pub fn check_job_program(
    client: &crate::client::Client,
    devices: &[i64],
    owners: &[u32],
) -> Result<()> {
    let mut count = vec![0usize; client.process_count()];
    for &p in owners {
        count[p as usize] += 1;
    }
    if count.contains(&0) {
        let per_process = count
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(Error::unimplemented(format!(
            "error: the program runs on devices {devices:?}, {per_process} per process; across processes xlac runs programs over every process of the job"
        )));
    }
    let d = client.distributed();
    check_launch(d.node_id, d.num_nodes)
}

#[cfg(feature = "mpi")]
pub use with_mpi::*;

#[cfg(feature = "mpi")]
mod with_mpi {
    use std::sync::{Arc, OnceLock};
    use std::time::Duration;

    use xlac::compiler::LoadedDevices;
    use xlac::runtime::collectives::mpi::MpiWorld;
    use xlac::runtime::collectives::mpi_hybrid::{self, MpiHybrid};
    use xlac::runtime::collectives::{Collectives, DeviceGrid, DeviceId};

    use crate::error::{Code, Error, Result};

    /// MPI, started when a client of an `mpirun` job is created and kept for the process's
    /// life: `MPI_Finalize` runs at exit (Open MPI counts a rank that exits without it as
    /// failed and stops the job).
    struct World(MpiWorld);
    // SAFETY: MPI runs at thread level SERIALIZED; every call on the world's communicators
    // goes through an `MpiHybrid`, one call at a time.
    unsafe impl Send for World {}
    unsafe impl Sync for World {}

    static WORLD: OnceLock<std::result::Result<World, String>> = OnceLock::new();

    /// This process's MPI world.
    pub fn world() -> Result<&'static MpiWorld> {
        WORLD
            .get_or_init(|| {
                let world = MpiWorld::initialize()
                    .map(World)
                    .map_err(|e| e.to_string())?;
                // SAFETY: registers a plain function; it runs once, at exit.
                unsafe { libc::atexit(finalize) };
                Ok(world)
            })
            .as_ref()
            .map(|w| &w.0)
            .map_err(|e| Error::new(Code::FailedPrecondition, format!("error: MPI: {e}")))
    }

    extern "C" fn finalize() {
        // With a process of the job gone, MPI_Finalize may wait for it forever (and the
        // abandoned collectives never complete): the process exits without it.
        if mpi_hybrid::job_lost().is_some() {
            return;
        }
        let mut done = 0;
        // SAFETY: plain MPI calls on the process's world, after every client is gone.
        unsafe {
            mpi::ffi::MPI_Finalized(&mut done);
            if done == 0 {
                mpi::ffi::MPI_Finalize();
            }
        }
    }

    /// This process's part of a program over several processes: its devices and the
    /// collectives that reach the others.
    pub struct JobPart {
        /// The logical devices this process runs, ascending.
        pub devices: Vec<DeviceId>,
        /// Collectives over MPI, one communicator per group that spans processes.
        pub collectives: Arc<MpiHybrid>,
    }

    /// Splits the communicators of `loaded`'s program (collective over the job: every
    /// process compiles the same programs in the same order, as SPMD scripts do). `grid`'s
    /// device assignment names each device's process; `deadline` is how long a process waits
    /// in one collective before it looks for the processes that are gone.
    pub fn join(loaded: &LoadedDevices, grid: &DeviceGrid, deadline: Duration) -> Result<JobPart> {
        let world = world()?;
        let mpi = MpiHybrid::new(world, &[loaded.module(0)], grid, deadline)
            .map_err(|e| Error::invalid(format!("error: {e}")))?;
        Ok(JobPart {
            devices: mpi.local_devices().to_vec(),
            collectives: Arc::new(mpi),
        })
    }

    impl JobPart {
        /// The collectives as the runtime takes them.
        pub fn collectives(&self) -> Arc<dyn Collectives> {
            self.collectives.clone()
        }
    }
}
