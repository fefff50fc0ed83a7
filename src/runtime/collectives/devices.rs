//! Running N device programs, one thread each, over one [`Collectives`]: each thread asks
//! to start, runs its program on its own arguments, and reports when it returned. The run
//! fails with the collectives' own failure (a deadlock report, a mismatch) when there is
//! one, else with the first device's error.

use std::borrow::Borrow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use super::{CollectiveError, Collectives, DeviceId, Trace};
use crate::ir::Literal;

/// Stack of each device thread: the interpreter recurses over nested computations.
const DEVICE_STACK: usize = 64 << 20;

/// One device's program: a compiled executable or the interpreter over a computation.
pub trait DeviceProgram: Send {
    /// Runs as `device` of `collectives` on `args` (borrowed: the caller may keep them on
    /// the device for the next run) and returns the program's result.
    fn run(
        &mut self,
        collectives: &Arc<dyn Collectives>,
        device: DeviceId,
        args: &[&Literal],
    ) -> Result<Literal, String>;
}

/// What a run returns.
#[derive(Clone, Debug)]
pub struct DeviceRun {
    /// Per device, its program's result.
    pub results: Vec<Literal>,
    /// Every collective, per device.
    pub trace: Trace,
}

/// Runs `programs[d]` on `args[d]` as device `d` of `collectives`, all at once. The
/// arguments are owned literals or references to buffers the caller keeps (`ifrt`'s
/// arrays stay on their devices between runs).
pub fn run_devices<A: Borrow<Literal> + Sync>(
    programs: &mut [Box<dyn DeviceProgram + '_>],
    args: &[Vec<A>],
    collectives: Arc<dyn Collectives>,
) -> Result<DeviceRun, CollectiveError> {
    let count = collectives.grid().count();
    if programs.len() != count || args.len() != count {
        return Err(CollectiveError::BadOp(format!(
            "{} programs and {} argument lists for {count} devices",
            programs.len(),
            args.len()
        )));
    }
    let outcomes: Vec<Result<Literal, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = programs
            .iter_mut()
            .zip(args)
            .enumerate()
            .map(|(d, (program, args))| {
                let collectives = collectives.clone();
                std::thread::Builder::new()
                    .name(format!("device{d}"))
                    .stack_size(DEVICE_STACK)
                    .spawn_scoped(scope, move || {
                        run_one(&mut **program, &collectives, d, args)
                    })
            })
            .collect();
        if handles.iter().any(Result::is_err) {
            for d in 0..count {
                collectives.finish(d, Err("a device thread could not start".into()));
            }
        }
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err("device thread panicked".into())),
                Err(e) => Err(format!("cannot start a device thread: {e}")),
            })
            .collect()
    });
    if let Some(failure) = collectives.failure() {
        return Err(failure);
    }
    let mut results = Vec::with_capacity(count);
    for (d, o) in outcomes.into_iter().enumerate() {
        match o {
            Ok(v) => results.push(v),
            Err(m) => return Err(CollectiveError::Aborted(format!("device {d} failed: {m}"))),
        }
    }
    Ok(DeviceRun {
        results,
        trace: collectives.trace(),
    })
}

/// Device `d`'s thread: start, run, finish.
fn run_one<A: Borrow<Literal>>(
    program: &mut (dyn DeviceProgram + '_),
    collectives: &Arc<dyn Collectives>,
    d: DeviceId,
    args: &[A],
) -> Result<Literal, String> {
    if let Err(e) = collectives.start(d) {
        collectives.finish(d, Err(e.headline()));
        return Err(e.headline());
    }
    let args: Vec<&Literal> = args.iter().map(Borrow::borrow).collect();
    let outcome = catch_unwind(AssertUnwindSafe(|| program.run(collectives, d, &args)))
        .unwrap_or_else(|p| {
            Err(format!(
                "device panicked: {}",
                crate::eval::collectives::grid::panic_message(p.as_ref())
            ))
        });
    collectives.finish(d, outcome.as_ref().map(drop).map_err(Clone::clone));
    outcome
}

/// Runs one device of a grid whose other devices run elsewhere (other MPI ranks): `program`
/// as `device` of `collectives`, on its own thread (the interpreter needs the deep stack).
pub fn run_device<A: Borrow<Literal> + Sync>(
    program: &mut (dyn DeviceProgram + '_),
    device: DeviceId,
    args: &[A],
    collectives: Arc<dyn Collectives>,
) -> Result<(Literal, Trace), CollectiveError> {
    let outcome = std::thread::scope(|scope| {
        let c = collectives.clone();
        std::thread::Builder::new()
            .name(format!("device{device}"))
            .stack_size(DEVICE_STACK)
            .spawn_scoped(scope, move || run_one(program, &c, device, args))
            .map_err(|e| format!("cannot start a device thread: {e}"))?
            .join()
            .unwrap_or_else(|_| Err("device thread panicked".into()))
    });
    if let Some(failure) = collectives.failure() {
        return Err(failure);
    }
    match outcome {
        Ok(v) => Ok((v, collectives.trace())),
        Err(m) => Err(CollectiveError::Aborted(format!(
            "device {device} failed: {m}"
        ))),
    }
}

/// Runs some devices of a grid whose other devices run elsewhere (the other processes of
/// an MPI job): `programs[i]` as `devices[i]` on `args[i]`, one thread each, over
/// `collectives`. Returns their results in the order of `devices`, and the trace.
pub fn run_local_devices<A: Borrow<Literal> + Sync>(
    programs: &mut [Box<dyn DeviceProgram + '_>],
    devices: &[DeviceId],
    args: &[Vec<A>],
    collectives: Arc<dyn Collectives>,
) -> Result<(Vec<Literal>, Trace), CollectiveError> {
    if programs.len() != devices.len() || args.len() != devices.len() {
        return Err(CollectiveError::BadOp(format!(
            "{} programs and {} argument lists for {} devices",
            programs.len(),
            args.len(),
            devices.len()
        )));
    }
    let outcomes: Vec<Result<Literal, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = programs
            .iter_mut()
            .zip(args)
            .zip(devices)
            .map(|((program, args), &d)| {
                let collectives = collectives.clone();
                std::thread::Builder::new()
                    .name(format!("device{d}"))
                    .stack_size(DEVICE_STACK)
                    .spawn_scoped(scope, move || {
                        run_one(&mut **program, &collectives, d, args)
                    })
            })
            .collect();
        if handles.iter().any(Result::is_err) {
            for &d in devices {
                collectives.finish(d, Err("a device thread could not start".into()));
            }
        }
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err("device thread panicked".into())),
                Err(e) => Err(format!("cannot start a device thread: {e}")),
            })
            .collect()
    });
    if let Some(failure) = collectives.failure() {
        return Err(failure);
    }
    let mut results = Vec::with_capacity(devices.len());
    for (&d, o) in devices.iter().zip(outcomes) {
        match o {
            Ok(v) => results.push(v),
            Err(m) => return Err(CollectiveError::Aborted(format!("device {d} failed: {m}"))),
        }
    }
    Ok((results, collectives.trace()))
}
