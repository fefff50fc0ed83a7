//! Limits on one run, shared by the interpreter and the compiled runtime (whose library
//! thunks already carry an [`Evaluator`](super::Evaluator)): a wall-clock timeout, a cap
//! on the iterations of any one `while` loop, and Ctrl-C. All three are checked at every
//! `while` iteration, the only place a valid program can run for ever.

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

/// The limits of one run. The default has none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunLimits {
    /// Stop a loop that is still running this long after `start`.
    pub timeout: Option<Duration>,
    /// When the clock of `timeout` started.
    pub start: Option<Instant>,
    /// Stop a loop on this iteration (`--max-while-iterations`; off by default).
    pub max_while_iterations: Option<u64>,
}

impl RunLimits {
    /// Limits whose clock starts now.
    pub fn starting_now(timeout: Option<Duration>, max_while_iterations: Option<u64>) -> RunLimits {
        RunLimits {
            timeout,
            start: Some(Instant::now()),
            max_while_iterations,
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
    }
}
