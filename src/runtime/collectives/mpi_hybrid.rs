//! Collectives over MPI with several devices per process (feature `mpi`): the model of a
//! multi-controller JAX job started with `devices:K` under `mpirun -np P`. Each process runs
//! its K local devices on their own threads; they meet in process, as [`InProcess`] devices
//! do, and one thread per process moves the process's contributions over MPI.
//!
//! - **Meeting**: a local device that reaches a collective deposits its buffers in a slot
//!   keyed by (group, sequence number with that group). The local member that completes the
//!   slot is the process's leader for that collective; the others wait.
//! - **Data**: when the group spans processes, the leader makes the process's one MPI
//!   exchange for the collective (MPI runs at thread level SERIALIZED): a fixed-size header
//!   (what each process runs, how many bytes it sends), then the concatenated operands of its
//!   local members, all-gathered over the communicator of the group's processes. It then
//!   runs the same [`exchange::run`] as the in-process runtime on every member's operands in
//!   group order, writing the results of the local members only. A reduction therefore
//!   folds member 0, 1, 2, ... element by element whatever the grouping: results equal the
//!   same program on P*K devices in one process, bit for bit. A group inside one process
//!   never touches MPI.
//! - **Communicators** are split from the world at the program's first run (a process may
//!   compile programs on several threads at once, but runs them in the same order as the
//!   others), one per distinct group that spans processes, ranked by each process's first
//!   member in the group. A process may belong to
//!   several groups of one op (`{0,2}` and `{1,3}` when it holds devices 0 and 1); splits
//!   are made in rounds in which no process is in two groups, the same rounds on every
//!   process.
//! - **Order check**: the header carries a fingerprint of the rendezvous (kind, channel,
//!   groups, pattern) and the sequence number;
//!   processes that meet in different collectives of one group stop with a mismatch naming
//!   both instead of combining unrelated data. Local members are compared the same way.
//! - **A process that dies**: every MPI wait is a non-blocking request polled against a
//!   deadline (the client's `collectives_timeout`). Open MPI 4.1 reports nothing about a
//!   peer that died (under `mpirun --enable-recovery`, which keeps the job running): a
//!   collective with it simply never completes. So a process whose wait passes the deadline
//!   makes a **roll call** on the world communicator, on a tag of its own: it sends one byte
//!   to every other process and waits a grace (the deadline, at most 5 s) for theirs. The
//!   survivors of a collective time out within moments of each other (they entered it
//!   together), so each hears the others, and the group's processes not heard from are
//!   named: the collective fails with [`CollectiveError::ProcessesGone`] (ranks, the
//!   collective, the devices). A process that is alive but more than a grace late is named
//!   too: it did not answer in time. The abandoned MPI requests and their buffers are
//!   leaked, never freed under MPI's feet, and from then on every collective over MPI in
//!   the process fails at once with the same error ([`job_lost`]); the first run's
//!   communicator splits, blocking in MPI, are preceded by a non-blocking barrier under
//!   the same deadline. When every process answers, the stall is not a death: the process
//!   prints which collective it waits in and for which devices, and aborts the job
//!   (`MPI_Abort`), as it does when a local member's wait for the others of its process
//!   passes the deadline: an MPI collective cannot be cancelled.
//!
//! This file holds the runtime, its meeting slots and communicator splits; the leader's
//! exchange is `leader_exchange.rs`'s, the all-reduce schedule `all_reduce.rs`'s and the
//! deadline's roll call `roll_call.rs`'s.
//!
//! [`InProcess`]: super::InProcess

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use mpi::topology::{Color, Communicator, SimpleCommunicator};
use mpi::traits::*;

use super::exchange::{Member, RawArray};
use super::mpi::MpiWorld;
use super::op::format_group;
use super::trace::Event;
use super::{
    ArrayView, ArrayViewMut, CollectiveError, CollectiveKind, CollectiveOp, Collectives,
    DeviceGrid, DeviceId, Reducer, Trace,
};
use crate::ir::Module;

mod all_reduce;
mod leader_exchange;
mod roll_call;

