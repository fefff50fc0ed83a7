//! Collectives over MPI (feature `mpi`): one device per process, the multi-controller model. Every
//! rank runs the same program and meets the others only in collectives; there is no
//! coordinator. XLA:CPU: `xla/backends/cpu/collectives/mpi_collectives.cc` (communicators
//! split at load, color = the group).
//!
//! - **Communicators** are split from the world at load, one per distinct set of replica
//!   groups in the module, in module order. `MPI_Comm_split` is collective over the world, so
//!   every rank must split in the same order: doing it before the program runs keeps a
//!   misordered program from pairing two splits.
//! - **Data**: each member all-gathers its operands within its group; then every rank runs
//!   the same [`exchange::run`] the in-process runtime runs, on the gathered operands, in
//!   group order, for its own results only. A reduction therefore folds member 0, 1, 2, ... element by element, as in
//!   one process: results equal the in-process run bit for bit, whatever order MPI's own
//!   reduction algorithms would take.
//! - **Stalls**: every wait is a non-blocking request polled against a deadline. A rank that
//!   waits past it prints which collective it waits in and aborts the job (`MPI_Abort`): an
//!   MPI collective cannot be cancelled, so stopping is the only way not to hang.
//! - **Order check** (`check_order`): before each collective, and once when its program
//!   returns, every rank all-gathers a fixed-size record of where it is (op, group,
//!   sequence number). When the records disagree, every rank builds the same per-device
//!   [`Report`] the in-process scheduler prints, and the run stops before any data moves:
//!   MPI matches collectives by order only, so without the check two different
//!   same-sized collectives would silently combine.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mpi::Threading;
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::{Color, Communicator, SimpleCommunicator};
use mpi::traits::*;

use super::exchange::{self, Member, RawArray};
use super::op::format_group;
use super::report::{Cause, DeviceLine, DeviceState, Waiting};
use super::trace::Event;
use super::{
    ArrayView, ArrayViewMut, CollectiveError, CollectiveKind, CollectiveOp, Collectives,
    DeviceGrid, DeviceId, Reducer, Report, Trace,
};
use crate::ir::Module;

/// The most bytes one rank contributes to one collective (MPI counts are `int`s).
pub const MAX_CONTRIBUTION_BYTES: usize = i32::MAX as usize;

/// MPI, initialized for this process. Dropping it finalizes MPI.
pub struct MpiWorld {
    universe: Universe,
}

impl MpiWorld {
    /// Initializes MPI. Device programs call MPI from their own thread, one call at a
    /// time, so the library must allow at least `MPI_THREAD_SERIALIZED`.
    pub fn initialize() -> Result<MpiWorld, CollectiveError> {
        let (universe, provided) = mpi::initialize_with_threading(Threading::Serialized)
            .ok_or_else(|| CollectiveError::BadOp("MPI is already initialized".into()))?;
        if provided < Threading::Serialized {
            return Err(CollectiveError::BadOp(format!(
                "the MPI library provides thread level {provided:?}; xlac needs Serialized"
            )));
        }
        Ok(MpiWorld { universe })
    }

    /// The world communicator.
    pub(super) fn world(&self) -> SimpleCommunicator {
        self.universe.world()
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.universe.world().rank() as usize
    }

    /// How many processes the job has.
    pub fn size(&self) -> usize {
        self.universe.world().size() as usize
    }

    /// Gathers every rank's `bytes` on rank 0 (in rank order); `None` on the others.
    pub fn gather_to_root(&self, bytes: &[u8]) -> Result<Option<Vec<Vec<u8>>>, CollectiveError> {
        let world = self.universe.world();
        let size = world.size() as usize;
        let len = count(bytes.len())?;
        let root = world.process_at_rank(0);
        let mut lens = vec![0i32; size];
        if world.rank() == 0 {
            root.gather_into_root(&len, &mut lens[..]);
        } else {
            root.gather_into(&len);
        }
        if world.rank() != 0 {
            root.gather_varcount_into(bytes);
            return Ok(None);
        }
        let displs = displacements(&lens)?;
        let total: usize = lens.iter().map(|&l| l as usize).sum();
        let mut all = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut all[..], &lens[..], &displs[..]);
            root.gather_varcount_into_root(bytes, &mut partition);
        }
        Ok(Some(
            lens.iter()
                .zip(&displs)
                .map(|(&l, &d)| all[d as usize..d as usize + l as usize].to_vec())
                .collect(),
        ))
    }

    /// Overwrites `bytes` on every rank with rank 0's (the same length on every rank).
    pub fn broadcast_from_root(&self, bytes: &mut [u8]) {
        self.universe
            .world()
            .process_at_rank(0)
            .broadcast_into(bytes);
    }

    /// Waits until every rank gets here, or `deadline` passes (a rank that died never
    /// does); true if all arrived. Ranks meet here before exiting after a failure that all
    /// of them saw, so that rank 0 has printed the report before any rank's exit code
    /// makes `mpirun` stop the job.
    pub fn barrier(&self, deadline: Duration) -> bool {
        let world = self.universe.world();
        let mut request = world.immediate_barrier();
        let start = Instant::now();
        loop {
            match request.test() {
                Ok(_) => return true,
                Err(r) => request = r,
            }
            if start.elapsed() > deadline {
                // A pending request may not be dropped; the job is stopping anyway.
                std::mem::forget(request);
                return false;
            }
            std::thread::yield_now();
        }
    }

    /// Stops every rank of the job (after a stall: a pending MPI collective cannot be
    /// cancelled).
    pub fn abort(&self, code: i32) -> ! {
        self.universe.world().abort(code)
    }
}

