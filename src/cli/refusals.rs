//! Flags a mode has no use for are refused, not ignored: `xlac run --backend interpreter
//! --autotune` or `xlac compile --timeout 5` would otherwise run as if the flag were not
//! there, and the user would believe it took effect. Each check here is one flag in the
//! modes that cannot honour it, refused with one `error:` line (exit 2) naming the flag
//! and why; every other flag/mode pair is honoured. `tests/cli_flags.rs` walks the whole
//! flag x mode matrix from clap's own list of arguments.

use super::{Backend, CompileArgs, Failure, RunArgs};

/// How a `run` executes, as far as its flags are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunMode {
    /// `--backend`.
    pub backend: Backend,
    /// Several devices (`--partitions`, `--replicas`, a module that declares them, or any
    /// per-device flag), in this process or under `--distributed`.
    pub multi_device: bool,
}

fn refuse(flag: &str, why: &str) -> Failure {
    Failure::usage(format!("{flag}: {why}"))
}

/// The first flag of `args` that `mode` would ignore, as a usage error.
pub fn check_run(args: &RunArgs, mode: RunMode) -> Result<(), Failure> {
    let interpreter = mode.backend == Backend::Interpreter;
    let compiled_only = "only the compiled backend uses it (this run is --backend interpreter)";
    if interpreter {
        if args.passes.autotune {
            return Err(refuse("--autotune", compiled_only));
        }
        if args.passes.inline_math {
            return Err(refuse("--inline-math", compiled_only));
        }
        if args.passes.guard_buffers {
            return Err(refuse("--guard-buffers", compiled_only));
        }
    }
    // report.html's measured thunk times: a one-device compiled run only.
    let profiled = !interpreter && !mode.multi_device && !args.bisect;
    let why_profile = if interpreter || args.bisect {
        "it sets report.html's thunk timing, and the interpreter runs no thunks"
    } else {
        "it sets report.html's thunk timing, which a multi-device run does not measure"
    };
    if !profiled {
        if args.triad_gbs.is_some() {
            return Err(refuse("--triad-gbs", why_profile));
        }
        if args.profile_runs.is_some() {
            return Err(refuse("--profile-runs", why_profile));
        }
    }
    if mode.multi_device && args.bisect {
        return Err(refuse(
            "--bisect",
            "it bisects the one-device pass pipeline; give --partitions 1",
        ));
    }
    if !mode.multi_device {
        let one = "this run is on one device (give --partitions N for several)";
        if args.collectives.is_some() {
            return Err(refuse("--collectives", one));
        }
        if args.collectives_deadline.is_some() {
            return Err(refuse("--collectives-deadline", one));
        }
        if !args.devices.result_sharding.is_empty() {
            return Err(refuse("--result-sharding", one));
        }
    }
    Ok(())
}

/// The first flag of `args` that `xlac compile` would ignore, as a usage error.
pub fn check_compile(args: &CompileArgs) -> Result<(), Failure> {
    let nothing_runs = "`xlac compile` runs nothing (use `xlac run`)";
    if args.limits.timeout.is_some() {
        return Err(refuse("--timeout", nothing_runs));
    }
    if args.limits.max_while_iterations.is_some() {
        return Err(refuse("--max-while-iterations", nothing_runs));
    }
    if args.devices.output_shards.is_some() {
        return Err(refuse("--output-shards", nothing_runs));
    }
    if args.devices.input_shards.is_some() {
        return Err(refuse("--input-shards", nothing_runs));
    }
    if !args.devices.result_sharding.is_empty() {
        return Err(refuse("--result-sharding", nothing_runs));
    }
    Ok(())
}
