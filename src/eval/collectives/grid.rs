//! The process grid: R replicas x P partitions, each an [`Evaluator`] on its own thread,
//! meeting at rendezvous points to run collectives, and passing values through channels
//! (send/recv) and the infeed/outfeed queues.
//! StableHLO reference: `stablehlo/reference/ProcessGrid.cpp`, `Api.cpp` (`run_parallel`).
//!
//! A rendezvous is keyed by the participating processes and by how many collectives those
//! processes have already run together: SPMD programs run the same collectives in the
//! same order, so the n-th collective of a group on one process meets the n-th on the
//! others. Every process deposits its operands; when the last one arrives, all of them read
//! everybody's operands and compute their own result. A process that fails aborts the
//! grid, which wakes every waiting process with an error instead of letting it wait forever.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::eval::{EvalError, EvalResult};
use crate::ir::{BackendConfig, Instruction, Literal, Opcode};

/// A process of the grid: `(replica_id, partition_id)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProcessId {
    /// The replica (outer index of `programs`).
    pub replica_id: u32,
    /// The partition (inner index).
    pub partition_id: u32,
}

impl ProcessId {
    /// The process `(replica_id, partition_id)`.
    pub fn new(replica_id: u32, partition_id: u32) -> ProcessId {
        ProcessId {
            replica_id,
            partition_id,
        }
    }
}

/// How long a process waits for the others at a rendezvous or a `recv` before giving up:
/// a program that runs different collectives on different processes would otherwise hang.
const WAIT_LIMIT: Duration = Duration::from_secs(30);

/// Operands deposited at one rendezvous, by process.
type Contributions = HashMap<ProcessId, Vec<Literal>>;

/// One rendezvous in progress.
struct Slot {
    /// The collective, to catch processes that disagree on which op runs.
    opcode: Opcode,
    /// Operands deposited so far.
    values: Contributions,
    /// Set when everyone has arrived.
    done: Option<Arc<Contributions>>,
    /// Processes that have not read `done` yet; the last one removes the slot.
    readers_left: usize,
}

/// Everything the processes share, under one lock.
#[derive(Default)]
struct GridState {
    slots: HashMap<(Vec<ProcessId>, u64), Slot>,
    /// `send`/`recv` queues by channel id.
    channels: HashMap<i64, VecDeque<Literal>>,
    /// Values `infeed` pops, in order.
    infeed: VecDeque<Literal>,
    /// Values `outfeed` pushed, in order.
    outfeed: Vec<Literal>,
    /// Set when a process failed: the message, for the others.
    aborted: Option<String>,
    /// Processes whose program returned: nobody can wait for them any more.
    finished: HashSet<ProcessId>,
}

/// The grid of processes one `interpreter.run_parallel` runs (or the 1x1 grid of a plain
/// evaluation).
pub struct ProcessGrid {
    /// Number of replicas.
    pub num_replicas: u32,
    /// Number of partitions.
    pub num_partitions: u32,
    state: Mutex<GridState>,
    changed: Condvar,
}