/// The communicators a module's collectives run on, split from the world at load.
struct Communicators {
    world: SimpleCommunicator,
    /// Per distinct set of groups: this rank's group communicator (`None`: not a member).
    by_groups: HashMap<Vec<Vec<DeviceId>>, Option<SimpleCommunicator>>,
}

// SAFETY: MPI runs at thread level SERIALIZED (checked in `MpiWorld::initialize`) and every
// call on these handles is made under `Mpi::comms`'s lock, so one thread at a time.
unsafe impl Send for Communicators {}

/// Where this rank is, as the order check exchanges it: a fixed-size record.
#[derive(Clone, Debug, PartialEq)]
struct Position {
    /// 0 waiting in `op`, 1 returned, 2 failed.
    status: u8,
    fingerprint: u64,
    sequence: u64,
    completed: u64,
    /// The op's channel id; 0: none.
    channel: u64,
    op: String,
    group: String,
    last_completed: String,
}

const TEXT: usize = 80;
const RECORD: usize = 1 + 8 * 4 + 3 * TEXT;

impl Position {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(RECORD);
        out.push(self.status);
        for v in [
            self.fingerprint,
            self.sequence,
            self.completed,
            self.channel,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for s in [&self.op, &self.group, &self.last_completed] {
            let mut field = [0u8; TEXT];
            let b = truncated(s, TEXT).as_bytes();
            field[..b.len()].copy_from_slice(b);
            out.extend_from_slice(&field);
        }
        out
    }

    fn decode(b: &[u8]) -> Position {
        let word = |i: usize| u64::from_le_bytes(b[1 + 8 * i..9 + 8 * i].try_into().unwrap());
        let text = |i: usize| {
            let f = &b[33 + TEXT * i..33 + TEXT * (i + 1)];
            let end = f.iter().position(|&c| c == 0).unwrap_or(TEXT);
            String::from_utf8_lossy(&f[..end]).into_owned()
        };
        Position {
            status: b[0],
            fingerprint: word(0),
            sequence: word(1),
            completed: word(2),
            channel: word(3),
            op: text(0),
            group: text(1),
            last_completed: text(2),
        }
    }
}

