//! Events: `PJRT_Event` over a [`Signal`] that fires once with the outcome of the work it
//! stands for.
//!
//! Transfers from the host finish before their call returns, so their events are born
//! fired. An asynchronous execute ([`crate::execute_queue`]) hands out events that fire
//! when its run ends: the output buffers' ready events and the device-complete events.
//! Callbacks registered with `OnReady` before that run on the thread that ends the run.

use std::ffi::c_void;
use std::sync::{Arc, Condvar, Mutex};

use crate::abi::*;
use crate::error::{Code, Error, Result, entry_points, guard};

/// A failure carried by a signal: what `PJRT_Event_Error` hands back, as many times as
/// it is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The status code.
    pub code: Code,
    /// The message.
    pub message: String,
}

impl Failure {
    /// The failure of `e`.
    pub fn of(e: &Error) -> Failure {
        Failure {
            code: e.code,
            message: e.message.clone(),
        }
    }

    /// A fresh error to hand to C.
    pub fn error(&self) -> Error {
        Error::new(self.code, self.message.clone())
    }
}

/// What waits on a signal: called once with the outcome.
type Waiter = Box<dyn FnOnce(&std::result::Result<(), Failure>) + Send>;

#[derive(Default)]
struct State {
    outcome: Option<std::result::Result<(), Failure>>,
    waiters: Vec<Waiter>,
}

/// A one-shot completion: pending until [`Signal::fire`], then fired for good with an
/// outcome.
#[derive(Default)]
pub struct Signal {
    state: Mutex<State>,
    fired: Condvar,
}

impl Signal {
    /// A pending signal.
    pub fn pending() -> Arc<Signal> {
        Arc::new(Signal::default())
    }

