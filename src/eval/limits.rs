//! Limits on one run, shared by the interpreter and the compiled runtime (whose library
//! thunks already carry an [`Evaluator`](super::Evaluator)): a wall-clock timeout, a cap
//! on the iterations of any one `while` loop, Ctrl-C, and a [`Cancel`] flag another thread
//! raises (`xlac serve` when its controller hangs up). All are checked at every `while`
//! iteration, the only place a valid program can run for ever.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set by the Ctrl-C handler of the command line; every while loop stops at its next
/// iteration.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Asks every running loop to stop (the Ctrl-C handler calls it).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// True once [`interrupt`] was called.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// A flag that stops a run at its next while iteration once raised from any thread. Clones
/// share the flag; two are equal when they are the same flag.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag not raised yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Raises the flag: every run holding it stops at its next while iteration.
    pub fn raise(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// True once raised.
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl PartialEq for Cancel {
    fn eq(&self, other: &Cancel) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The limits of one run. The default has none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunLimits {
    /// Stop a loop that is still running this long after `start`.
    pub timeout: Option<Duration>,
    /// When the clock of `timeout` started.
    pub start: Option<Instant>,
    /// Stop a loop on this iteration (`--max-while-iterations`; off by default).
    pub max_while_iterations: Option<u64>,
    /// Stop a loop once this is raised.
    pub cancel: Option<Cancel>,
}

impl RunLimits {
    /// Limits whose clock starts now.
    pub fn starting_now(timeout: Option<Duration>, max_while_iterations: Option<u64>) -> RunLimits {
        RunLimits {
            timeout,
            start: Some(Instant::now()),
            max_while_iterations,
            cancel: None,
        }
    }

    /// Checked before iteration `iteration` (from 1) of the while loop `name`: an error
    /// message when a limit is reached.
    pub fn check_while(&self, name: &str, iteration: u64) -> Result<(), String> {
        if interrupted() {
            return Err(format!(
                "interrupted (Ctrl-C) in while loop %{name}, iteration {iteration}"
            ));
        }
        if self.cancel.as_ref().is_some_and(Cancel::is_raised) {
            return Err(format!(
                "cancelled in while loop %{name}, iteration {iteration}"
            ));
        }
        if let Some(max) = self.max_while_iterations
            && iteration > max
        {
            return Err(format!(
                "while loop %{name} reached --max-while-iterations {max}"
            ));
        }
        if let (Some(timeout), Some(start)) = (self.timeout, self.start)
            && start.elapsed() > timeout
        {
            return Err(format!(
                "timed out after {} s in while loop %{name}, iteration {iteration}",
                timeout.as_secs_f64()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_name_the_loop_and_iteration() {
        let none = RunLimits::default();
        assert!(none.check_while("w", 1 << 40).is_ok());
        let cap = RunLimits::starting_now(None, Some(3));
        assert!(cap.check_while("w", 3).is_ok());
        assert_eq!(
            cap.check_while("w", 4).unwrap_err(),
            "while loop %w reached --max-while-iterations 3"
        );
        let expired = RunLimits::starting_now(Some(Duration::ZERO), None);
        assert_eq!(
            expired.check_while("loop.1", 7).unwrap_err(),
            "timed out after 0 s in while loop %loop.1, iteration 7"
        );
        let cancel = Cancel::new();
        let held = RunLimits {
            cancel: Some(cancel.clone()),
            ..RunLimits::default()
        };
        assert!(held.check_while("w", 1).is_ok());
        cancel.raise();
        assert_eq!(
            held.check_while("w", 2).unwrap_err(),
            "cancelled in while loop %w, iteration 2"
        );
    }
}
