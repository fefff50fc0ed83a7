//! The in-process implementation of [`Collectives`]: every device is a thread of this
//! process, and a rendezvous is a slot in one shared table, keyed by (op kind, channel,
//! group, how many collectives this device already ran with this group). Members deposit
//! the addresses of their buffers; the member that completes the slot moves the data for
//! all of them ([`exchange::run`]) while the others wait, then releases them.
//!
//! The deterministic scheduler hands one baton around: only the device holding it runs;
//! it passes the baton to the lowest-numbered runnable device when it blocks or returns.
//! When nobody is runnable but somebody waits, nothing can ever complete: the run stops
//! at once with the [`Report`]. The threaded scheduler lets every device run; it finds the
//! same deadlock the moment the last live device blocks, and a wait longer than the
//! deadline (a device stuck outside collectives) stops the run with the same report.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::exchange::{self, Member, RawArray};
use super::op::{CollectiveKind, CollectiveOp, Pattern};
use super::reduction::Reducer;
use super::report::{Cause, DeviceLine, DeviceState, Report, Waiting};
use super::trace::{Event, Trace};
use super::{
    ArrayView, ArrayViewMut, CollectiveError, CollectiveMode, Collectives, DeviceGrid, DeviceId,
};

/// Where a device is.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    /// Its thread has not called `start` yet (it may run: it will come).
    NotStarted,
    /// May run (deterministic: waits for the baton).
    Runnable,
    /// Running.
    Running,
    /// Waiting in the slot with this key.
    Blocked(Key),
    /// Returned.
    Returned,
    /// Failed.
    Failed(String),
}

/// A rendezvous: (kind, channel, group, the device's sequence number with that group).
type Key = (CollectiveKind, Option<i64>, Vec<DeviceId>, u64);

/// One member at a rendezvous.
struct Arrival {
    label: String,
    member: Member,
    pattern: Pattern,
    reduction: Option<String>,
    arrive: Instant,
}

/// A rendezvous in progress.
struct Slot {
    arrivals: Vec<Option<Arrival>>,
    /// Set once the data moved: the outcome, and when it started and ended.
    done: Option<(Result<(), CollectiveError>, Instant, Instant)>,
    /// Members that have not left yet; the last one removes the slot.
    to_release: usize,
}

struct Device {
    status: Status,
    /// Per group: collectives run with it.
    sequence: HashMap<Vec<DeviceId>, u64>,
    completed: u64,
    last_completed: Option<String>,
    waiting: Option<Waiting>,
}

struct State {
    devices: Vec<Device>,
    /// Deterministic: who holds the baton.
    baton: Option<DeviceId>,
    slots: HashMap<Key, Slot>,
    /// The first failure: every device stops with it.
    failure: Option<CollectiveError>,
    events: Vec<Event>,
}

/// N devices in this process.
pub struct InProcess {
    grid: DeviceGrid,
    mode: CollectiveMode,
    epoch: Instant,
    state: Mutex<State>,
    changed: Condvar,
}

impl InProcess {
    /// A grid of devices scheduled by `mode`.
    pub fn new(grid: DeviceGrid, mode: CollectiveMode) -> InProcess {
        let devices = (0..grid.count())
            .map(|_| Device {
                status: Status::NotStarted,
                sequence: HashMap::new(),
                completed: 0,
                last_completed: None,
                waiting: None,
            })
            .collect();
        let baton = (mode == CollectiveMode::Deterministic && grid.count() > 0).then_some(0);
        InProcess {
            grid,
            mode,
            epoch: Instant::now(),
            state: Mutex::new(State {
                devices,
                baton,
                slots: HashMap::new(),
                failure: None,
                events: Vec::new(),
            }),
            changed: Condvar::new(),
        }
    }