    /// A signal already fired with `outcome`.
    pub fn fired(outcome: std::result::Result<(), Failure>) -> Arc<Signal> {
        Arc::new(Signal {
            state: Mutex::new(State {
                outcome: Some(outcome),
                waiters: Vec::new(),
            }),
            fired: Condvar::new(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Fires with `outcome` and runs the waiters (on this thread). A second fire is
    /// ignored: the first outcome stands.
    pub fn fire(&self, outcome: std::result::Result<(), Failure>) {
        let waiters = {
            let mut s = self.lock();
            if s.outcome.is_some() {
                return;
            }
            s.outcome = Some(outcome.clone());
            std::mem::take(&mut s.waiters)
        };
        // The callbacks first: whoever waits sees them run once it wakes.
        for w in waiters {
            w(&outcome);
        }
        self.fired.notify_all();
    }

    /// The outcome, if fired.
    pub fn outcome(&self) -> Option<std::result::Result<(), Failure>> {
        self.lock().outcome.clone()
    }

    /// True once fired.
    pub fn is_fired(&self) -> bool {
        self.lock().outcome.is_some()
    }

    /// Blocks until fired and returns the outcome.
    pub fn wait(&self) -> std::result::Result<(), Failure> {
        let mut s = self.lock();
        loop {
            if let Some(o) = &s.outcome {
                return o.clone();
            }
            s = self.fired.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Calls `f` with the outcome once fired: now if it has, else on the firing thread.
    pub fn on_fired(&self, f: Waiter) {
        let outcome = {
            let mut s = self.lock();
            match &s.outcome {
                Some(o) => o.clone(),
                None => {
                    s.waiters.push(f);
                    return;
                }
            }
        };
        f(&outcome);
    }
}

/// `PJRT_Event`: a handle on a signal.
pub struct Event {
    signal: Arc<Signal>,
}

impl Event {
    /// A handle on `signal`.
    pub fn on(signal: Arc<Signal>) -> *mut c_void {
        Box::into_raw(Box::new(Event { signal })).cast()
    }

    /// A fired event that succeeded.
    pub fn ready() -> *mut c_void {
        Event::on(Signal::fired(Ok(())))
    }

    /// A fired event that failed with `e`.
    pub fn failed(e: &Error) -> *mut c_void {
        Event::on(Signal::fired(Err(Failure::of(e))))
    }
}

/// The outcome as a `PJRT_Error*` (NULL for success).
fn outcome_error(outcome: &std::result::Result<(), Failure>) -> *mut c_void {
    match outcome {
        Ok(()) => std::ptr::null_mut(),
        Err(f) => f.error().into_raw(),
    }
}

unsafe fn event_ref<'a>(p: *mut c_void) -> Result<&'a Event> {
    // SAFETY: event handles come from this plugin.
    unsafe { p.cast::<Event>().as_ref() }.ok_or_else(|| Error::invalid("the PJRT_Event is NULL"))
}

entry_points! {
    fn event_destroy(a: PJRT_Event_Destroy_Args) {
        if !a.event.is_null() {
            // SAFETY: the handle came from `Event::on`; destroyed once. Waiters registered
            // through it stay with the signal.
            drop(unsafe { Box::from_raw(a.event.cast::<Event>()) });
        }
        Ok(())
    }

    fn event_is_ready(a: PJRT_Event_IsReady_Args) {
        // SAFETY: a live event.
        a.is_ready = unsafe { event_ref(a.event)? }.signal.is_fired();
        Ok(())
    }
}

/// Runs `f` on the event of `args` and returns its `PJRT_Error*`, the event's own outcome
/// being the call's return value (so no `guard` result mapping).
fn with_event<A>(
    name: &'static str,
    args: *mut A,
    event: impl FnOnce(&A) -> *mut c_void,
    f: impl FnOnce(&Event) -> *mut c_void,
) -> *mut c_void {
    crate::call_log::record(name);
    if args.is_null() {
        return Error::invalid(format!("PJRT_{name}: the args struct is NULL")).into_raw();
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: a valid args struct with a live event.
        match unsafe { event_ref(event(&*args)) } {
            Ok(e) => f(e),
            Err(e) => e.into_raw(),
        }
    }))
    .unwrap_or_else(|_| Error::new(Code::Internal, format!("panic in PJRT_{name}")).into_raw())
}

/// `PJRT_Event_Error`: the outcome of a fired event (an event not fired yet is waited for:
/// the header asks callers to check `IsReady` first, and waiting is the safe answer).
///
/// # Safety
/// `args` must be NULL or valid with a live event.
pub unsafe extern "C" fn event_error(args: *mut PJRT_Event_Error_Args) -> *mut c_void {
    with_event(
        "Event_Error",
        args,
        |a| a.event,
        |e| outcome_error(&e.signal.wait()),
    )
}

/// `PJRT_Event_Await`: blocks until the event fires; returns its outcome.
///
/// # Safety
/// `args` must be NULL or valid with a live event.
pub unsafe extern "C" fn event_await(args: *mut PJRT_Event_Await_Args) -> *mut c_void {
    with_event(
        "Event_Await",
        args,
        |a| a.event,
        |e| outcome_error(&e.signal.wait()),
    )
}

/// The framework's callback and its argument, moved to the thread that fires.
struct Callback {
    f: unsafe extern "C" fn(*mut c_void, *mut c_void),
    user_arg: *mut c_void,
}

// SAFETY: the framework's OnReady callbacks may be called from any thread (its own
// asynchronous clients call them from their worker threads).
unsafe impl Send for Callback {}

entry_points! {
    fn event_on_ready(a: PJRT_Event_OnReady_Args) {
        // SAFETY: a live event.
        let e = unsafe { event_ref(a.event)? };
        let Some(f) = a.callback else {
            return Err(Error::invalid("PJRT_Event_OnReady without a callback"));
        };
        let callback = Callback { f, user_arg: a.user_arg };
        // Now if fired, else when the run ends; the callback owns (and destroys) the error.
        e.signal.on_fired(Box::new(move |outcome| {
            let callback = callback;
            // SAFETY: the framework's callback with its own user argument, called once.
            unsafe { (callback.f)(outcome_error(outcome), callback.user_arg) };
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_fires_once_and_runs_its_waiters() {
        let s = Signal::pending();
        assert!(!s.is_fired());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let seen2 = seen.clone();
        s.on_fired(Box::new(move |o| seen2.lock().unwrap().push(o.clone())));
        let failure = Failure {
            code: Code::Internal,
            message: "boom".into(),
        };
        let s2 = s.clone();
        let t = std::thread::spawn(move || s2.wait());
        s.fire(Err(failure.clone()));
        s.fire(Ok(()));
        assert_eq!(t.join().unwrap(), Err(failure.clone()));
        assert_eq!(*seen.lock().unwrap(), vec![Err(failure.clone())]);
        // A waiter added after the fire runs at once.
        let late = Arc::new(Mutex::new(None));
        let late2 = late.clone();
        s.on_fired(Box::new(move |o| *late2.lock().unwrap() = Some(o.clone())));
        assert_eq!(*late.lock().unwrap(), Some(Err(failure)));
    }
}
