//! Asynchronous Execute through the C table: a one-device Execute returns with output
//! buffers whose ready events fire when the run ends. Chains of runs that consume each
//! other's outputs (destroyed while in flight) come back as xlac's interpreter computes
//! them; a run-time failure reaches the output events, OnReady callbacks, reads of the
//! outputs and the runs that consume them; `asynchronous:0` returns it from Execute.

mod common;

use std::ffi::c_void;
use std::sync::Mutex;

use common::{Plugin, args, load};
use xlac::eval::{EvalOptions, evaluate};
use xlac::ir::{ArrayLiteral, Literal};
use xlac_pjrt::abi::*;
use xlac_pjrt::buffer::{buffer_type, literal_bytes};

/// The elements of the programs' arrays: 64 KiB each, so that no program counts as cheap
/// (cheap programs with their inputs ready run inside Execute).
const N: usize = 16384;

/// One step of a chain: `x * 3 + 1` (wrapping, so exact on every backend) and its sum.
const STEP: &str = r#"HloModule step
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}
ENTRY e {
  x = s32[16384] parameter(0)
  h = s32[] constant(3)
  hb = s32[16384] broadcast(h), dimensions={}
  one = s32[] constant(1)
  ob = s32[16384] broadcast(one), dimensions={}
  m = s32[16384] multiply(x, hb)
  y = s32[16384] add(m, ob)
  zero = s32[] constant(0)
  s = s32[] reduce(y, zero), dimensions={0}, to_apply=add
  ROOT t = (s32[16384], s32[]) tuple(y, s)
}
"#;

/// A host callback with no host to call: it fails when it runs.
const CALLBACK: &str = r#"HloModule callback
ENTRY e {
  x = f32[16384] parameter(0)
  t = token[] after-all()
  cb = (token[], f32[16384]) custom-call(t, x), custom_call_target="xla_ffi_python_cpu_callback", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, backend_config={index = 0 : ui64}
  ROOT r = f32[16384] get-tuple-element(cb), index=1
}
"#;

/// `x + x`.
const DOUBLE: &str = r#"HloModule double
ENTRY e {
  x = f32[16384] parameter(0)
  ROOT y = f32[16384] add(x, x)
}
"#;

fn interpreter(text: &str, arg: &ArrayLiteral) -> Vec<ArrayLiteral> {
    let module = xlac::front::hlo_text::parse_module(text, "step.hlo")
        .unwrap()
        .module;
    let result = evaluate(
        &module,
        &[Literal::Array(arg.clone())],
        &EvalOptions::default(),
    )
    .unwrap();
    match result {
        Literal::Tuple(t) => t
            .into_iter()
            .map(|l| l.as_array().unwrap().to_row_major())
            .collect(),
        Literal::Array(a) => vec![a.to_row_major()],
        Literal::Token => vec![],
    }
}

fn put(p: &Plugin, client: *mut c_void, a: &ArrayLiteral) -> *mut c_void {
    let ty = buffer_type(a.shape.element_type).unwrap();
    p.buffer(client, ty, &a.shape.dims, literal_bytes(a))
        .expect("BufferFromHostBuffer")
}

/// Execute on one device without waiting: the outputs and the device-complete event.
fn launch(
    p: &Plugin,
    loaded: *mut c_void,
    inputs: &[*mut c_void],
) -> Result<(Vec<*mut c_void>, *mut c_void), common::Failure> {
    let n = p.num_outputs(loaded);
    let mut outputs = vec![std::ptr::null_mut::<c_void>(); n];
    let input_list: *const *mut c_void = inputs.as_ptr();
    let output_list: *mut *mut c_void = outputs.as_mut_ptr();
    let mut event: *mut c_void = std::ptr::null_mut();
    let mut options: PJRT_ExecuteOptions = args();
    let mut a: PJRT_LoadedExecutable_Execute_Args = args();
    a.executable = loaded;
    a.options = &mut options;
    a.argument_lists = &input_list;
    a.num_devices = 1;
    a.num_args = inputs.len();
    a.output_lists = &output_list;
    a.device_complete_events = &mut event;
    p.call("LoadedExecutable_Execute", &mut a)?;
    Ok((outputs, event))
}

fn ready_event(p: &Plugin, b: *mut c_void) -> *mut c_void {
    let mut a: PJRT_Buffer_ReadyEvent_Args = args();
    a.buffer = b;
    p.call("Buffer_ReadyEvent", &mut a).expect("ReadyEvent");
    a.event
}

fn await_event(p: &Plugin, e: *mut c_void) -> Result<(), common::Failure> {
    let mut a: PJRT_Event_Await_Args = args();
    a.event = e;
    p.call("Event_Await", &mut a)
}