impl ProcessGrid {
    /// An empty grid of `num_replicas x num_partitions` processes.
    pub fn new(num_replicas: u32, num_partitions: u32) -> ProcessGrid {
        ProcessGrid {
            num_replicas,
            num_partitions,
            state: Mutex::new(GridState::default()),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, GridState> {
        // A panicking process is caught and turned into an error, so a poisoned lock only
        // means one process died mid-update; the state is still usable for the others.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits on the condition variable until `ready` gives a result, the grid is aborted,
    /// or the wait limit passes.
    fn wait_for<T>(
        &self,
        what: &str,
        mut ready: impl FnMut(&mut GridState) -> Option<EvalResult<T>>,
    ) -> EvalResult<T> {
        let deadline = Instant::now() + WAIT_LIMIT;
        let mut state = self.lock();
        loop {
            if let Some(v) = ready(&mut state) {
                return v;
            }
            if let Some(why) = &state.aborted {
                return Err(EvalError::new(format!("{what}: {why}")));
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EvalError::new(format!(
                    "{what}: timed out after {}s waiting for the other processes",
                    WAIT_LIMIT.as_secs()
                )));
            }
            state = self
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Deposits `me`'s operands at rendezvous `key` (participants, sequence number) and
    /// returns everybody's once all participants have arrived.
    pub fn exchange(
        &self,
        opcode: Opcode,
        key: (Vec<ProcessId>, u64),
        me: ProcessId,
        values: Vec<Literal>,
    ) -> EvalResult<Arc<Contributions>> {
        let count = key.0.len();
        {
            let mut state = self.lock();
            let slot = state.slots.entry(key.clone()).or_insert_with(|| Slot {
                opcode,
                values: HashMap::new(),
                done: None,
                readers_left: count,
            });
            if slot.opcode != opcode {
                let msg = format!(
                    "processes disagree: `{}` meets `{}` at the same rendezvous",
                    opcode, slot.opcode
                );
                state.aborted = Some(msg.clone());
                self.changed.notify_all();
                return Err(EvalError::new(msg));
            }
            slot.values.insert(me, values);
            if slot.values.len() == count {
                slot.done = Some(Arc::new(std::mem::take(&mut slot.values)));
                self.changed.notify_all();
            }
        }
        self.wait_for(&format!("`{opcode}`"), |state| {
            let slot = state.slots.get_mut(&key)?;
            let Some(done) = slot.done.clone() else {
                // A participant that returned without coming here never will.
                let gone = key
                    .0
                    .iter()
                    .find(|p| state.finished.contains(p) && !slot.values.contains_key(p))?;
                return Some(Err(EvalError::new(format!(
                    "`{opcode}`: process ({}, {}) finished without joining it",
                    gone.replica_id, gone.partition_id
                ))));
            };
            slot.readers_left -= 1;
            if slot.readers_left == 0 {
                state.slots.remove(&key);
            }
            Some(Ok(done))
        })
    }

    /// `send`: queues `value` on `channel` (it does not wait for the receiver).
    pub fn send(&self, channel: i64, value: Literal) {
        self.lock()
            .channels
            .entry(channel)
            .or_default()
            .push_back(value);
        self.changed.notify_all();
    }

    /// `recv`: the oldest value sent on `channel`, waiting for one if needed.
    pub fn recv(&self, channel: i64) -> EvalResult<Literal> {
        let others = (self.num_replicas * self.num_partitions) as usize - 1;
        self.wait_for(&format!("recv on channel {channel}"), |state| {
            if let Some(v) = state
                .channels
                .get_mut(&channel)
                .and_then(VecDeque::pop_front)
            {
                return Some(Ok(v));
            }
            (state.finished.len() >= others).then(|| {
                Err(EvalError::new(format!(
                    "recv on channel {channel}: nothing was sent, and no process is left to send"
                )))
            })
        })
    }

    /// Appends a value to the infeed queue.
    pub fn push_infeed(&self, value: Literal) {
        self.lock().infeed.push_back(value);
    }

    /// `infeed`: the next value of the infeed queue.
    pub fn pop_infeed(&self) -> EvalResult<Literal> {
        self.lock()
            .infeed
            .pop_front()
            .ok_or_else(|| EvalError::new("infeed: the infeed queue is empty"))
    }

    /// `outfeed`: records a value.
    pub fn push_outfeed(&self, value: Literal) {
        self.lock().outfeed.push(value);
    }

    /// Everything outfed so far, in order.
    pub fn outfeed(&self) -> Vec<Literal> {
        self.lock().outfeed.clone()
    }

    /// Records that `process` returned, and wakes the processes that might wait for it.
    pub fn finish(&self, process: ProcessId) {
        self.lock().finished.insert(process);
        self.changed.notify_all();
    }

    /// Marks the grid failed (first reason wins) and wakes every waiting process.
    pub fn abort(&self, why: &str) {
        let mut state = self.lock();
        if state.aborted.is_none() {
            state.aborted = Some(format!("another process failed ({why})"));
        }
        self.changed.notify_all();
    }
}

/// Which process an evaluator is, and the grid it belongs to.
pub struct DeviceContext {
    /// This process's ids.
    pub process: ProcessId,
    /// The grid shared with the other processes.
    pub grid: Arc<ProcessGrid>,
    /// How many collectives this process has run with each set of participants: the
    /// sequence number of the next rendezvous with them.
    sequence: HashMap<Vec<ProcessId>, u64>,
    /// The device runtime this process's collectives go to, when it runs as a device.
    pub link: Option<Arc<dyn super::CollectiveLink>>,
}

impl DeviceContext {
    /// Process `process` of `grid`.
    pub fn new(grid: Arc<ProcessGrid>, process: ProcessId) -> DeviceContext {
        DeviceContext {
            process,
            grid,
            sequence: HashMap::new(),
            link: None,
        }
    }

    /// The only process of a fresh 1x1 grid.
    pub fn single() -> DeviceContext {
        DeviceContext::new(Arc::new(ProcessGrid::new(1, 1)), ProcessId::new(0, 0))
    }

    /// Runs one rendezvous with `participants` (which must include this process).
    pub fn exchange(
        &mut self,
        opcode: Opcode,
        participants: Vec<ProcessId>,
        values: Vec<Literal>,
    ) -> EvalResult<Arc<Contributions>> {
        let seq = self.sequence.entry(participants.clone()).or_insert(0);
        let key = (participants, *seq);
        *seq += 1;
        self.grid.exchange(opcode, key, self.process, values)
    }
}

/// The `backend_config` of `interpreter.run_parallel` (the op itself runs on the device
/// runtime: `runtime::collectives::run_parallel`).
#[derive(Debug, PartialEq)]
pub struct RunParallelConfig {
    /// Grid rows.
    pub num_replicas: u32,
    /// Grid columns.
    pub num_partitions: u32,
    /// Names of the computations whose results form the infeed queue.
    pub infeed: Vec<String>,
}

impl RunParallelConfig {
    /// Reads the op's `backend_config`.
    pub fn of(instr: &Instruction) -> EvalResult<RunParallelConfig> {
        let text = match &instr.backend_config {
            Some(BackendConfig::Json(t) | BackendConfig::Quoted(t)) => t.as_str(),
            None => "{}",
        };
        let bad = |why: &str| {
            EvalError::new(format!(
                "interpreter.run_parallel: bad backend_config `{text}`: {why}"
            ))
        };
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(&e.to_string()))?;
        let count = |name: &str| -> EvalResult<u32> {
            match json.get(name) {
                None => Ok(1),
                Some(v) => v
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|&n| n > 0)
                    .ok_or_else(|| bad(&format!("{name} must be a positive integer"))),
            }
        };
        let infeed = match json.get("infeed") {
            None => Vec::new(),
            Some(v) => v
                .as_array()
                .and_then(|a| {
                    a.iter()
                        .map(|s| s.as_str().map(|s| s.trim_start_matches('@').to_string()))
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| bad("infeed must be a list of function names"))?,
        };
        Ok(RunParallelConfig {
            num_replicas: count("num_replicas")?,
            num_partitions: count("num_partitions")?,
            infeed,
        })
    }
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}
