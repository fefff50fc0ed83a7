//! Faults in the fleet: a device whose thread panics in the middle of a run while the other
//! devices wait for it in a collective. The run must fail with an error naming that device
//! (never hang, never abort the process), the waiting devices must be released, and the
//! same loaded programs must run correctly on the next call, on both backends and under
//! both schedulers.
//!
//! The fault comes from where an embedder's code runs inside a device's program: a host
//! callback (as `jax.pure_callback` lowers), whose host panics on one device's thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use xlac::compiler::{DeviceBackend, DeviceRunError, DeviceRunOptions, load_on_devices};
use xlac::eval::host_callback::{HostCallbackHandler, HostCallbacks};
use xlac::front::hlo_text::parse_module;
use xlac::ir::{ArrayData, ArrayLiteral, ArrayShape, Literal, PrimitiveType, Shape};
use xlac::runtime::collectives::{CollectiveError, CollectiveMode, DeviceGrid};

/// Each of 4 devices hands its operand to the host, then all of them sum the host's
/// results: devices that reach the all-reduce first wait there for the others.
const PROGRAM: &str = r#"HloModule device_faults, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[3] parameter(0)
  t = token[] after-all()
  cb = (token[], f32[3]) custom-call(t, x), custom_call_target="xla_ffi_partitioned_python_cpu_callback", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, backend_config={index = 0 : ui64}
  y = f32[3] get-tuple-element(cb), index=1
  ROOT r = f32[3] all-reduce(y), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
}
"#;

const DEVICES: usize = 4;
/// The device whose host callback panics while armed.
const FAULTY: usize = 2;

/// Multiplies by 10; panics on device `FAULTY`'s thread while `armed`.
struct Host {
    armed: AtomicBool,
}

impl HostCallbacks for Host {
    fn call(
        &self,
        _index: u64,
        operands: &[&Literal],
        _results: &[Shape],
    ) -> Result<Vec<Literal>, String> {
        let on_faulty = std::thread::current().name() == Some(&format!("device{FAULTY}"));
        if on_faulty && self.armed.load(Ordering::SeqCst) {
            panic!("the host callback of device {FAULTY} panicked");
        }
        let [Literal::Token, Literal::Array(a)] = operands else {
            return Err(format!("unexpected operands {operands:?}"));
        };
        let ArrayData::F32(v) = &a.data else {
            return Err("not f32".into());
        };
        Ok(vec![
            Literal::Token,
            f32s(v.iter().map(|x| x * 10.0).collect()),
        ])
    }
}

fn f32s(v: Vec<f32>) -> Literal {
    Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(PrimitiveType::F32, &[v.len() as i64]),
        data: ArrayData::F32(v),
    })
}

fn values(l: &Literal) -> Vec<f32> {
    match l {
        Literal::Array(ArrayLiteral {
            data: ArrayData::F32(v),
            ..
        }) => v.clone(),
        other => panic!("not an f32 array: {other:?}"),
    }
}

/// Device d's argument: [d, d + 1, d + 2].
fn arguments() -> Vec<Vec<Literal>> {
    (0..DEVICES)
        .map(|d| vec![f32s((0..3).map(|i| (d + i) as f32).collect())])
        .collect()
}

fn check(backend: DeviceBackend, mode: CollectiveMode) {
    let module = parse_module(PROGRAM, "device_faults.hlo")
        .expect("parses")
        .module;
    let grid = DeviceGrid::new(1, DEVICES as u32);
    let options = DeviceRunOptions {
        backend,
        mode: Some(mode),
        ..DeviceRunOptions::default()
    };
    let mut loaded = load_on_devices(&[module], &grid, &options).expect("loads");
    let host = Arc::new(Host {
        armed: AtomicBool::new(true),
    });
    loaded.set_custom_call_handler(Some(Arc::new(HostCallbackHandler(host.clone()))));
    let args = arguments();
    let what = format!("{backend:?}, {mode:?}");

    let e = loaded
        .execute(&args)
        .expect_err("a device that panics fails the run");
    // Released by the failure, not by the threaded scheduler's deadline (a deadlock).
    let DeviceRunError::Collectives(CollectiveError::Aborted(message)) = &e else {
        panic!("{what}: expected the run aborted by device {FAULTY}, got: {e}");
    };
    assert!(
        message.contains(&format!("device {FAULTY}")),
        "{what}: the error names the device: {message}"
    );
    assert!(
        message.contains("panicked") && message.contains("host callback of device 2"),
        "{what}: the error carries the panic's message: {message}"
    );

    // The same loaded programs run the next call, twice (the rendezvous is fresh each time).
    host.armed.store(false, Ordering::SeqCst);
    // Sum over d of 10 * (d + i): 10 * (6 + 4i).
    let want: Vec<f32> = (0..3).map(|i| 10.0 * (6 + 4 * i) as f32).collect();
    for run in 0..2 {
        let out = loaded
            .execute(&args)
            .unwrap_or_else(|e| panic!("{what}: run {run} after the fault: {e}"));
        assert_eq!(out.results.len(), DEVICES);
        for (d, r) in out.results.iter().enumerate() {
            assert_eq!(values(r), want, "{what}: run {run}, device {d}");
        }
    }
}