fn event_error(p: &Plugin, e: *mut c_void) -> Result<(), common::Failure> {
    let mut a: PJRT_Event_Error_Args = args();
    a.event = e;
    p.call("Event_Error", &mut a)
}

fn is_ready(p: &Plugin, e: *mut c_void) -> bool {
    let mut a: PJRT_Event_IsReady_Args = args();
    a.event = e;
    p.call("Event_IsReady", &mut a).expect("IsReady");
    a.is_ready
}

/// What OnReady callbacks saw: per call, NULL (success) or the error's message.
static SEEN: Mutex<Vec<Option<String>>> = Mutex::new(Vec::new());

/// The `PJRT_Error_Message` slot, for the callback (which gets no plugin handle).
static MESSAGE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
static DESTROY: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

unsafe extern "C" fn on_ready(error: *mut c_void, _user: *mut c_void) {
    if error.is_null() {
        SEEN.lock().unwrap().push(None);
        return;
    }
    type Call = unsafe extern "C" fn(*mut c_void);
    let mut m: PJRT_Error_Message_Args = args();
    m.error = error;
    // SAFETY: the plugin's own slots, with valid args.
    unsafe {
        std::mem::transmute::<usize, Call>(*MESSAGE.get().unwrap())(
            (&mut m as *mut PJRT_Error_Message_Args).cast(),
        )
    };
    // SAFETY: the message lives until the error is destroyed.
    let text = unsafe { std::slice::from_raw_parts(m.message.cast::<u8>(), m.message_size) };
    SEEN.lock()
        .unwrap()
        .push(Some(String::from_utf8_lossy(text).into_owned()));
    let mut d: PJRT_Error_Destroy_Args = args();
    d.error = error;
    // SAFETY: as above; the callback owns the error.
    unsafe {
        std::mem::transmute::<usize, Call>(*DESTROY.get().unwrap())(
            (&mut d as *mut PJRT_Error_Destroy_Args).cast(),
        )
    };
}

fn on_ready_of(p: &Plugin, e: *mut c_void) {
    MESSAGE.get_or_init(|| p.slot("Error_Message") as usize);
    DESTROY.get_or_init(|| p.slot("Error_Destroy") as usize);
    let mut a: PJRT_Event_OnReady_Args = args();
    a.event = e;
    a.callback = Some(on_ready);
    a.user_arg = std::ptr::null_mut();
    p.call("Event_OnReady", &mut a).expect("OnReady");
}

#[test]
fn a_chain_of_runs_in_flight_matches_the_interpreter() {
    let p = load();
    let client = p.client(&[]).expect("client");
    let exe = p.compile(client, STEP.as_bytes(), &[]).expect("compile");
    let start = ArrayLiteral::from_vec(
        &[N as i64],
        (0..N as i32).map(|i| i - 20).collect::<Vec<i32>>(),
    );
    let steps = 40;
    let (mut want, mut want_sums) = (start.clone(), Vec::new());
    for _ in 0..steps {
        let next = interpreter(STEP, &want);
        want = next[0].clone();
        want_sums.push(next[1].clone());
    }
    let mut x = put(&p, client, &start);
    let mut sums = Vec::new();
    let mut completes = Vec::new();
    for _ in 0..steps {
        let (outs, complete) = launch(&p, exe, &[x]).expect("execute");
        // The input may still be read by the run just queued: destroying it is safe.
        p.destroy_buffer(x);
        x = outs[0];
        sums.push(outs[1]);
        completes.push(complete);
    }
    let last_ready = ready_event(&p, x);
    await_event(&p, last_ready).expect("the last run succeeds");
    event_error(&p, last_ready).expect("no error");
    assert!(is_ready(&p, last_ready));
    p.destroy_event(last_ready);
    for e in completes {
        await_event(&p, e).expect("every run succeeds");
        p.destroy_event(e);
    }
    let vector = p.to_host(x).unwrap();
    assert_eq!(vector, literal_bytes(&want));
    for (k, &s) in sums.iter().enumerate() {
        assert_eq!(
            p.to_host(s).unwrap(),
            literal_bytes(&want_sums[k]),
            "sum of step {k}"
        );
        p.destroy_buffer(s);
    }
    p.destroy_buffer(x);
    p.destroy_loaded(exe);
    p.destroy_client(client);
}

