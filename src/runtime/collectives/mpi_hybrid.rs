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
//! - **Communicators** are split from the world at load, one per distinct group that spans
//!   processes, ranked by each process's first member in the group. A process may belong to
//!   several groups of one op (`{0,2}` and `{1,3}` when it holds devices 0 and 1); splits
//!   are made in rounds in which no process is in two groups, the same rounds on every
//!   process.
//! - **Order check**: the header carries a fingerprint of the op and the sequence number;
//!   processes that meet in different collectives of one group stop with a mismatch naming
//!   both instead of combining unrelated data. Local members are compared the same way.
//! - **Stalls**: every MPI wait is a non-blocking request polled against a deadline, and so
//!   is a local member's wait for the others of its process. Past it, the process prints
//!   which collective it waits in and for which devices, and aborts the job (`MPI_Abort`):
//!   an MPI collective cannot be cancelled.
//!
//! [`InProcess`]: super::InProcess

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mpi::datatype::PartitionMut;
use mpi::topology::{Color, Communicator, SimpleCommunicator};
use mpi::traits::*;

use super::exchange::{self, Member, RawArray};
use super::mpi::{MpiWorld, fingerprint};
use super::op::format_group;
use super::trace::Event;
use super::{
    ArrayView, ArrayViewMut, CollectiveError, CollectiveKind, CollectiveOp, Collectives,
    DeviceGrid, DeviceId, Reducer, Trace,
};
use crate::ir::Module;

/// Serializes this process's MPI calls across the threads of its devices (MPI runs at
/// thread level SERIALIZED); held for one call at a time, never across a wait, so two local
/// leaders in different groups both make progress.
static MPI_CALLS: Mutex<()> = Mutex::new(());

fn mpi_calls() -> MutexGuard<'static, ()> {
    MPI_CALLS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The communicators of one loaded program.
struct GroupComms {
    world: SimpleCommunicator,
    /// Per group that spans processes and has a member here: the communicator of its
    /// processes.
    by_group: HashMap<Vec<DeviceId>, SimpleCommunicator>,
}