    /// One device, no other: what a plain single-device run uses.
    pub fn single() -> InProcess {
        InProcess::new(DeviceGrid::new(1, 1), CollectiveMode::Deterministic)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking device is caught and reported; the table stays usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn deterministic(&self) -> bool {
        self.mode == CollectiveMode::Deterministic
    }

    fn us(&self, t: Instant) -> f64 {
        t.duration_since(self.epoch).as_secs_f64() * 1e6
    }

    /// Deterministic: gives the baton to the lowest-numbered device that may run. If none
    /// may and some wait, that is a deadlock.
    fn pass_baton(&self, state: &mut State) {
        if self.deterministic() {
            state.baton = state
                .devices
                .iter()
                .position(|d| matches!(d.status, Status::NotStarted | Status::Runnable));
        }
        self.check_deadlock(state);
        self.changed.notify_all();
    }

    /// Stops the run when no device runs or may run and some device waits.
    fn check_deadlock(&self, state: &mut State) {
        if state.failure.is_some() {
            return;
        }
        let live = state.devices.iter().any(|d| {
            matches!(
                d.status,
                Status::NotStarted | Status::Runnable | Status::Running
            )
        });
        let waiting = state
            .devices
            .iter()
            .any(|d| matches!(d.status, Status::Blocked(_)));
        // A slot whose data is moving releases its members soon.
        let moving = state
            .slots
            .values()
            .any(|s| s.done.is_none() && s.arrivals.iter().all(Option::is_some));
        if !live && waiting && !moving {
            state.failure = Some(CollectiveError::Deadlock(
                self.report(state, Cause::Deadlock),
            ));
        }
    }

    /// Every device's position.
    fn report(&self, state: &State, cause: Cause) -> Report {
        let devices = state
            .devices
            .iter()
            .enumerate()
            .map(|(i, d)| DeviceLine {
                device: i,
                replica: self.grid.replica(i),
                partition: self.grid.partition(i),
                state: match &d.status {
                    Status::Blocked(key) => {
                        let mut w = d.waiting.clone().unwrap_or(Waiting {
                            op: String::new(),
                            group: key.2.clone(),
                            channel: key.1,
                            sequence: key.3,
                            missing: Vec::new(),
                        });
                        w.missing = match state.slots.get(key) {
                            Some(s) => key
                                .2
                                .iter()
                                .zip(&s.arrivals)
                                .filter(|(_, a)| a.is_none())
                                .map(|(&m, _)| m)
                                .collect(),
                            None => Vec::new(),
                        };
                        DeviceState::Waiting(w)
                    }
                    Status::Returned => DeviceState::Returned,
                    Status::Failed(m) => DeviceState::Failed(m.clone()),
                    _ => DeviceState::Running,
                },
                completed: d.completed,
                last_completed: d.last_completed.clone(),
            })
            .collect();
        Report { cause, devices }
    }

    /// Fails the whole run with `error` (the first failure wins) and wakes everyone.
    fn fail(&self, state: &mut State, error: CollectiveError) -> CollectiveError {
        if state.failure.is_none() {
            state.failure = Some(error);
        }
        self.changed.notify_all();
        state
            .failure
            .clone()
            .unwrap_or_else(|| CollectiveError::Aborted("failed".into()))
    }

    /// Waits until `ready` or a failure (or, threaded, the deadline).
    fn wait<'a>(
        &'a self,
        mut state: MutexGuard<'a, State>,
        device: DeviceId,
        ready: impl Fn(&State) -> bool,
    ) -> Result<MutexGuard<'a, State>, CollectiveError> {
        let deadline = match self.mode {
            CollectiveMode::Threaded { deadline } => Some((Instant::now() + deadline, deadline)),
            CollectiveMode::Deterministic => None,
        };
        loop {
            if ready(&state) {
                return Ok(state);
            }
            if let Some(f) = &state.failure {
                return Err(f.clone());
            }
            state = match deadline {
                None => self.changed.wait(state).unwrap_or_else(|e| e.into_inner()),
                Some((at, limit)) => {
                    let now = Instant::now();
                    if now >= at {
                        let cause = Cause::Deadline {
                            device,
                            seconds: limit.as_secs_f64(),
                        };
                        let report = self.report(&state, cause);
                        return Err(self.fail(&mut state, CollectiveError::Deadlock(report)));
                    }
                    self.changed
                        .wait_timeout(state, at - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
    }
}

/// `f32[4]`.
fn shape_text(a: &RawArray) -> String {
    crate::ir::Shape::Array(a.shape.clone()).to_string()
}

/// Why `b` cannot meet `a` at one rendezvous, if it cannot.
fn disagreement(a: &Arrival, b: &Arrival) -> Option<String> {
    if a.pattern != b.pattern {
        return Some(format!("{:?} vs {:?}", a.pattern, b.pattern));
    }
    // Reduction computations are named per program: only their presence must agree.
    if a.reduction.is_some() != b.reduction.is_some() {
        return Some("one reduces, the other does not".into());
    }
    if a.member.operands.len() != b.member.operands.len() {
        return Some(format!(
            "{} operands vs {}",
            a.member.operands.len(),
            b.member.operands.len()
        ));
    }
    for (x, y) in a.member.operands.iter().zip(&b.member.operands) {
        if x.shape.dims != y.shape.dims || x.shape.element_type != y.shape.element_type {
            return Some(format!("{} vs {}", shape_text(x), shape_text(y)));
        }
    }
    None
}

impl Collectives for InProcess {
    fn grid(&self) -> &DeviceGrid {
        &self.grid
    }

    fn start(&self, device: DeviceId) -> Result<(), CollectiveError> {
        let mut state = self.lock();
        if device >= state.devices.len() {
            return Err(CollectiveError::BadOp(format!(
                "device {device} is outside the {}x{} grid",
                self.grid.replicas, self.grid.partitions
            )));
        }
        state.devices[device].status = Status::Runnable;
        let deterministic = self.deterministic();
        let mut state = self.wait(state, device, |s| !deterministic || s.baton == Some(device))?;
        state.devices[device].status = Status::Running;
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
        let member = Member::from_views(operands, results);
        let Some((group, index)) = op.group_of(device) else {
            // Only a broadcast lets devices out: they get zeros.
            if op.kind == CollectiveKind::CollectiveBroadcast {
                for r in results.iter_mut() {
                    r.data.fill(0);
                }
                return Ok(());
            }
            return Err(CollectiveError::BadOp(format!(
                "{}: device {device} is in no replica group",
                op.label()
            )));
        };
        let group = group.to_vec();
        let label = op.label();
        let mut state = self.lock();
        if let Some(f) = &state.failure {
            return Err(f.clone());
        }
        let seq = {
            let s = state.devices[device]
                .sequence
                .entry(group.clone())
                .or_insert(0);
            *s += 1;
            *s - 1
        };
        let key: Key = (op.kind, op.channel_id, group.clone(), seq);
        let arrival = Arrival {
            label: label.clone(),
            member,
            pattern: op.pattern.clone(),
            reduction: op.reduction.clone(),
            arrive: Instant::now(),
        };
        let slot = state.slots.entry(key.clone()).or_insert_with(|| Slot {
            arrivals: (0..group.len()).map(|_| None).collect(),
            done: None,
            to_release: group.len(),
        });
        if let Some((other, first)) = slot
            .arrivals
            .iter()
            .enumerate()
            .find_map(|(i, a)| a.as_ref().map(|a| (group[i], a)))
            && let Some(why) = disagreement(first, &arrival)
        {
            let msg = format!(
                "{label} #{seq}: device {other} ({}) and device {device} ({label}) disagree: {why}",
                first.label
            );
            return Err(self.fail(&mut state, CollectiveError::Mismatch(msg)));
        }
        slot.arrivals[index] = Some(arrival);
        let complete = slot.arrivals.iter().all(Option::is_some);
        if complete {
            // This device moves the data for the whole group, outside the lock: the
            // others' buffers stay valid because they wait for `done`.
            let members: Vec<Member> = slot
                .arrivals
                .iter()
                .map(|a| a.as_ref().map(|a| a.member.clone()).unwrap_or_default())
                .collect();
            drop(state);
            let start = Instant::now();
            let outcome = exchange::run(op, &members, reducer)
                .map_err(|m| CollectiveError::Mismatch(format!("{label} #{seq}: {m}")));
            let end = Instant::now();
            let mut state = self.lock();
            let slot = state
                .slots
                .get_mut(&key)
                .expect("the slot lives until released");
            slot.done = Some((outcome.clone(), start, end));
            let arrivals: Vec<(DeviceId, Instant, u64, u64)> = group
                .iter()
                .zip(&slot.arrivals)
                .map(|(&d, a)| {
                    let a = a.as_ref().expect("complete");
                    let bytes = |v: &[RawArray]| v.iter().map(|r| r.len as u64).sum::<u64>();
                    (
                        d,
                        a.arrive,
                        bytes(&a.member.operands),
                        bytes(&a.member.results),
                    )
                })
                .collect();
            for (d, arrive, bytes_in, bytes_out) in arrivals {
                let event = Event {
                    device: d,
                    op: state.devices[d]
                        .waiting
                        .as_ref()
                        .map(|w| w.op.clone())
                        .unwrap_or_else(|| label.clone()),
                    group: group.clone(),
                    sequence: seq,
                    bytes_in,
                    bytes_out,
                    arrive_us: self.us(arrive),
                    start_us: self.us(start),
                    end_us: self.us(end),
                };
                state.events.push(event);
                if d != device && matches!(state.devices[d].status, Status::Blocked(_)) {
                    state.devices[d].status = Status::Runnable;
                }
            }
            let me = &mut state.devices[device];
            me.completed += 1;
            me.last_completed = Some(format!("{label} #{seq}"));
            let slot = state
                .slots
                .get_mut(&key)
                .expect("the slot lives until released");
            slot.to_release -= 1;
            if slot.to_release == 0 {
                state.slots.remove(&key);
            }
            if let Err(e) = &outcome {
                return Err(self.fail(&mut state, e.clone()));
            }
            // Threaded: the released members may run now; deterministic: they wait for
            // the baton, which this device keeps.
            self.changed.notify_all();
            return Ok(());
        }
        // Wait for the others.
        state.devices[device].status = Status::Blocked(key.clone());
        state.devices[device].waiting = Some(Waiting {
            op: label.clone(),
            group: group.clone(),
            channel: op.channel_id,
            sequence: seq,
            missing: Vec::new(),
        });
        self.pass_baton(&mut state);
        let deterministic = self.deterministic();
        let mut state = self.wait(state, device, |s| {
            s.slots.get(&key).is_some_and(|slot| slot.done.is_some())
                && (!deterministic || s.baton == Some(device))
        })?;
        let slot = state
            .slots
            .get_mut(&key)
            .expect("done slots live until released");
        let outcome = slot.done.as_ref().map(|d| d.0.clone()).unwrap_or(Ok(()));
        slot.to_release -= 1;
        if slot.to_release == 0 {
            state.slots.remove(&key);
        }
        let me = &mut state.devices[device];
        me.status = Status::Running;
        me.waiting = None;
        me.completed += 1;
        me.last_completed = Some(format!("{label} #{seq}"));
        outcome
    }

    fn finish(&self, device: DeviceId, outcome: Result<(), String>) {
        let mut state = self.lock();
        let Some(d) = state.devices.get_mut(device) else {
            return;
        };
        match outcome {
            Ok(()) => d.status = Status::Returned,
            Err(m) => {
                d.status = Status::Failed(m.clone());
                let error = CollectiveError::Aborted(format!("device {device} failed: {m}"));
                self.fail(&mut state, error);
            }
        }
        if state.baton == Some(device) || !self.deterministic() {
            self.pass_baton(&mut state);
        }
        self.changed.notify_all();
    }

    fn failure(&self) -> Option<CollectiveError> {
        self.lock().failure.clone()
    }

    fn trace(&self) -> Trace {
        let state = self.lock();
        Trace {
            grid: Some(self.grid.clone()),
            mode: match self.mode {
                CollectiveMode::Deterministic => "deterministic".into(),
                CollectiveMode::Threaded { .. } => "threaded".into(),
            },
            events: state.events.clone(),
        }
    }
}

impl InProcess {
    /// The deadline of the threaded scheduler.
    pub fn deadline(&self) -> Option<Duration> {
        match self.mode {
            CollectiveMode::Threaded { deadline } => Some(deadline),
            CollectiveMode::Deterministic => None,
        }
    }
}