/// `s` cut to at most `max` bytes on a character boundary.
fn truncated(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// What this rank has run so far.
#[derive(Default)]
struct Progress {
    sequence: HashMap<Vec<DeviceId>, u64>,
    completed: u64,
    last_completed: Option<String>,
    events: Vec<Event>,
    failure: Option<CollectiveError>,
}

/// The [`Collectives`] of one MPI rank: it runs device `device` of `grid`.
pub struct Mpi {
    grid: DeviceGrid,
    device: DeviceId,
    comms: Mutex<Communicators>,
    progress: Mutex<Progress>,
    check_order: bool,
    deadline: Duration,
    began: Instant,
}

/// How an [`Mpi`] runs.
#[derive(Clone, Copy, Debug)]
pub struct MpiOptions {
    /// Exchange a fingerprint before every collective (`--check-collective-order`).
    pub check_order: bool,
    /// How long one rank may wait in one collective before the job is stopped.
    pub deadline: Duration,
}

impl Mpi {
    /// The collectives of this rank for `modules` (every device runs `modules[0]`, or device
    /// d runs `modules[d]`) on `grid`: this rank is the device whose physical id is its
    /// rank. Splits the group communicators (collective over the world: every rank calls
    /// this with the same modules).
    pub fn new(
        world: &MpiWorld,
        modules: &[&Module],
        grid: &DeviceGrid,
        options: MpiOptions,
    ) -> Result<Mpi, CollectiveError> {
        let rank = world.rank();
        if world.size() != grid.count() {
            return Err(CollectiveError::BadOp(format!(
                "the job has {} ranks and the program {} devices ({} replicas x {} partitions): start one rank per device",
                world.size(),
                grid.count(),
                grid.replicas,
                grid.partitions
            )));
        }
        let device = grid.device_of_physical(rank).ok_or_else(|| {
            CollectiveError::BadOp(format!("rank {rank} is no device of the device assignment"))
        })?;
        let mut sets: Vec<Vec<Vec<DeviceId>>> = Vec::new();
        for module in modules {
            for &c in &module.order {
                let comp = module.computation(c);
                for (_, instr) in comp.iter() {
                    if CollectiveKind::of(instr.opcode()).is_none() {
                        continue;
                    }
                    let op = CollectiveOp::from_instruction(module, instr, grid, None)?;
                    if !sets.contains(&op.groups) {
                        sets.push(op.groups);
                    }
                }
            }
        }
        let world_comm = world.universe.world();
        let mut by_groups = HashMap::new();
        for groups in sets {
            let mine = groups
                .iter()
                .enumerate()
                .find_map(|(g, members)| members.iter().position(|&m| m == device).map(|p| (g, p)));
            let comm = match mine {
                Some((g, position)) => {
                    world_comm.split_by_color_with_key(Color::with_value(g as i32), position as i32)
                }
                None => world_comm.split_by_color(Color::undefined()),
            };
            by_groups.insert(groups, comm);
        }
        Ok(Mpi {
            grid: grid.clone(),
            device,
            comms: Mutex::new(Communicators {
                world: world_comm,
                by_groups,
            }),
            progress: Mutex::new(Progress::default()),
            check_order: options.check_order,
            deadline: options.deadline,
            began: Instant::now(),
        })
    }

    /// The device this rank runs.
    pub fn device(&self) -> DeviceId {
        self.device
    }

    fn us(&self, t: Instant) -> f64 {
        t.duration_since(self.began).as_secs_f64() * 1e6
    }

    fn fail(&self, e: CollectiveError) -> CollectiveError {
        let mut p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        p.failure.get_or_insert(e).clone()
    }

    /// Waits for `request`, polling against the deadline; past it, says where this rank
    /// waits and stops the job.
    fn wait<'a, D: ?Sized, S: mpi::request::Scope<'a>>(
        &self,
        world: &SimpleCommunicator,
        mut request: mpi::request::Request<'a, D, S>,
        what: &str,
    ) {
        let start = Instant::now();
        loop {
            match request.test() {
                Ok(_) => return,
                Err(r) => request = r,
            }
            if start.elapsed() > self.deadline {
                eprintln!(
                    "error: collectives stalled: rank {} (device {}) waited more than {} s in {what}; stopping the job",
                    world.rank(),
                    self.device,
                    self.deadline.as_secs_f64()
                );
                world.abort(3);
            }
            // Open MPI moves a large message only while some call drives its progress, so
            // keep testing; yielding leaves the core to ranks that still compute.
            std::thread::yield_now();
        }
    }

    /// All-gathers `mine` (the same length on every member) over `comm`.
    fn all_gather(
        &self,
        world: &SimpleCommunicator,
        comm: &SimpleCommunicator,
        mine: &[u8],
        what: &str,
    ) -> Vec<u8> {
        let mut all = vec![0u8; mine.len() * comm.size() as usize];
        mpi::request::scope(|scope| {
            let r = comm.immediate_all_gather_into(scope, mine, &mut all[..]);
            self.wait(world, r, what);
        });
        all
    }

    /// All-gathers byte strings of any length over `comm`, in rank order.
    fn all_gather_bytes(
        &self,
        world: &SimpleCommunicator,
        comm: &SimpleCommunicator,
        mine: &[u8],
        what: &str,
    ) -> Result<Vec<Vec<u8>>, CollectiveError> {
        let len = count(mine.len())?;
        let lens_bytes = self.all_gather(world, comm, &len.to_le_bytes(), what);
        let lens: Vec<i32> = lens_bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let displs = displacements(&lens)?;
        let total: usize = lens.iter().map(|&l| l as usize).sum();
        let mut all = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut all[..], &lens[..], &displs[..]);
            mpi::request::scope(|scope| {
                let r = comm.immediate_all_gather_varcount_into(scope, mine, &mut partition);
                self.wait(world, r, what);
            });
        }
        Ok(lens
            .iter()
            .zip(&displs)
            .map(|(&l, &d)| all[d as usize..d as usize + l as usize].to_vec())
            .collect())
    }

    /// The order check: every rank says where it is; `Err` with the report when they
    /// disagree.
    fn check_positions(
        &self,
        world: &SimpleCommunicator,
        me: Position,
    ) -> Result<(), CollectiveError> {
        let what = if me.status == 0 {
            format!("the order check before {} #{}", me.op, me.sequence)
        } else {
            "the order check at the end of the program".into()
        };
        let all = self.all_gather(world, world, &me.encode(), &what);
        let positions: Vec<Position> = all.chunks_exact(RECORD).map(Position::decode).collect();
        let agree = positions.iter().all(|p| {
            p.status == me.status
                && (me.status != 0
                    || (p.fingerprint == me.fingerprint && p.sequence == me.sequence))
        });
        if agree {
            return Ok(());
        }
        let devices = positions
            .iter()
            .enumerate()
            .map(|(rank, p)| {
                let device = self.grid.device_of_physical(rank).unwrap_or(rank);
                let state = match p.status {
                    0 => DeviceState::Waiting(Waiting {
                        op: p.op.clone(),
                        group: parse_group(&p.group),
                        channel: (p.channel > 0).then_some(p.channel as i64),
                        sequence: p.sequence,
                        missing: parse_group(&p.group)
                            .into_iter()
                            .filter(|&m| {
                                let q = &positions[self.grid.physical(m) as usize];
                                q.status != 0
                                    || q.fingerprint != p.fingerprint
                                    || q.sequence != p.sequence
                            })
                            .collect(),
                    }),
                    1 => DeviceState::Returned,
                    _ => DeviceState::Failed(p.op.clone()),
                };
                DeviceLine {
                    device,
                    replica: self.grid.replica(device),
                    partition: self.grid.partition(device),
                    state,
                    completed: p.completed,
                    last_completed: (!p.last_completed.is_empty())
                        .then(|| p.last_completed.clone()),
                }
            })
            .collect::<Vec<_>>();
        let mut devices = devices;
        devices.sort_by_key(|d| d.device);
        Err(CollectiveError::Deadlock(Report {
            cause: Cause::Deadlock,
            devices,
        }))
    }

    fn position(&self, status: u8, op: Option<(&CollectiveOp, &[DeviceId], u64)>) -> Position {
        let p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        let (fingerprint, sequence, label, group, channel) = match op {
            Some((op, group, seq)) => (
                fingerprint(op),
                seq,
                op.label(),
                format_group(group),
                op.channel_id.map_or(0, |c| c.max(0) as u64),
            ),
            None => (0, 0, String::new(), String::new(), 0),
        };
        Position {
            status,
            fingerprint,
            sequence,
            completed: p.completed,
            channel,
            op: label,
            group,
            last_completed: p.last_completed.clone().unwrap_or_default(),
        }
    }
}