/// Serializes this process's MPI calls across the threads of its devices (MPI runs at
/// thread level SERIALIZED); held for one call at a time, never across a wait, so two local
/// leaders in different groups both make progress.
static MPI_CALLS: Mutex<()> = Mutex::new(());

fn mpi_calls() -> MutexGuard<'static, ()> {
    MPI_CALLS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The first [`CollectiveError::ProcessesGone`] of this process: a collective with a dead
/// member never completes, so every later one over MPI fails with it at once.
static JOB_LOST: OnceLock<CollectiveError> = OnceLock::new();

/// Why collectives over MPI fail in this process, once a process of the job is gone
/// (`MPI_Finalize` may wait for that process forever: skip it then).
pub fn job_lost() -> Option<&'static CollectiveError> {
    JOB_LOST.get()
}

/// The communicators of one loaded program: per group that spans processes and has a
/// member here, the communicator of its processes.
struct GroupComms {
    by_group: HashMap<Vec<DeviceId>, SimpleCommunicator>,
}

// SAFETY: MPI runs at thread level SERIALIZED and every call on these handles is made under
// `MPI_CALLS`, so by one thread at a time.
unsafe impl Send for GroupComms {}
unsafe impl Sync for GroupComms {}

/// The world communicator (to split from, and to abort the job on a stall).
struct World(SimpleCommunicator);

// SAFETY: as for `GroupComms`.
unsafe impl Send for World {}
unsafe impl Sync for World {}

/// A rendezvous key: the group and the sequence number of the collective with it.
type Key = (Vec<DeviceId>, u64);

/// One local member at a rendezvous.
struct Arrival {
    device: DeviceId,
    label: String,
    fingerprint: u64,
    member: Member,
    arrive: Instant,
}

/// A rendezvous of this process's members of one group.
struct Slot {
    /// Indexed by position among the group's local members.
    arrivals: Vec<Option<Arrival>>,
    /// Set once the results are written.
    done: Option<Result<(), CollectiveError>>,
    /// Members that have not left yet; the last one removes the slot.
    to_release: usize,
}

#[derive(Default)]
struct State {
    slots: HashMap<Key, Slot>,
    /// Per (device, group): collectives that device ran with that group.
    sequence: HashMap<(DeviceId, Vec<DeviceId>), u64>,
    failure: Option<CollectiveError>,
    events: Vec<Event>,
}

/// The [`Collectives`] of one MPI process running several devices of a grid; the process
/// of device `d` is `grid.physical(d)` (its MPI rank).
pub struct MpiHybrid {
    grid: DeviceGrid,
    rank: usize,
    /// How many processes the job has.
    size: usize,
    /// The devices this process runs, ascending.
    local: Vec<DeviceId>,
    world: World,
    /// Every group that spans processes, in module order (the same on every process).
    spanning: Vec<Vec<DeviceId>>,
    /// Groups of `spanning` split together: no process is in two groups of a round.
    rounds: Vec<Vec<usize>>,
    /// Split at the first run.
    comms: OnceLock<Result<GroupComms, CollectiveError>>,
    state: Mutex<State>,
    changed: Condvar,
    deadline: Duration,
    began: Instant,
}

/// Fixed-size header each process sends before its data: the op's fingerprint, the
/// sequence number, the data's byte length and the op's label.
const LABEL: usize = 80;
const HEADER: usize = 8 * 3 + LABEL;

