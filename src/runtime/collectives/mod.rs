//! Collectives across devices: N devices, each running its own program (a compiled
//! executable or the interpreter) on its own thread, meeting at one rendezvous per
//! collective. XLA: `xla/backends/cpu/runtime/collective_thunk.cc` (the rendezvous key),
//! `xla/backends/cpu/collectives/in_process_communicator.cc` (participants meet, the data
//! moves in rank order).
//!
//! Everything goes through one trait, [`Collectives`]: a device hands it one collective
//! (what it is, which devices take part, its operand and result buffers) and blocks until
//! its results are written. The trait assumes nothing about shared memory: an
//! implementation over MPI moves the same buffers with messages. [`in_process::InProcess`]
//! is the in-process implementation, with two schedulers:
//!
//! - **deterministic** (the default for up to 64 devices): one device runs at a time, the
//!   lowest-numbered runnable one, until it blocks in a collective or returns. When no
//!   device can run and some wait, no group can ever complete: that is a deadlock, reported
//!   at once with every device's position ([`report`]), no timeout involved.
//! - **threaded**: every device runs freely; a wait longer than the deadline stops the run
//!   with the same report.
//!
//! Results never depend on the scheduler or on thread counts: a reduction folds the
//! members' operands in group order, element by element ([`exchange`]).
//!
//! Files: [`op`] (an HLO collective as a [`CollectiveOp`]: kind, groups, pattern),
//! [`exchange`] (what each collective computes, on row-major bytes), [`reduction`] (the
//! reduction computation: native, compiled or interpreted), [`in_process`] (the rendezvous
//! and the schedulers), [`report`] (deadlock and mismatch reports), [`trace`] (Chrome trace
//! and text table), [`devices`] (running N device programs), [`thunk`] (the compiled backend's
//! collective thunks), [`interpreter`] (the interpreter's collectives on this runtime), [`static_check`] (`xlac check-collectives`), [`run_parallel`] (the conformance corpus's
//! `interpreter.run_parallel` grids), `mpi` (feature `mpi`: one device per MPI rank), `mpi_hybrid` (feature `mpi`: several devices
//! per MPI process, meeting in process, one MPI exchange per collective per process).

pub mod devices;
pub mod exchange;
pub mod in_process;
pub mod interpreter;
#[cfg(feature = "mpi")]
pub mod mpi;
#[cfg(feature = "mpi")]
pub mod mpi_hybrid;
pub mod op;
pub mod reduction;
pub mod report;
pub mod run_parallel;
pub mod thunk;
pub mod trace;

#[cfg(test)]
mod run_parallel_tests;
#[cfg(test)]
mod tests;

use std::fmt;
use std::time::Duration;

use crate::ir::ArrayShape;

pub use devices::{DeviceProgram, run_devices};
pub use in_process::InProcess;
pub use op::{CollectiveKind, CollectiveOp, Pattern};
pub use reduction::Reducer;
pub use report::{DeviceState, Report};
pub use trace::Trace;

/// The most devices one program may run on: each is a thread (or an MPI rank) with its own
/// buffers, and every count read from a module (`num_partitions=`, `replica_count=`) is
/// checked against this before anything is sized by it.
pub const MAX_DEVICES: usize = 512;

/// A device count over [`MAX_DEVICES`] (or zero), as a module or a flag asked for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceCountError {
    /// Replicas asked for.
    pub replicas: u64,
    /// Partitions asked for.
    pub partitions: u64,
}

impl std::fmt::Display for DeviceCountError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} replicas x {} partitions: a program runs on 1 to {MAX_DEVICES} devices",
            self.replicas, self.partitions
        )
    }
}

impl std::error::Error for DeviceCountError {}

/// `replicas * partitions`, when both are at least 1 and the product is at most
/// [`MAX_DEVICES`]. Every entry point (`xlac run`, `xlac serve`, the IFRT client the
/// plugin uses) calls it before it allocates per device.
pub fn checked_device_count(replicas: u64, partitions: u64) -> Result<usize, DeviceCountError> {
    match replicas.checked_mul(partitions) {
        Some(n) if n >= 1 && n <= MAX_DEVICES as u64 => Ok(n as usize),
        _ => Err(DeviceCountError {
            replicas,
            partitions,
        }),
    }
}

/// A device's index in its grid: `replica * partitions + partition` (XLA's flattened id).
pub type DeviceId = usize;

/// The devices a program runs on: `replicas x partitions` (XLA's `num_replicas` and
/// `num_partitions`), and the physical device each logical one is (XLA's device
/// assignment; only used to name devices).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceGrid {
    /// Number of replicas.
    pub replicas: u32,
    /// Number of partitions.
    pub partitions: u32,
    /// Physical device id of each logical device, in flattened order; `None`: the identity.
    pub device_assignment: Option<Vec<u32>>,
}

impl DeviceGrid {
    /// A grid of `replicas x partitions` with the identity device assignment.
    pub fn new(replicas: u32, partitions: u32) -> DeviceGrid {
        DeviceGrid {
            replicas,
            partitions,
            device_assignment: None,
        }
    }

    /// Number of devices.
    pub fn count(&self) -> usize {
        self.replicas as usize * self.partitions as usize
    }

    /// The replica of device `d`.
    pub fn replica(&self, d: DeviceId) -> u32 {
        (d / self.partitions.max(1) as usize) as u32
    }

    /// The partition of device `d`.
    pub fn partition(&self, d: DeviceId) -> u32 {
        (d % self.partitions.max(1) as usize) as u32
    }

    /// The device `(replica, partition)`.
    pub fn device(&self, replica: u32, partition: u32) -> DeviceId {
        replica as usize * self.partitions as usize + partition as usize
    }