/// A hash of what makes two ranks' collectives the same one: kind, instruction, groups,
/// pattern and reduction.
fn fingerprint(op: &CollectiveOp) -> u64 {
    // FNV-1a over the op's debug form: stable across processes (std's hasher is seeded).
    let text = format!(
        "{}|{}|{:?}|{:?}|{:?}|{:?}",
        op.kind, op.name, op.channel_id, op.groups, op.pattern, op.reduction
    );
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `{0,1,2}` back into devices.
fn parse_group(s: &str) -> Vec<DeviceId> {
    s.trim_matches(|c| c == '{' || c == '}')
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect()
}

/// `n` bytes as an MPI count.
fn count(n: usize) -> Result<i32, CollectiveError> {
    i32::try_from(n).map_err(|_| {
        CollectiveError::BadOp(format!(
            "one rank's contribution of {n} bytes is more than MPI's {MAX_CONTRIBUTION_BYTES}"
        ))
    })
}

/// Offsets of consecutive blocks of `lens` bytes.
fn displacements(lens: &[i32]) -> Result<Vec<i32>, CollectiveError> {
    let mut at = 0usize;
    lens.iter()
        .map(|&l| {
            let d = count(at)?;
            at += l as usize;
            Ok(d)
        })
        .collect()
}

impl Collectives for Mpi {
    fn grid(&self) -> &DeviceGrid {
        &self.grid
    }

    fn start(&self, device: DeviceId) -> Result<(), CollectiveError> {
        if device != self.device {
            return Err(CollectiveError::BadOp(format!(
                "this rank runs device {}, not device {device}",
                self.device
            )));
        }
        Ok(())
    }

    fn collective(
        &self,
        device: DeviceId,
        op: &CollectiveOp,
        reducer: Option<&dyn Reducer>,
        operands: &[ArrayView<'_>],
        results: &mut [ArrayViewMut<'_>],
    ) -> Result<(), CollectiveError> {
        if let Some(f) = self.failure() {
            return Err(f);
        }
        let arrive = Instant::now();
        let label = op.label();
        let Some((group, index)) = op.group_of(device) else {
            if op.kind == CollectiveKind::CollectiveBroadcast {
                for r in results.iter_mut() {
                    r.data.fill(0);
                }
                return Ok(());
            }
            return Err(CollectiveError::BadOp(format!(
                "{label}: device {device} is in no replica group"
            )));
        };
        let group = group.to_vec();
        let seq = {
            let mut p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
            let s = p.sequence.entry(group.clone()).or_insert(0);
            *s += 1;
            *s - 1
        };
        let comms = self.comms.lock().unwrap_or_else(|e| e.into_inner());
        if self.check_order {
            let me = self.position(0, Some((op, &group, seq)));
            self.check_positions(&comms.world, me)
                .map_err(|e| self.fail(e))?;
        }
        let Some(Some(comm)) = comms.by_groups.get(&op.groups) else {
            return Err(self.fail(CollectiveError::BadOp(format!(
                "{label}: its replica groups were not split at load"
            ))));
        };
        let what = format!("{label} #{seq} (group {})", format_group(&group));
        // Operands travel as one byte string per member; shapes are checked against this
        // rank's own below, so a member that sent something else is a mismatch, not junk.
        let mut mine = Vec::new();
        for o in operands {
            mine.extend_from_slice(o.data);
        }
        let start = Instant::now();
        let gathered = self.all_gather_bytes(&comms.world, comm, &mine, &what)?;
        drop(comms);
        if gathered.iter().any(|g| g.len() != mine.len()) {
            let lens: Vec<String> = gathered.iter().map(|g| g.len().to_string()).collect();
            return Err(self.fail(CollectiveError::Mismatch(format!(
                "{what}: members sent {} operand bytes",
                lens.join(", ")
            ))));
        }
        // Only this member's results are computed (the others' are on their ranks), by
        // the same code and in the same order as in one process.
        let mut members: Vec<Member> = Vec::with_capacity(group.len());
        for (k, bytes) in gathered.iter().enumerate() {
            let mut at = 0;
            let operands = operands
                .iter()
                .map(|o| {
                    let a = RawArray {
                        shape: o.shape.clone(),
                        ptr: bytes[at..].as_ptr() as *mut u8,
                        len: o.data.len(),
                    };
                    at += o.data.len();
                    a
                })
                .collect();
            let results: Vec<RawArray> = results
                .iter_mut()
                .map(|r| RawArray {
                    shape: r.shape.clone(),
                    ptr: if k == index {
                        r.data.as_mut_ptr()
                    } else {
                        std::ptr::null_mut()
                    },
                    len: r.data.len(),
                })
                .collect();
            members.push(Member {
                operands,
                results,
                elsewhere: k != index,
            });
        }
        // Operands are read, never written, through these pointers: `gathered` outlives
        // `members`; results of members elsewhere are never dereferenced.
        exchange::run(op, &members, reducer)
            .map_err(|m| self.fail(CollectiveError::Mismatch(format!("{what}: {m}"))))?;
        drop(members);
        let end = Instant::now();
        let mut p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        p.completed += 1;
        p.last_completed = Some(format!("{label} #{seq}"));
        p.events.push(Event {
            device,
            op: label,
            group,
            sequence: seq,
            bytes_in: mine.len() as u64,
            bytes_out: results.iter().map(|r| r.data.len() as u64).sum(),
            arrive_us: self.us(arrive),
            start_us: self.us(start),
            end_us: self.us(end),
        });
        Ok(())
    }

    fn finish(&self, _device: DeviceId, outcome: Result<(), String>) {
        if let Err(m) = &outcome {
            self.fail(CollectiveError::Aborted(format!(
                "device {} failed: {m}",
                self.device
            )));
        }
        if self.check_order
            && self
                .failure()
                .is_none_or(|f| matches!(f, CollectiveError::Aborted(_)))
        {
            let mut me = self.position(if outcome.is_ok() { 1 } else { 2 }, None);
            if let Err(m) = &outcome {
                me.op = truncated(m, TEXT).to_string();
            }
            let comms = self.comms.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(e) = self.check_positions(&comms.world, me) {
                drop(comms);
                self.fail(e);
            }
        }
    }

    fn failure(&self) -> Option<CollectiveError> {
        self.progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .failure
            .clone()
    }

    fn trace(&self) -> Trace {
        Trace {
            grid: Some(self.grid.clone()),
            mode: "mpi".into(),
            events: self
                .progress
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .events
                .clone(),
        }
    }
}
