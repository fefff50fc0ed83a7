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
//! [`InProcess`]: super::InProcess

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::{Color, Communicator, SimpleCommunicator};
use mpi::traits::*;

use super::exchange::{self, Member, RawArray};
use super::mpi::MpiWorld;
use super::op::{Pattern, format_group};
use super::trace::Event;
use super::{
    ArrayView, ArrayViewMut, CollectiveError, CollectiveKind, CollectiveOp, Collectives,
    DeviceGrid, DeviceId, ProcessesGone, Reducer, Trace,
};
use crate::ir::{ArrayShape, Module};

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

/// The roll call's tag on the world communicator; nothing else sends on the world.
const ROLL_CALL_TAG: i32 = 0x7c1;
/// One roll call at a time in a process: two at once would each take only part of the
/// peers' answers. Later ones reuse the first's [`JOB_LOST`].
static ROLL_CALL: Mutex<()> = Mutex::new(());
/// The longest a roll call waits for the other processes' answers.
const ROLL_CALL_GRACE: Duration = Duration::from_secs(5);

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

    /// Says where this process waits and stops the job: a pending MPI collective cannot be
    /// cancelled, and the other processes wait in it too.
    fn stall(&self, what: &str, waiting_for: &str) -> ! {
        eprintln!(
            "error: collectives stalled: process {} (devices {}) waited more than {} s in {what} for {waiting_for}; stopping the job",
            self.rank,
            format_group(&self.local),
            self.deadline.as_secs_f64()
        );
        self.world.0.abort(3)
    }

    /// Waits for `request`, one MPI call at a time, against the deadline; `others` are the
    /// devices of other processes it waits for. Past the deadline, the request is abandoned
    /// (its buffers must then be leaked by the caller) and a roll call names the processes
    /// that are gone; when none is, the job stops.
    fn wait<'a, D: ?Sized, S: mpi::request::Scope<'a>>(
        &self,
        mut request: mpi::request::Request<'a, D, S>,
        what: &str,
        others: &[DeviceId],
    ) -> Result<(), CollectiveError> {
        let start = Instant::now();
        loop {
            let tested = {
                let _calls = mpi_calls();
                request.test()
            };
            match tested {
                Ok(_) => return Ok(()),
                Err(r) => request = r,
            }
            if start.elapsed() > self.deadline {
                // SAFETY: the request is never completed, tested or freed again; the
                // caller leaks the buffers MPI may still touch.
                let _abandoned = unsafe { request.into_raw() };
                return Err(self.processes_gone(what, others));
            }
            // Open MPI moves a large message only while some call drives its progress, so
            // keep testing; yielding leaves the core to devices that still compute.
            std::thread::yield_now();
        }
    }

    /// After a wait in `what` for `others` passed the deadline: the processes of `others`
    /// that do not answer a roll call, as the process's lasting failure. When every one
    /// answers, nothing is gone and the job stops.
    fn processes_gone(&self, what: &str, others: &[DeviceId]) -> CollectiveError {
        let _one = ROLL_CALL.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(lost) = job_lost() {
            return lost.clone();
        }
        let silent = self.roll_call();
        let ranks: Vec<usize> = processes_of(&self.grid, others)
            .into_iter()
            .filter(|p| silent.contains(p))
            .collect();
        if ranks.is_empty() {
            let waiting_for = format!(
                "devices {} (every process answered a roll call)",
                format_group(others)
            );
            self.stall(what, &waiting_for);
        }
        let mut ranks = ranks;
        ranks.sort_unstable();
        let gone = CollectiveError::ProcessesGone(ProcessesGone {
            devices: others
                .iter()
                .copied()
                .filter(|&d| ranks.contains(&self.process(d)))
                .collect(),
            ranks,
            job_size: self.size,
            grace: self.grace(),
            collective: what.to_string(),
        });
        JOB_LOST.get_or_init(|| gone).clone()
    }

    fn grace(&self) -> Duration {
        self.deadline.min(ROLL_CALL_GRACE)
    }

    /// Sends one byte to every other process of the world on [`ROLL_CALL_TAG`] and waits
    /// up to the grace for theirs; returns the processes not heard from. The peers' bytes
    /// may have arrived long before (they timed out first): MPI keeps them until received.
    fn roll_call(&self) -> Vec<usize> {
        use mpi::ffi;
        static TOKEN: [u8; 1] = [1];
        let world = self.world.0.as_raw();
        let peers: Vec<usize> = (0..self.size).filter(|&p| p != self.rank).collect();
        // Leaked: a receive that is cancelled late could still write into it.
        let inbox: &'static mut [u8] = Box::leak(vec![0u8; self.size].into_boxed_slice());
        // SAFETY (every block below): plain MPI calls under `MPI_CALLS` on live handles;
        // the buffers are static or leaked, so outlive the requests.
        let null = unsafe { ffi::RSMPI_REQUEST_NULL };
        let mut receives = vec![null; self.size];
        let mut sends = vec![null; self.size];
        {
            let _calls = mpi_calls();
            for &p in &peers {
                unsafe {
                    ffi::MPI_Irecv(
                        inbox[p..].as_mut_ptr().cast(),
                        1,
                        ffi::RSMPI_UINT8_T,
                        p as i32,
                        ROLL_CALL_TAG,
                        world,
                        &mut receives[p],
                    );
                    ffi::MPI_Isend(
                        TOKEN.as_ptr().cast(),
                        1,
                        ffi::RSMPI_UINT8_T,
                        p as i32,
                        ROLL_CALL_TAG,
                        world,
                        &mut sends[p],
                    );
                }
            }
        }
        let start = Instant::now();
        let mut heard = vec![false; self.size];
        loop {
            {
                let _calls = mpi_calls();
                for &p in &peers {
                    if !heard[p] {
                        let mut flag = 0;
                        unsafe {
                            ffi::MPI_Test(&mut receives[p], &mut flag, ffi::RSMPI_STATUS_IGNORE)
                        };
                        heard[p] = flag != 0;
                    }
                    if sends[p] != null {
                        let mut flag = 0;
                        unsafe {
                            ffi::MPI_Test(&mut sends[p], &mut flag, ffi::RSMPI_STATUS_IGNORE)
                        };
                    }
                }
            }
            if peers.iter().all(|&p| heard[p]) || start.elapsed() > self.grace() {
                break;
            }
            std::thread::yield_now();
        }
        // Leave no receive pending that a later message could match; sends still pending
        // go to processes that are gone.
        let _calls = mpi_calls();
        for &p in &peers {
            unsafe {
                if receives[p] != null {
                    ffi::MPI_Cancel(&mut receives[p]);
                    ffi::MPI_Request_free(&mut receives[p]);
                }
                if sends[p] != null {
                    ffi::MPI_Request_free(&mut sends[p]);
                }
            }
        }
        peers.into_iter().filter(|&p| !heard[p]).collect()
    }

    /// All-gathers `mine` (the same length everywhere) over `comm`.
    fn all_gather(
        &self,
        comm: &SimpleCommunicator,
        mine: Vec<u8>,
        what: &str,
        others: &[DeviceId],
    ) -> Result<Vec<u8>, CollectiveError> {
        let mut all = vec![0u8; mine.len() * comm.size() as usize];
        let waited = mpi::request::scope(|scope| {
            let request = {
                let _calls = mpi_calls();
                comm.immediate_all_gather_into(scope, &mine[..], &mut all[..])
            };
            self.wait(request, what, others)
        });
        if let Err(e) = waited {
            // The abandoned collective may still read and write them.
            std::mem::forget((mine, all));
            return Err(e);
        }
        Ok(all)
    }

    /// All-gathers `mine` over `comm` when every process's length is `lens[rank]`.
    fn all_gather_varcount(
        &self,
        comm: &SimpleCommunicator,
        mine: Vec<u8>,
        lens: &[i32],
        what: &str,
        others: &[DeviceId],
    ) -> Result<(Vec<u8>, Vec<i32>), CollectiveError> {
        let displs = displacements(lens)?;
        let total: usize = lens.iter().map(|&l| l as usize).sum();
        let mut all = buffer(total);
        let waited = {
            let mut partition = PartitionMut::new(&mut all[..], lens, &displs[..]);
            mpi::request::scope(|scope| {
                let request = {
                    let _calls = mpi_calls();
                    comm.immediate_all_gather_varcount_into(scope, &mine[..], &mut partition)
                };
                self.wait(request, what, others)
            })
        };
        if let Err(e) = waited {
            // The abandoned collective may still read and write them (and the counts).
            std::mem::forget((mine, all, displs));
            return Err(e);
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
        let comm = self.communicators()?.by_group.get(group).ok_or_else(|| {
            CollectiveError::BadOp(format!("{what}: the group was not split at load"))
        })?;
        let member_bytes: usize = local[0].operands.iter().map(|o| o.len).sum();
        let mine_len: usize = local
            .iter()
            .map(|m| m.operands.iter().map(|o| o.len).sum::<usize>())
            .sum();
        if mine_len != member_bytes * local.len() {
            return Err(CollectiveError::Mismatch(format!(
                "{what}: the local members' operands differ in size"
            )));
        }
        let others: Vec<DeviceId> = group
            .iter()
            .copied()
            .filter(|&d| self.process(d) != self.rank)
            .collect();
        // The header: what this process runs, and how much it sends.
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(&fingerprint(op).to_le_bytes());
        header.extend_from_slice(&seq.to_le_bytes());
        header.extend_from_slice(&(count(mine_len)? as u64).to_le_bytes());
        let mut text = [0u8; LABEL];
        let b = truncated(&label, LABEL).as_bytes();
        text[..b.len()].copy_from_slice(b);
        header.extend_from_slice(&text);
        let headers = self.all_gather(comm, header, &what, &others)?;
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
        if op.pattern == Pattern::AllReduce {
            let reducer = reducer.ok_or_else(|| {
                CollectiveError::BadOp(format!("{what}: all-reduce needs a reduction"))
            })?;
            for m in local {
                let same = m.results.len() == m.operands.len()
                    && m.results.iter().zip(&m.operands).all(|(r, o)| {
                        r.len == o.len && r.shape.element_type == o.shape.element_type
                    });
                if !same {
                    return Err(CollectiveError::Mismatch(format!(
                        "{what}: results are not shaped as the operands"
                    )));
                }
            }
            return self.all_reduce(group, &procs, local, reducer, comm, &what, &others);
        }
        let mut mine = Vec::with_capacity(mine_len.max(1));
        for m in local {
            for o in &m.operands {
                // SAFETY: the member's owner waits in this rendezvous until it is done.
                mine.extend_from_slice(unsafe { std::slice::from_raw_parts(o.ptr, o.len) });
            }
        }
        let (all, displs) = self.all_gather_varcount(comm, mine, &lens, &what, &others)?;
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

impl MpiHybrid {
    /// An all-reduce over processes on a reduce-scatter + all-gather schedule: process i
    /// of the group's P receives element chunk i of every member's operands (all-to-all),
    /// folds them in group order, and the reduced chunks are all-gathered. Each element is
    /// still folded member 0, 1, 2, ... by the same [`exchange::run`], so the bits equal
    /// the in-process run; each process receives about 2 (P-1)/P of the array where
    /// all-gathering the operands receives P-1 of them, and adds only its chunk.
    #[allow(clippy::too_many_arguments)]
    fn all_reduce(
        &self,
        group: &[DeviceId],
        procs: &[usize],
        local: &[Member],
        reducer: &dyn Reducer,
        comm: &SimpleCommunicator,
        what: &str,
        others: &[DeviceId],
    ) -> Result<(), CollectiveError> {
        let p = procs.len();
        let me = procs.iter().position(|&q| q == self.rank).unwrap_or(0);
        let members_of = |i: usize| {
            group
                .iter()
                .filter(|&&d| self.process(d) == procs[i])
                .count()
        };
        let operands = &local[0].operands;
        // Per operand: element size and the chunk boundaries (in elements).
        let sizes: Vec<usize> = operands
            .iter()
            .map(|o| o.shape.element_type.byte_size().max(1))
            .collect();
        let bounds: Vec<Vec<usize>> = operands
            .iter()
            .zip(&sizes)
            .map(|(o, &s)| (0..=p).map(|i| o.len / s * i / p).collect())
            .collect();
        // Bytes of chunk `i` of one member (every operand's chunk i, one after another).
        let chunk_bytes = |i: usize| -> usize {
            bounds
                .iter()
                .zip(&sizes)
                .map(|(b, &s)| (b[i + 1] - b[i]) * s)
                .sum()
        };
        // To process i: chunk i of every local member, in group order.
        let mut send = Vec::with_capacity(
            (local.len() * operands.iter().map(|o| o.len).sum::<usize>()).max(1),
        );
        let mut send_counts = Vec::with_capacity(p);
        for i in 0..p {
            for m in local {
                for ((o, b), &s) in m.operands.iter().zip(&bounds).zip(&sizes) {
                    // SAFETY: the member's owner waits in this rendezvous until it is done.
                    let bytes = unsafe { std::slice::from_raw_parts(o.ptr, o.len) };
                    send.extend_from_slice(&bytes[b[i] * s..b[i + 1] * s]);
                }
            }
            send_counts.push(count(local.len() * chunk_bytes(i))?);
        }
        let recv_counts: Vec<i32> = (0..p)
            .map(|i| count(members_of(i) * chunk_bytes(me)))
            .collect::<Result<_, _>>()?;
        let send_displs = displacements(&send_counts)?;
        let recv_displs = displacements(&recv_counts)?;
        let mut received = buffer(recv_counts.iter().map(|&c| c as usize).sum());
        let waited = {
            let send_part = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
            let mut recv_part =
                PartitionMut::new(&mut received[..], &recv_counts[..], &recv_displs[..]);
            mpi::request::scope(|scope| {
                let request = {
                    let _calls = mpi_calls();
                    comm.immediate_all_to_all_varcount_into(scope, &send_part, &mut recv_part)
                };
                self.wait(request, what, others)
            })
        };
        if let Err(e) = waited {
            // The abandoned collective may still read and write them.
            std::mem::forget((send, send_counts, send_displs));
            std::mem::forget((received, recv_counts, recv_displs));
            return Err(e);
        }
        // Fold this process's chunk over every member in group order.
        let mine = chunk_bytes(me);
        let mut reduced = buffer(mine);
        let chunk_shapes: Vec<ArrayShape> = operands
            .iter()
            .zip(&bounds)
            .map(|(o, b)| ArrayShape::new(o.shape.element_type, &[(b[me + 1] - b[me]) as i64]))
            .collect();
        let mut taken = vec![0usize; p];
        let mut members = Vec::with_capacity(group.len());
        for (k, &d) in group.iter().enumerate() {
            let i = procs
                .iter()
                .position(|&q| q == self.process(d))
                .unwrap_or(0);
            let mut at = recv_displs[i] as usize + taken[i] * mine;
            taken[i] += 1;
            let mut out_at = 0;
            let mut ops = Vec::with_capacity(operands.len());
            let mut results = Vec::with_capacity(operands.len());
            for (shape, (b, &s)) in chunk_shapes.iter().zip(bounds.iter().zip(&sizes)) {
                let len = (b[me + 1] - b[me]) * s;
                ops.push(RawArray {
                    shape: shape.clone(),
                    ptr: received[at..].as_ptr() as *mut u8,
                    len,
                });
                results.push(RawArray {
                    shape: shape.clone(),
                    ptr: if k == 0 {
                        reduced[out_at..].as_mut_ptr()
                    } else {
                        std::ptr::null_mut()
                    },
                    len,
                });
                at += len;
                out_at += len;
            }
            members.push(Member {
                operands: ops,
                results,
                elsewhere: k != 0,
            });
        }
        if mine > 0 {
            // Operands are read through these pointers while `received` lives; only
            // member 0's results, in `reduced`, are written.
            exchange::run(&fold_op(), &members, Some(reducer))
                .map_err(|m| CollectiveError::Mismatch(format!("{what}: {m}")))?;
        }
        drop(members);
        // Every process's reduced chunk, to every process.
        let lens: Vec<i32> = (0..p)
            .map(|i| count(chunk_bytes(i)))
            .collect::<Result<_, _>>()?;
        let (all, displs) = self.all_gather_varcount(comm, reduced, &lens, what, others)?;
        for m in local {
            for i in 0..p {
                let mut at = displs[i] as usize;
                for ((r, b), &s) in m.results.iter().zip(&bounds).zip(&sizes) {
                    let len = (b[i + 1] - b[i]) * s;
                    // SAFETY: the member's owner waits in this rendezvous; results of
                    // different members never overlap.
                    let out = unsafe { std::slice::from_raw_parts_mut(r.ptr, r.len) };
                    out[b[i] * s..b[i] * s + len].copy_from_slice(&all[at..at + len]);
                    at += len;
                }
            }
        }
        Ok(())
    }
}

/// The op the chunk fold runs: an all-reduce (its groups and name are not read).
fn fold_op() -> CollectiveOp {
    CollectiveOp {
        name: "chunk".into(),
        kind: CollectiveKind::AllReduce,
        pattern: Pattern::AllReduce,
        channel_id: None,
        groups: Vec::new(),
        reduction: None,
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