impl MpiHybrid {
    /// The collectives of this process for `modules` (every device runs `modules[0]`, or
    /// device d runs `modules[d]`) on `grid`, whose device assignment names each device's
    /// process. The group communicators are split at the first run, which is collective
    /// over the world: every process runs the program, and its programs in the same order.
    pub fn new(
        world: &MpiWorld,
        modules: &[&Module],
        grid: &DeviceGrid,
        deadline: Duration,
    ) -> Result<MpiHybrid, CollectiveError> {
        let (rank, size) = {
            let _calls = mpi_calls();
            (world.rank(), world.size())
        };
        let process = |d: DeviceId| grid.physical(d) as usize;
        if let Some(d) = (0..grid.count()).find(|&d| process(d) >= size) {
            return Err(CollectiveError::BadOp(format!(
                "device {d} belongs to process {}, and the job has {size} processes",
                process(d)
            )));
        }
        let local: Vec<DeviceId> = (0..grid.count()).filter(|&d| process(d) == rank).collect();
        if local.is_empty() {
            return Err(CollectiveError::BadOp(format!(
                "process {rank} runs no device of the program"
            )));
        }
        // Every group that spans processes, in module order (the same on every process).
        let mut spanning: Vec<Vec<DeviceId>> = Vec::new();
        for module in modules {
            for &c in &module.order {
                for (_, instr) in module.computation(c).iter() {
                    if CollectiveKind::of(instr.opcode()).is_none() {
                        continue;
                    }
                    let op = CollectiveOp::from_instruction(module, instr, grid, None)?;
                    for g in op.groups {
                        if processes_of(grid, &g).len() > 1 && !spanning.contains(&g) {
                            spanning.push(g);
                        }
                    }
                }
            }
        }
        // Rounds of groups with no process in two of them: one world split per round.
        let mut rounds: Vec<(Vec<usize>, Vec<bool>)> = Vec::new();
        for (gi, g) in spanning.iter().enumerate() {
            let procs = processes_of(grid, g);
            let round = match rounds
                .iter_mut()
                .position(|(_, used)| procs.iter().all(|&p| !used[p]))
            {
                Some(r) => r,
                None => {
                    rounds.push((Vec::new(), vec![false; size]));
                    rounds.len() - 1
                }
            };
            rounds[round].0.push(gi);
            for p in procs {
                rounds[round].1[p] = true;
            }
        }
        Ok(MpiHybrid {
            grid: grid.clone(),
            rank,
            size,
            local,
            world: World(world.world()),
            spanning,
            rounds: rounds.into_iter().map(|(groups, _)| groups).collect(),
            comms: OnceLock::new(),
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            deadline,
            began: Instant::now(),
        })
    }

    /// The group communicators, split from the world at the program's first run: the
    /// splits are collective over the world, and every process runs its programs in the
    /// same order, while it may compile them on several threads at once.
    fn communicators(&self) -> Result<&GroupComms, CollectiveError> {
        self.comms
            .get_or_init(|| self.split())
            .as_ref()
            .map_err(Clone::clone)
    }

    fn split(&self) -> Result<GroupComms, CollectiveError> {
        let world = &self.world.0;
        // The splits block in MPI: first make sure every process is there, under the deadline.
        let others: Vec<DeviceId> = (0..self.grid.count())
            .filter(|&d| self.process(d) != self.rank)
            .collect();
        let barrier = {
            let _calls = mpi_calls();
            world.immediate_barrier()
        };
        self.wait(barrier, "the first run's communicator split", &others)?;
        let mut by_group = HashMap::new();
        let mut failed = None;
        for groups in &self.rounds {
            let mine = groups.iter().enumerate().find_map(|(color, &gi)| {
                processes_of(&self.grid, &self.spanning[gi])
                    .iter()
                    .position(|&p| p == self.rank)
                    .map(|key| (color, key, gi))
            });
            let _calls = mpi_calls();
            // Every process makes every split, even after one failed here, so that the
            // others' splits still pair.
            match mine {
                Some((color, key, gi)) => {
                    match world.split_by_color_with_key(Color::with_value(color as i32), key as i32)
                    {
                        Some(comm) => {
                            by_group.insert(self.spanning[gi].clone(), comm);
                        }
                        None => {
                            failed.get_or_insert(CollectiveError::BadOp(format!(
                                "MPI gave process {} no communicator for group {}",
                                self.rank,
                                format_group(&self.spanning[gi])
                            )));
                        }
                    }
                }
                None => {
                    world.split_by_color(Color::undefined());
                }
            }
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(GroupComms { by_group }),
        }
    }