// SAFETY: MPI runs at thread level SERIALIZED and every call on these handles is made under
// `MPI_CALLS`, so by one thread at a time.
unsafe impl Send for GroupComms {}
unsafe impl Sync for GroupComms {}

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
    /// The devices this process runs, ascending.
    local: Vec<DeviceId>,
    comms: GroupComms,
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
    /// process. Splits the group communicators: collective over the world, so every process
    /// calls this with the same modules, in the same order.
    pub fn new(
        world: &MpiWorld,
        modules: &[&Module],
        grid: &DeviceGrid,
        deadline: Duration,
    ) -> Result<MpiHybrid, CollectiveError> {
        let rank = world.rank();
        let size = world.size();
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
        let world_comm = world.world();
        let mut by_group = HashMap::new();
        for (groups, _) in &rounds {
            let mine = groups.iter().enumerate().find_map(|(color, &gi)| {
                let procs = processes_of(grid, &spanning[gi]);
                procs
                    .iter()
                    .position(|&p| p == rank)
                    .map(|key| (color, key, gi))
            });
            let _calls = mpi_calls();
            match mine {
                Some((color, key, gi)) => {
                    let comm = world_comm
                        .split_by_color_with_key(Color::with_value(color as i32), key as i32)
                        .ok_or_else(|| {
                            CollectiveError::BadOp(format!(
                                "MPI gave process {rank} no communicator for group {}",
                                format_group(&spanning[gi])
                            ))
                        })?;
                    by_group.insert(spanning[gi].clone(), comm);
                }
                None => {
                    world_comm.split_by_color(Color::undefined());
                }
            }
        }
        Ok(MpiHybrid {
            grid: grid.clone(),
            rank,
            local,
            comms: GroupComms {
                world: world_comm,
                by_group,
            },
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            deadline,
            began: Instant::now(),
        })
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

    /// Says where this process waits and stops the job: a pending MPI collective cannot be
    /// cancelled, and the other processes wait in it too.
    fn stall(&self, what: &str, waiting_for: &str) -> ! {
        eprintln!(
            "error: collectives stalled: process {} (devices {}) waited more than {} s in {what} for {waiting_for}; stopping the job",
            self.rank,
            format_group(&self.local),
            self.deadline.as_secs_f64()
        );
        self.comms.world.abort(3)
    }

    /// Waits for `request`, one MPI call at a time, against the deadline.
    fn wait<'a, D: ?Sized, S: mpi::request::Scope<'a>>(
        &self,
        mut request: mpi::request::Request<'a, D, S>,
        what: &str,
        waiting_for: &str,
    ) {
        let start = Instant::now();
        loop {
            let tested = {
                let _calls = mpi_calls();
                request.test()
            };
            match tested {
                Ok(_) => return,
                Err(r) => request = r,
            }
            if start.elapsed() > self.deadline {
                self.stall(what, waiting_for);
            }
            // Open MPI moves a large message only while some call drives its progress, so
            // keep testing; yielding leaves the core to devices that still compute.
            std::thread::yield_now();
        }
    }

    /// All-gathers `mine` (the same length everywhere) over `comm`.
    fn all_gather(
        &self,
        comm: &SimpleCommunicator,
        mine: &[u8],
        what: &str,
        waiting_for: &str,
    ) -> Vec<u8> {
        let mut all = vec![0u8; mine.len() * comm.size() as usize];
        mpi::request::scope(|scope| {
            let request = {
                let _calls = mpi_calls();
                comm.immediate_all_gather_into(scope, mine, &mut all[..])
            };
            self.wait(request, what, waiting_for);
        });
        all
    }

    /// All-gathers `mine` over `comm` when every process's length is `lens[rank]`.
    fn all_gather_varcount(
        &self,
        comm: &SimpleCommunicator,
        mine: &[u8],
        lens: &[i32],
        what: &str,
        waiting_for: &str,
    ) -> Result<(Vec<u8>, Vec<i32>), CollectiveError> {
        let displs = displacements(lens)?;
        let total: usize = lens.iter().map(|&l| l as usize).sum();
        let mut all = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut all[..], lens, &displs[..]);
            mpi::request::scope(|scope| {
                let request = {
                    let _calls = mpi_calls();
                    comm.immediate_all_gather_varcount_into(scope, mine, &mut partition)
                };
                self.wait(request, what, waiting_for);
            });
        }
        Ok((all, displs))
    }

    /// The leader's part: every member's operands in group order, from this process's
    /// `local` arrivals (in group order) and, for a group that spans processes, the others'
    /// over MPI; then the results of the local members.
    fn exchange(
        &self,
        op: &CollectiveOp,
        group: &[DeviceId],
        seq: u64,
        local: &[Member],
        reducer: Option<&dyn Reducer>,
    ) -> Result<(), CollectiveError> {
        let label = op.label();
        let what = format!("{label} #{seq} (group {})", format_group(group));
        let procs = processes_of(&self.grid, group);
        if procs.len() == 1 {
            return exchange::run(op, local, reducer)
                .map_err(|m| CollectiveError::Mismatch(format!("{what}: {m}")));
        }
        let comm = self.comms.by_group.get(group).ok_or_else(|| {
            CollectiveError::BadOp(format!("{what}: the group was not split at load"))
        })?;
        let member_bytes: usize = local[0].operands.iter().map(|o| o.len).sum();
        let mut mine = Vec::with_capacity(member_bytes * local.len());
        for m in local {
            for o in &m.operands {
                // SAFETY: the member's owner waits in this rendezvous until it is done.
                mine.extend_from_slice(unsafe { std::slice::from_raw_parts(o.ptr, o.len) });
            }
        }
        if mine.len() != member_bytes * local.len() {
            return Err(CollectiveError::Mismatch(format!(
                "{what}: the local members' operands differ in size"
            )));
        }
        let others: Vec<DeviceId> = group
            .iter()
            .copied()
            .filter(|&d| self.process(d) != self.rank)
            .collect();
        let waiting_for = format!("devices {}", format_group(&others));
        // The header: what this process runs, and how much it sends.
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(&fingerprint(op).to_le_bytes());
        header.extend_from_slice(&seq.to_le_bytes());
        header.extend_from_slice(&(count(mine.len())? as u64).to_le_bytes());
        let mut text = [0u8; LABEL];
        let b = truncated(&label, LABEL).as_bytes();
        text[..b.len()].copy_from_slice(b);
        header.extend_from_slice(&text);
        let headers = self.all_gather(comm, &header, &what, &waiting_for);
        let mut lens = Vec::with_capacity(procs.len());
        for (i, h) in headers.chunks_exact(HEADER).enumerate() {
            let word = |k: usize| u64::from_le_bytes(h[8 * k..8 * k + 8].try_into().unwrap());
            if word(0) != fingerprint(op) || word(1) != seq {
                let end = h[24..].iter().position(|&c| c == 0).unwrap_or(LABEL);
                let theirs = String::from_utf8_lossy(&h[24..24 + end]);
                return Err(CollectiveError::Mismatch(format!(
                    "{what}: process {} runs {theirs} #{} with this group while process {} runs {label} #{seq}",
                    procs[i],
                    word(1),
                    self.rank
                )));
            }
            let expected = member_bytes
                * group
                    .iter()
                    .filter(|&&d| self.process(d) == procs[i])
                    .count();
            if word(2) as usize != expected {
                return Err(CollectiveError::Mismatch(format!(
                    "{what}: process {} sent {} operand bytes, {expected} expected",
                    procs[i],
                    word(2)
                )));
            }
            lens.push(word(2) as i32);
        }
        let (all, displs) = self.all_gather_varcount(comm, &mine, &lens, &what, &waiting_for)?;
        // Every member in group order: local ones as they arrived, the others' operands
        // from the gathered bytes (their results are on their own processes).
        let mut taken = vec![0usize; procs.len()];
        let mut next_local = 0;
        let mut members = Vec::with_capacity(group.len());
        for &d in group {
            let p = self.process(d);
            if p == self.rank {
                members.push(local[next_local].clone());
                next_local += 1;
                continue;
            }
            let i = procs.iter().position(|&q| q == p).unwrap_or(0);
            let mut at = displs[i] as usize + taken[i] * member_bytes;
            taken[i] += 1;
            let operands = local[0]
                .operands
                .iter()
                .map(|o| {
                    let a = RawArray {
                        shape: o.shape.clone(),
                        ptr: all[at..].as_ptr() as *mut u8,
                        len: o.len,
                    };
                    at += o.len;
                    a
                })
                .collect();
            let results = local[0]
                .results
                .iter()
                .map(|r| RawArray {
                    shape: r.shape.clone(),
                    ptr: std::ptr::null_mut(),
                    len: r.len,
                })
                .collect();
            members.push(Member {
                operands,
                results,
                elsewhere: true,
            });
        }
        // Operands are read, never written, through these pointers: `all` outlives
        // `members`; results of members elsewhere are never dereferenced.
        exchange::run(op, &members, reducer)
            .map_err(|m| CollectiveError::Mismatch(format!("{what}: {m}")))
    }
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

/// The caller's views as addresses for the slot.
fn raw(operands: &[ArrayView<'_>], results: &mut [ArrayViewMut<'_>]) -> Member {
    Member {
        operands: operands
            .iter()
            .map(|v| RawArray {
                shape: v.shape.clone(),
                ptr: v.data.as_ptr() as *mut u8,
                len: v.data.len(),
            })
            .collect(),
        results: results
            .iter_mut()
            .map(|v| RawArray {
                shape: v.shape.clone(),
                ptr: v.data.as_mut_ptr(),
                len: v.data.len(),
            })
            .collect(),
        elsewhere: false,
    }
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
            member: raw(operands, results),
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
        // run here; once the slot is complete the leader waits in MPI against its own.
        let waiting_since = Instant::now();
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
            if elapsed > self.deadline {
                self.stall(&what, &format!("devices {}", format_group(&missing)));
            }
            state = self
                .changed
                .wait_timeout(state, self.deadline - elapsed)
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
