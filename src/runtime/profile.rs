//! Per-thunk wall time, for the report's "measured time" column (`xlac run --dump-to`,
//! `xlac bench --dump-to`). While a [`Profiling`] is alive on a thread, `run_sequence`
//! times each thunk it runs there and adds the time under the thunk's name; otherwise the
//! hook costs one thread-local read per thunk.
//!
//! What it is not: a sampling profiler or hardware counters. A thunk that runs in parallel
//! is timed from its start to its last task's end, as XLA's `--xla_cpu_enable_xprof`
//! thunk annotations do. Nested thunks (while bodies) are timed too, under their own names.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Duration;

use super::thunk::Thunk;

thread_local! {
    static TIMES: RefCell<Option<HashMap<String, (Duration, u64)>>> = const { RefCell::new(None) };
}

/// While alive, thunks run on this thread are timed.
pub struct Profiling {
    done: bool,
}

/// Summed time and number of executions per thunk name.
#[derive(Clone, Debug, Default)]
pub struct ThunkTimes {
    /// Name → (total time, times run).
    pub by_name: HashMap<String, (Duration, u64)>,
}

impl ThunkTimes {
    /// Mean milliseconds per execution of the whole program, given `runs` executions.
    pub fn mean_ms(&self, runs: usize) -> HashMap<String, f64> {
        self.by_name
            .iter()
            .map(|(k, (d, _))| (k.clone(), d.as_secs_f64() * 1e3 / runs.max(1) as f64))
            .collect()
    }
}

impl Profiling {
    /// Starts timing on this thread.
    pub fn start() -> Profiling {
        TIMES.with(|t| *t.borrow_mut() = Some(HashMap::new()));
        Profiling { done: false }
    }

    /// Stops timing and returns the times.
    pub fn finish(mut self) -> ThunkTimes {
        self.done = true;
        ThunkTimes {
            by_name: TIMES.with(|t| t.borrow_mut().take()).unwrap_or_default(),
        }
    }
}

impl Drop for Profiling {
    fn drop(&mut self) {
        if !self.done {
            TIMES.with(|t| *t.borrow_mut() = None);
        }
    }
}

/// True while a [`Profiling`] is alive on this thread.
pub fn is_on() -> bool {
    TIMES.with(|t| t.borrow().is_some())
}

/// Adds `elapsed` to the thunk's entry.
pub fn record(thunk: &Thunk, elapsed: Duration) {
    TIMES.with(|t| {
        if let Some(map) = t.borrow_mut().as_mut() {
            let e = map.entry(name(thunk).to_string()).or_default();
            e.0 += elapsed;
            e.1 += 1;
        }
    });
}

/// The instruction a thunk runs (the kernel's name for kernels and output fusions).
pub fn name(thunk: &Thunk) -> &str {
    match thunk {
        Thunk::Kernel(k) => &k.name,
        Thunk::OutputFusion { epilogue, .. } => &epilogue.name,
        Thunk::Dot(d) => &d.name,
        Thunk::Convolution(c) => &c.name,
        Thunk::Reference(r) => &r.name,
        Thunk::Library(l) => l.name(),
        Thunk::Rng(r) => &r.name,
        Thunk::Collective(c) => &c.instruction.name,
        Thunk::Copy { name, .. }
        | Thunk::DeviceIndex { name, .. }
        | Thunk::AliasCopy { name, .. }
        | Thunk::Constant { name, .. }
        | Thunk::While { name, .. }
        | Thunk::Conditional { name, .. }
        | Thunk::Call { name, .. } => name,
    }
}