    /// The devices this process runs, ascending.
    pub fn local_devices(&self) -> &[DeviceId] {
        &self.local
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn us(&self, t: Instant) -> f64 {
        t.duration_since(self.began).as_secs_f64() * 1e6
    }

    fn process(&self, d: DeviceId) -> usize {
        self.grid.physical(d) as usize
    }

    /// Records the first failure and wakes every local waiter.
    fn fail(&self, state: &mut State, e: CollectiveError) -> CollectiveError {
        let f = state.failure.get_or_insert(e).clone();
        self.changed.notify_all();
        f
    }
}

/// `n` zero bytes at a heap address even when `n` is 0: an empty `Vec`'s dangling address
/// is 1, which Open MPI reads as `MPI_IN_PLACE`.
fn buffer(n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n.max(1));
    v.resize(n, 0);
    v
}

/// A hash of what makes two devices' collectives one rendezvous, as in process: kind,
/// channel, groups, pattern, and whether it reduces (not the instruction: the two branches of
/// a conditional meet with different instructions). FNV-1a over the debug form: stable
/// across processes (std's hasher is seeded).
fn fingerprint(op: &CollectiveOp) -> u64 {
    let text = format!(
        "{}|{:?}|{:?}|{:?}|{}",
        op.kind,
        op.channel_id,
        op.groups,
        op.pattern,
        op.reduction.is_some()
    );
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The processes of `group`'s devices, in order of their first member.
fn processes_of(grid: &DeviceGrid, group: &[DeviceId]) -> Vec<usize> {
    let mut procs = Vec::new();
    for &d in group {
        let p = grid.physical(d) as usize;
        if !procs.contains(&p) {
            procs.push(p);
        }
    }
    procs
}

/// `s` cut to at most `max` bytes on a character boundary.
fn truncated(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `n` bytes as an MPI count.
fn count(n: usize) -> Result<i32, CollectiveError> {
    i32::try_from(n).map_err(|_| {
        CollectiveError::BadOp(format!(
            "one process's contribution of {n} bytes is more than MPI's {}",
            i32::MAX
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

impl Collectives for MpiHybrid {
    fn grid(&self) -> &DeviceGrid {
        &self.grid
    }

    fn start(&self, device: DeviceId) -> Result<(), CollectiveError> {
        if !self.local.contains(&device) {
            return Err(CollectiveError::BadOp(format!(
                "process {} runs devices {}, not device {device}",
                self.rank,
                format_group(&self.local)
            )));
        }
        if let Some(lost) = job_lost() {
            let mut state = self.lock();
            return Err(self.fail(&mut state, lost.clone()));
        }
        // The first local device to start splits the communicators; the others wait.
        self.communicators().map(drop)
    }

    fn collective(
        &self,
        device: DeviceId,
        op: &CollectiveOp,
        reducer: Option<&dyn Reducer>,
        operands: &[ArrayView<'_>],
        results: &mut [ArrayViewMut<'_>],
    ) -> Result<(), CollectiveError> {
        let arrive = Instant::now();
        let label = op.label();
        let Some((group, _)) = op.group_of(device) else {
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
        let local_members: Vec<DeviceId> = group
            .iter()
            .copied()
            .filter(|&d| self.process(d) == self.rank)
            .collect();
        let position = local_members
            .iter()
            .position(|&d| d == device)
            .ok_or_else(|| {
                CollectiveError::BadOp(format!(
                    "{label}: device {device} does not run in process {}",
                    self.rank
                ))
            })?;
        let mut state = self.lock();
        if let Some(f) = &state.failure {
            return Err(f.clone());
        }
        if let Some(lost) = job_lost() {
            return Err(self.fail(&mut state, lost.clone()));
        }
        let seq = {
            let s = state.sequence.entry((device, group.clone())).or_insert(0);
            *s += 1;
            *s - 1
        };
        let key: Key = (group.clone(), seq);
        let what = format!("{label} #{seq} (group {})", format_group(&group));
        let arrival = Arrival {
            device,
            label: label.clone(),
            fingerprint: fingerprint(op),
            member: Member::from_views(operands, results),
            arrive,
        };
        let slot = state.slots.entry(key.clone()).or_insert_with(|| Slot {
            arrivals: (0..local_members.len()).map(|_| None).collect(),
            done: None,
            to_release: local_members.len(),
        });
        if let Some(first) = slot.arrivals.iter().flatten().next()
            && first.fingerprint != arrival.fingerprint
        {
            let msg = format!(
                "{what}: device {} ({}) and device {device} ({label}) disagree",
                first.device, first.label
            );
            return Err(self.fail(&mut state, CollectiveError::Mismatch(msg)));
        }
        slot.arrivals[position] = Some(arrival);
        if slot.arrivals.iter().all(Option::is_some) {
            // This device is the process's leader for this collective: the others' buffers
            // stay valid because they wait for `done`.
            let members: Vec<Member> = slot
                .arrivals
                .iter()
                .flatten()
                .map(|a| a.member.clone())
                .collect();
            drop(state);
            let start = Instant::now();
            let outcome = self.exchange(op, &group, seq, &members, reducer);
            let end = Instant::now();
            drop(members);
            let mut state = self.lock();
            let slot = state
                .slots
                .get_mut(&key)
                .expect("the slot lives until released");
            slot.done = Some(outcome.clone());
            let arrivals: Vec<(DeviceId, String, Instant, u64, u64)> = slot
                .arrivals
                .iter()
                .flatten()
                .map(|a| {
                    let bytes = |v: &[RawArray]| v.iter().map(|r| r.len as u64).sum::<u64>();
                    (
                        a.device,
                        a.label.clone(),
                        a.arrive,
                        bytes(&a.member.operands),
                        bytes(&a.member.results),
                    )
                })
                .collect();
            for (d, op_label, arrived, bytes_in, bytes_out) in arrivals {
                let event = Event {
                    device: d,
                    op: op_label,
                    group: group.clone(),
                    sequence: seq,
                    bytes_in,
                    bytes_out,
                    arrive_us: self.us(arrived),
                    start_us: self.us(start),
                    end_us: self.us(end),
                };
                state.events.push(event);
            }
            release(&mut state, &key);
            if let Err(e) = outcome {
                return Err(self.fail(&mut state, e));
            }
            self.changed.notify_all();
            return Ok(());
        }
        // Wait for the leader. Only while some local member is missing does the deadline
        // run here; once the slot is complete the leader waits in MPI against its own. A
        // missing member may wait in MPI for a process that is gone: give its roll call
        // time to fail this process's collectives (which wakes this wait) before stopping.
        let waiting_since = Instant::now();
        let limit = self.deadline + self.grace();
        loop {
            let slot = state.slots.get(&key);
            if let Some(outcome) = slot.and_then(|s| s.done.clone()) {
                release(&mut state, &key);
                return outcome;
            }
            if let Some(f) = &state.failure {
                return Err(f.clone());
            }
            let missing: Vec<DeviceId> = slot
                .map(|s| {
                    local_members
                        .iter()
                        .zip(&s.arrivals)
                        .filter(|(_, a)| a.is_none())
                        .map(|(&d, _)| d)
                        .collect()
                })
                .unwrap_or_default();
            if missing.is_empty() {
                state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            let elapsed = waiting_since.elapsed();
            if elapsed > limit {
                self.stall(&what, &format!("devices {}", format_group(&missing)));
            }
            state = self
                .changed
                .wait_timeout(state, limit - elapsed)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn finish(&self, device: DeviceId, outcome: Result<(), String>) {
        if let Err(m) = outcome {
            let mut state = self.lock();
            self.fail(
                &mut state,
                CollectiveError::Aborted(format!("device {device} failed: {m}")),
            );
        }
    }

    fn failure(&self) -> Option<CollectiveError> {
        self.lock().failure.clone()
    }

    fn trace(&self) -> Trace {
        Trace {
            grid: Some(self.grid.clone()),
            mode: "mpi".into(),
            events: self.lock().events.clone(),
        }
    }
}

/// One member leaves the slot; the last removes it.
fn release(state: &mut State, key: &Key) {
    if let Some(slot) = state.slots.get_mut(key) {
        slot.to_release -= 1;
        if slot.to_release == 0 {
            state.slots.remove(key);
        }
    }
}
