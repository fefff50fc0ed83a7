//! The call log (`log_calls`): one line per PJRT call, in the order the framework makes
//! them, so a learner sees the seam between JAX and a backend. Off unless the client create
//! option `log_calls` (or the environment variable `XLAC_PJRT_LOG_CALLS`, for the calls
//! before the client exists) is set: `1` writes to stderr, anything else is a file path
//! appended to.
//!
//! Lines look like `xlac-pjrt 12 PJRT_Client_Compile` and, when a call fails,
//! `xlac-pjrt 12 PJRT_Client_Compile -> INVALID_ARGUMENT: ...`.

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::error::Error;

enum Sink {
    Stderr,
    File(std::fs::File),
}

static ENABLED: AtomicBool = AtomicBool::new(false);
static SEQUENCE: AtomicU64 = AtomicU64::new(0);
static SINK: Mutex<Option<Sink>> = Mutex::new(None);

/// Turns the log on: `"1"`/`"true"`/`"stderr"` mean stderr, `"0"`/`"false"`/empty turn it
/// off, anything else is a file to append to.
pub fn configure(target: &str) -> std::io::Result<()> {
    let sink = match target.trim() {
        "" | "0" | "false" | "False" => None,
        "1" | "true" | "True" | "stderr" => Some(Sink::Stderr),
        path => Some(Sink::File(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?,
        )),
    };
    let on = sink.is_some();
    *SINK.lock().unwrap_or_else(|e| e.into_inner()) = sink;
    ENABLED.store(on, Ordering::Release);
    Ok(())
}

/// Reads `XLAC_PJRT_LOG_CALLS` once, when the API table is first handed out.
pub fn configure_from_env() {
    if let Ok(target) = std::env::var("XLAC_PJRT_LOG_CALLS") {
        // A bad path only loses the log; the plugin still loads.
        let _ = configure(&target);
    }
}

fn write_line(line: &str) {
    let mut sink = SINK.lock().unwrap_or_else(|e| e.into_inner());
    // Logging must never fail a call: write errors are dropped.
    match sink.as_mut() {
        Some(Sink::Stderr) => {
            let _ = writeln!(std::io::stderr(), "{line}");
        }
        Some(Sink::File(f)) => {
            let _ = writeln!(f, "{line}");
        }
        None => {}
    }
}

/// Logs one call of `PJRT_<name>`.
pub fn record(name: &str) {
    if ENABLED.load(Ordering::Acquire) {
        let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        write_line(&format!("xlac-pjrt {n} PJRT_{name}"));
    }
}

/// Logs that the last call of `PJRT_<name>` failed with `e`.
pub fn record_error(name: &str, e: &Error) {
    if ENABLED.load(Ordering::Acquire) {
        write_line(&format!(
            "xlac-pjrt PJRT_{name} -> {}: {}",
            crate::error::code_name(e.code),
            e.message
        ));
    }
}