    /// The logical device whose physical id is `physical` (an MPI rank), if any.
    pub fn device_of_physical(&self, physical: usize) -> Option<DeviceId> {
        (0..self.count()).find(|&d| self.physical(d) as usize == physical)
    }

    /// The physical id of device `d` (its own index without an assignment).
    pub fn physical(&self, d: DeviceId) -> u32 {
        self.device_assignment
            .as_ref()
            .and_then(|a| a.get(d).copied())
            .unwrap_or(d as u32)
    }
}

/// How devices are scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectiveMode {
    /// One device at a time, lowest-numbered runnable first; deadlocks are found the moment
    /// every live device waits.
    Deterministic,
    /// Every device on its own thread at once; a wait longer than `deadline` is reported.
    Threaded {
        /// How long one device may wait in one collective.
        deadline: Duration,
    },
}

impl CollectiveMode {
    /// The default threaded deadline.
    pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10);

    /// The default for `devices` devices: deterministic up to 64, threaded beyond.
    pub fn default_for(devices: usize) -> CollectiveMode {
        if devices <= 64 {
            CollectiveMode::Deterministic
        } else {
            CollectiveMode::Threaded {
                deadline: CollectiveMode::DEFAULT_DEADLINE,
            }
        }
    }
}

/// One operand of a collective: a row-major array in memory.
#[derive(Clone, Copy, Debug)]
pub struct ArrayView<'a> {
    /// Dimensions and element type (the layout is row-major).
    pub shape: &'a ArrayShape,
    /// Its bytes.
    pub data: &'a [u8],
}

/// One result of a collective: where a row-major array goes.
#[derive(Debug)]
pub struct ArrayViewMut<'a> {
    /// Dimensions and element type (row-major).
    pub shape: &'a ArrayShape,
    /// Its bytes.
    pub data: &'a mut [u8],
}

/// Why a collective (or a device run) failed. Each kind prints as one line, apart from a
/// deadlock's table of devices.
#[derive(Clone, Debug, PartialEq)]
pub enum CollectiveError {
    /// Every live device waits and no group can complete (or, threaded, a wait passed the
    /// deadline): the per-device report.
    Deadlock(Report),
    /// Participants of one rendezvous disagree (shapes, dtypes, dimensions, reduction).
    Mismatch(String),
    /// The op itself is malformed: groups that overlap or miss devices, a duplicate
    /// permute target, an attribute out of range.
    BadOp(String),
    /// Another device failed; the run stops.
    Aborted(String),
    /// Processes of a multi-process job stopped answering in a collective over them.
    ProcessesGone(ProcessesGone),
}

/// Processes of an MPI job that are gone: a collective with their devices passed its
/// deadline, and then they did not answer a roll call of the processes still there.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessesGone {
    /// Their MPI ranks, ascending.
    pub ranks: Vec<usize>,
    /// How many ranks the job has.
    pub job_size: usize,
    /// How long the roll call waited for their answer.
    pub grace: Duration,
    /// The collective that waited for them (`all-reduce.3 #1 (group {0,...,7})`).
    pub collective: String,
    /// Their devices in that collective's group.
    pub devices: Vec<DeviceId>,
}

impl fmt::Display for ProcessesGone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ranks: Vec<String> = self.ranks.iter().map(|r| r.to_string()).collect();
        let (noun, verb) = if self.ranks.len() == 1 {
            ("rank", "is")
        } else {
            ("ranks", "are")
        };
        write!(
            f,
            "{noun} {} of the MPI job ({} ranks) {verb} gone (no reply within {} s) in {}, which waits for devices {}",
            ranks.join(", "),
            self.job_size,
            self.grace.as_secs_f64(),
            self.collective,
            op::format_group(&self.devices)
        )
    }
}

impl CollectiveError {
    /// The one-line message (a deadlock's first line).
    pub fn headline(&self) -> String {
        match self {
            CollectiveError::Deadlock(r) => r.headline(),
            CollectiveError::Mismatch(m)
            | CollectiveError::BadOp(m)
            | CollectiveError::Aborted(m) => m.clone(),
            CollectiveError::ProcessesGone(g) => g.to_string(),
        }
    }
}

impl fmt::Display for CollectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CollectiveError::Deadlock(r) => write!(f, "{r}"),
            other => f.write_str(&other.headline()),
        }
    }
}

impl std::error::Error for CollectiveError {}

/// The interface between a device and the others. A device calls [`Collectives::start`]
/// before it runs, [`Collectives::collective`] for every collective, and
/// [`Collectives::finish`] when its program returned or failed.
pub trait Collectives: Send + Sync {
    /// The grid.
    fn grid(&self) -> &DeviceGrid;

    /// `device` is about to run; returns when it may (the deterministic scheduler runs one
    /// device at a time).
    fn start(&self, device: DeviceId) -> Result<(), CollectiveError>;

    /// Runs `op` for `device`: contributes `operands`, and returns once `results` hold this
    /// device's results. `reducer` combines elements when this call is the one that
    /// completes the rendezvous (so it need not be shareable across threads).
    fn collective(
        &self,
        device: DeviceId,
        op: &CollectiveOp,
        reducer: Option<&dyn Reducer>,
        operands: &[ArrayView<'_>],
        results: &mut [ArrayViewMut<'_>],
    ) -> Result<(), CollectiveError>;

    /// `device` returned (`Ok`) or failed (`Err(message)`); a failure stops the others.
    fn finish(&self, device: DeviceId, outcome: Result<(), String>);

    /// Why the run stopped, if it did (a deadlock report, a mismatch, a failed device).
    fn failure(&self) -> Option<CollectiveError>;

    /// Every collective run so far, per device.
    fn trace(&self) -> Trace;
}