#[test]
fn a_panicking_device_fails_the_run_naming_it_and_the_next_run_works() {
    let threaded = CollectiveMode::Threaded {
        // Far longer than the test: a release that waited for it would be a hang.
        deadline: std::time::Duration::from_secs(600),
    };
    for backend in [DeviceBackend::Compiled, DeviceBackend::Interpreter] {
        for mode in [CollectiveMode::Deterministic, threaded] {
            check(backend, mode);
        }
    }
}

/// A reduction that panics: the device that completes the rendezvous runs it while the
/// other members wait for their results, their buffers lent to it.
struct PanickingReducer;

impl xlac::runtime::collectives::Reducer for PanickingReducer {
    fn combine(&self, _ty: PrimitiveType, _acc: &mut [u8], _x: &[u8]) -> Result<(), String> {
        panic!("the reduction panicked");
    }
}

/// Each device all-reduces `[d, d]` through the runtime with [`PanickingReducer`].
struct ReducingDevice<'a> {
    module: &'a xlac::ir::Module,
}

impl xlac::runtime::collectives::DeviceProgram for ReducingDevice<'_> {
    fn run(
        &mut self,
        collectives: &Arc<dyn xlac::runtime::collectives::Collectives>,
        device: usize,
        _args: Vec<xlac::runtime::Argument<'_>>,
    ) -> Result<Literal, String> {
        use xlac::runtime::collectives::{ArrayView, ArrayViewMut, CollectiveOp};
        let instr = self.module.entry_computation().root_instr();
        let op = CollectiveOp::from_instruction(self.module, instr, collectives.grid(), None)
            .map_err(|e| e.headline())?;
        let shape = ArrayShape::new(PrimitiveType::F32, &[2]);
        let operand: Vec<u8> = [device as f32; 2]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let mut result = vec![0u8; 8];
        collectives
            .collective(
                device,
                &op,
                Some(&PanickingReducer),
                &[ArrayView {
                    shape: &shape,
                    data: &operand,
                }],
                &mut [ArrayViewMut {
                    shape: &shape,
                    data: &mut result,
                }],
            )
            .map_err(|e| e.headline())?;
        Ok(f32s(vec![0.0; 2]))
    }
}

#[test]
fn a_device_that_panics_while_moving_a_collectives_data_releases_the_others() {
    use xlac::runtime::collectives::{DeviceProgram, InProcess, run_devices};
    let text = r#"HloModule reduce_only, num_partitions=3

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), channel_id=1, replica_groups={{0,1,2}}, use_global_device_ids=true, to_apply=add
}
"#;
    let module = parse_module(text, "reduce_only.hlo")
        .expect("parses")
        .module;
    let threaded = CollectiveMode::Threaded {
        deadline: std::time::Duration::from_secs(600),
    };
    for mode in [CollectiveMode::Deterministic, threaded] {
        let collectives = Arc::new(InProcess::new(DeviceGrid::new(1, 3), mode));
        let mut programs: Vec<Box<dyn DeviceProgram + '_>> = (0..3)
            .map(|_| Box::new(ReducingDevice { module: &module }) as Box<dyn DeviceProgram + '_>)
            .collect();
        let args: Vec<Vec<Literal>> = vec![Vec::new(); 3];
        let e = run_devices(&mut programs, &args, collectives).expect_err("the reduction panics");
        let CollectiveError::Aborted(message) = &e else {
            panic!("{mode:?}: expected the run aborted by the panicking device, got: {e}");
        };
        assert!(
            message.contains("device ") && message.contains("the reduction panicked"),
            "{mode:?}: {message}"
        );
    }
}