#[test]
fn buffers_and_events_outlive_the_client_teardown_of_queued_runs() {
    // Runs still queued when everything is destroyed: the client waits for them.
    let p = load();
    let client = p.client(&[]).expect("client");
    let exe = p.compile(client, STEP.as_bytes(), &[]).expect("compile");
    let start = ArrayLiteral::from_vec(&[N as i64], vec![1i32; N]);
    let mut x = put(&p, client, &start);
    for _ in 0..20 {
        let (outs, complete) = launch(&p, exe, &[x]).expect("execute");
        p.destroy_event(complete);
        p.destroy_buffer(x);
        p.destroy_buffer(outs[1]);
        x = outs[0];
    }
    p.destroy_buffer(x);
    p.destroy_loaded(exe);
    p.destroy_client(client);
}

#[test]
fn a_run_time_failure_reaches_the_events_and_the_runs_after() {
    let p = load();
    let client = p.client(&[]).expect("client");
    let failing = p
        .compile(client, CALLBACK.as_bytes(), &[])
        .expect("compile");
    let double = p.compile(client, DOUBLE.as_bytes(), &[]).expect("compile");
    let x = put(
        &p,
        client,
        &ArrayLiteral::from_vec(&[N as i64], (0..N).map(|i| i as f32).collect::<Vec<f32>>()),
    );
    // Execute itself succeeds: the run fails later, on the device's worker.
    let (outs, complete) = launch(&p, failing, &[x]).expect("Execute returns before the run");
    let ready = ready_event(&p, outs[0]);
    on_ready_of(&p, ready);
    let e = await_event(&p, ready).expect_err("the run fails");
    assert!(
        e.message.contains("calls back into the host program"),
        "{}",
        e.message
    );
    assert!(is_ready(&p, ready));
    let e2 = event_error(&p, ready).expect_err("Event_Error carries the failure");
    assert_eq!(e2.message, e.message);
    assert!(await_event(&p, complete).is_err());
    assert_eq!(SEEN.lock().unwrap().clone(), vec![Some(e.message.clone())]);
    // Reading the output fails with the run's message.
    let read = p.to_host(outs[0]).expect_err("no value");
    assert_eq!(read.message, e.message);
    // A run that consumes the output fails with it too.
    let (after, complete2) = launch(&p, double, &[outs[0]]).expect("Execute");
    let e3 = p.to_host(after[0]).expect_err("the input's run failed");
    assert!(
        e3.message
            .contains("argument 0 comes from a run that failed")
            && e3.message.contains("calls back into the host program"),
        "{}",
        e3.message
    );
    // The device still runs the next program.
    let (good, complete3) = launch(&p, double, &[x]).expect("Execute");
    let bytes = p.to_host(good[0]).unwrap();
    let want = ArrayLiteral::from_vec(
        &[N as i64],
        (0..N).map(|i| 2.0 * i as f32).collect::<Vec<f32>>(),
    );
    assert_eq!(bytes, literal_bytes(&want));
    for e in [ready, complete, complete2, complete3] {
        p.destroy_event(e);
    }
    for b in [outs[0], after[0], good[0], x] {
        p.destroy_buffer(b);
    }
    p.destroy_loaded(failing);
    p.destroy_loaded(double);
    p.destroy_client(client);

    // A cheap program (a few bytes) with its inputs there runs inside Execute, which
    // returns its failure.
    let client = p.client(&[]).expect("client");
    let cheap = CALLBACK.replace("f32[16384]", "f32[3]");
    let failing = p.compile(client, cheap.as_bytes(), &[]).expect("compile");
    let x = put(
        &p,
        client,
        &ArrayLiteral::from_vec(&[3], vec![1.0f32, 2.0, 3.0]),
    );
    let e = launch(&p, failing, &[x]).expect_err("the cheap run fails in Execute");
    assert!(
        e.message.contains("calls back into the host program"),
        "{}",
        e.message
    );
    p.destroy_buffer(x);
    p.destroy_loaded(failing);
    p.destroy_client(client);

    // Synchronous execution: Execute returns the failure itself.
    let client = p.client(&[("asynchronous", "0")]).expect("client");
    let failing = p
        .compile(client, CALLBACK.as_bytes(), &[])
        .expect("compile");
    let x = put(
        &p,
        client,
        &ArrayLiteral::from_vec(&[N as i64], (0..N).map(|i| i as f32).collect::<Vec<f32>>()),
    );
    let e = launch(&p, failing, &[x]).expect_err("the run fails in Execute");
    assert!(
        e.message.contains("calls back into the host program"),
        "{}",
        e.message
    );
    p.destroy_buffer(x);
    p.destroy_loaded(failing);
    p.destroy_client(client);
    let e = p
        .client(&[("asynchronous", "maybe")])
        .expect_err("a bad value");
    assert!(e.message.contains("asynchronous:maybe"), "{}", e.message);
}
