//! Running N device programs, one thread each, over one [`Collectives`]: each thread asks
//! to start, runs its program on its own arguments, and reports when it returned. The run
//! fails with the collectives' own failure (a deadlock report, a mismatch) when there is
//! one, else with the first device's error.

use std::borrow::Borrow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use super::{CollectiveError, Collectives, DeviceId, Trace};
use crate::ir::Literal;
use crate::runtime::Argument;

/// Stack of each device thread: the interpreter recurses over nested computations.
const DEVICE_STACK: usize = 64 << 20;

/// One device's program: a compiled executable or the interpreter over a computation.
pub trait DeviceProgram: Send {
    /// Runs as `device` of `collectives` on `args` and returns the program's result. A
    /// borrowed argument stays the caller's (on the device for the next run); a donated one
    /// is the run's, and an output aliased with it may be computed in its storage.
    fn run(
        &mut self,
        collectives: &Arc<dyn Collectives>,
        device: DeviceId,
        args: Vec<Argument<'_>>,
    ) -> Result<Literal, String>;
}

/// One device's argument list as a run takes it: borrowed literals (`&[A]`, `&Vec<A>`), or
/// [`Argument`]s some of which are donated.
pub trait DeviceArguments<'a>: Send {
    /// The list as arguments of one run.
    fn into_arguments(self) -> Vec<Argument<'a>>;
}

impl<'a, A: Borrow<Literal> + Sync> DeviceArguments<'a> for &'a [A] {
    fn into_arguments(self) -> Vec<Argument<'a>> {
        self.iter()
            .map(|a| Argument::Borrowed(a.borrow()))
            .collect()
    }
}

impl<'a, A: Borrow<Literal> + Sync> DeviceArguments<'a> for &'a Vec<A> {
    fn into_arguments(self) -> Vec<Argument<'a>> {
        self.as_slice().into_arguments()
    }
}

impl<'a> DeviceArguments<'a> for Vec<Argument<'a>> {
    fn into_arguments(self) -> Vec<Argument<'a>> {
        self
    }
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
pub fn run_devices<'a, R: DeviceArguments<'a>>(
    programs: &mut [Box<dyn DeviceProgram + '_>],
    args: impl IntoIterator<Item = R>,
    collectives: Arc<dyn Collectives>,
) -> Result<DeviceRun, CollectiveError> {
    let args: Vec<R> = args.into_iter().collect();
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
fn run_one<'a>(
    program: &mut (dyn DeviceProgram + '_),
    collectives: &Arc<dyn Collectives>,
    d: DeviceId,
    args: impl DeviceArguments<'a>,
) -> Result<Literal, String> {
    if let Err(e) = collectives.start(d) {
        collectives.finish(d, Err(e.headline()));
        return Err(e.headline());
    }
    let args = args.into_arguments();
    let outcome = catch_unwind(AssertUnwindSafe(|| program.run(collectives, d, args)))
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
pub fn run_device<'a>(
    program: &mut (dyn DeviceProgram + '_),
    device: DeviceId,
    args: impl DeviceArguments<'a>,
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
pub fn run_local_devices<'a, R: DeviceArguments<'a>>(
    programs: &mut [Box<dyn DeviceProgram + '_>],
    devices: &[DeviceId],
    args: impl IntoIterator<Item = R>,
    collectives: Arc<dyn Collectives>,
) -> Result<(Vec<Literal>, Trace), CollectiveError> {
    let args: Vec<R> = args.into_iter().collect();
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
