//! The plugin driven through its C table with no Python: create a client, list devices,
//! put host buffers, compile real JAX programs (testdata/: StableHLO text, and the portable
//! artifacts jax.jit sends), execute, read back, and compare with xlac's reference
//! interpreter on the same program and inputs.

mod common;

use std::ffi::c_void;
use std::path::PathBuf;

use common::{Plugin, args, load};
use xlac::eval::{EvalOptions, evaluate};
use xlac::ir::{ArrayLiteral, Literal};
use xlac_pjrt::abi::*;
use xlac_pjrt::buffer::{buffer_type, literal_bytes};

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(name)
}

fn inputs(name: &str) -> Vec<ArrayLiteral> {
    xlac::io::npz::read_arrays(&testdata(name).join("inputs.npz"))
        .expect("inputs.npz")
        .into_iter()
        .map(|a| a.literal)
        .collect()
}

fn interpreter(text: &str, args: &[ArrayLiteral]) -> Vec<ArrayLiteral> {
    // As `xlac run --backend interpreter`: the interpreter runs the optimized module.
    let module = xlac::front::stablehlo::parse_module(text, "model.mlir")
        .unwrap()
        .module;
    let module = xlac::compiler::optimize(module, &Default::default())
        .unwrap()
        .module;
    let args: Vec<Literal> = args.iter().cloned().map(Literal::Array).collect();
    let result = evaluate(&module, &args, &EvalOptions::default()).unwrap();
    let mut out = Vec::new();
    fn flatten(v: Literal, out: &mut Vec<ArrayLiteral>) {
        match v {
            Literal::Array(a) => out.push(a.to_row_major()),
            Literal::Tuple(t) => t.into_iter().for_each(|e| flatten(e, out)),
            Literal::Token => {}
        }
    }
    flatten(result, &mut out);
    out
}

fn put(p: &Plugin, client: *mut c_void, a: &ArrayLiteral) -> *mut c_void {
    let a = a.to_row_major();
    let ty = buffer_type(a.shape.element_type).unwrap();
    p.buffer(client, ty, &a.shape.dims, literal_bytes(&a))
        .expect("BufferFromHostBuffer")
}

/// Runs a testdata model through the C API; returns each output's bytes, dims and type.
fn run_model(
    p: &Plugin,
    client: *mut c_void,
    code: &[u8],
    args: &[ArrayLiteral],
) -> Vec<(Vec<u8>, Vec<i64>, i32)> {
    let exe = p.compile(client, code, &[]).expect("compile");
    let inputs: Vec<_> = args.iter().map(|a| put(p, client, a)).collect();
    let outputs = p.execute(exe, &inputs).expect("execute");
    let got = outputs
        .iter()
        .map(|&b| (p.to_host(b).unwrap(), p.dims(b), p.element_type(b)))
        .collect();
    outputs
        .into_iter()
        .chain(inputs)
        .for_each(|b| p.destroy_buffer(b));
    p.destroy_loaded(exe);
    got
}

/// Five (and more) JAX programs: through the C API, with the interpreter and with the
/// compiled backend, against the interpreter run directly.
#[test]
fn testdata_models_match_the_interpreter() {
    let p = load();
    let interp = p.client(&[("mode", "interpreter")]).unwrap();
    let compiled = p.client(&[]).unwrap();
    for name in [
        "mlp",
        "argmax",
        "softmax",
        "while_loop",
        "int64_math",
        "scatter",
        "cond",
        "sort",
        "layernorm",
    ] {
        let text = std::fs::read_to_string(testdata(name).join("model.mlir")).unwrap();
        let args = inputs(name);
        let want = interpreter(&text, &args);
        for (client, mode) in [(interp, "interpreter"), (compiled, "compiled")] {
            let got = run_model(&p, client, text.as_bytes(), &args);
            assert_eq!(got.len(), want.len(), "{name} ({mode}): output count");
            for (i, ((bytes, dims, ty), w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(dims, &w.shape.dims, "{name} ({mode}) output {i} dims");
                assert_eq!(
                    *ty,
                    buffer_type(w.shape.element_type).unwrap(),
                    "{name} output {i} type"
                );
                if mode == "interpreter" {
                    assert_eq!(
                        bytes.as_slice(),
                        literal_bytes(w),
                        "{name} ({mode}) output {i}"
                    );
                } else {
                    assert_close(name, i, bytes, w);
                }
            }
        }
    }
    p.destroy_client(interp);
    p.destroy_client(compiled);
}

/// The bytes `jax.jit` sends (portable artifacts captured from jaxlib 0.10.2's own
/// serialization, `testdata/bytecode/programs/NAME.jit.mlirbc`) compile through the C API
/// and run like the model's StableHLO text on the interpreter: bit for bit with
/// `mode=interpreter`, within the compiled backend's tolerance otherwise.
#[test]
fn portable_artifacts_match_the_interpreter_on_their_text() {
    let p = load();
    let interp = p.client(&[("mode", "interpreter")]).unwrap();
    let compiled = p.client(&[]).unwrap();
    for name in [
        "mlp",
        "softmax",
        "top_k",
        "elementwise_math",
        "while_loop",
        "scatter",
    ] {
        let code = std::fs::read(testdata("bytecode/programs").join(format!("{name}.jit.mlirbc")))
            .unwrap();
        let text = std::fs::read_to_string(testdata(name).join("model.mlir")).unwrap();
        let args = inputs(name);
        let want = interpreter(&text, &args);
        for (client, mode) in [(interp, "interpreter"), (compiled, "compiled")] {
            let got = run_model(&p, client, &code, &args);
            assert_eq!(got.len(), want.len(), "{name} ({mode}): output count");
            for (i, ((bytes, dims, _), w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(dims, &w.shape.dims, "{name} ({mode}) output {i} dims");
                if mode == "interpreter" {
                    assert_eq!(
                        bytes.as_slice(),
                        literal_bytes(w),
                        "{name} ({mode}) output {i}"
                    );
                } else {
                    assert_close(name, i, bytes, w);
                }
            }
        }
    }
    p.destroy_client(interp);
    p.destroy_client(compiled);
}

/// The compiled backend within a tolerance of the interpreter for floats, exact otherwise.
fn assert_close(name: &str, i: usize, bytes: &[u8], want: &ArrayLiteral) {
    let got = xlac_pjrt::buffer::array_data_from_bytes(want.shape.element_type, bytes).unwrap();
    let got = ArrayLiteral {
        shape: want.shape.clone(),
        data: got,
    };
    let (report, failed) = xlac::eval::compare::compare_arrays(
        &got,
        want,
        xlac::eval::compare::Tolerance {
            rtol: 1e-4,
            atol: 1e-5,
        },
    )
    .map(|r| (format!("{r:?}"), r.mismatches > 0))
    .unwrap_or_else(|e| (e, true));
    assert!(!failed, "{name} output {i}: {report}");
}

#[test]
fn devices_memories_and_attributes() {
    let p = load();
    assert_eq!(p.api.pjrt_api_version.minor_version, 112);
    let client = p.client(&[]).unwrap();
    let mut name: PJRT_Client_PlatformName_Args = args();
    name.client = client;
    p.call("Client_PlatformName", &mut name).unwrap();
    // SAFETY: a 'static string.
    let platform = unsafe {
        std::slice::from_raw_parts(name.platform_name.cast::<u8>(), name.platform_name_size)
    };
    // A CPU platform, as XLA:CPU's plugin names it (jax lowers for the name).
    assert_eq!(platform, b"cpu");
    let mut d: PJRT_Client_Devices_Args = args();
    d.client = client;
    p.call("Client_Devices", &mut d).unwrap();
    assert_eq!(d.num_devices, 1);
    // SAFETY: one device.
    let device = unsafe { *d.devices };
    let mut m: PJRT_Device_DefaultMemory_Args = args();
    m.device = device;
    p.call("Device_DefaultMemory", &mut m).unwrap();
    let mut k: PJRT_Memory_Kind_Args = args();
    k.memory = m.memory;
    p.call("Memory_Kind", &mut k).unwrap();
    // SAFETY: a 'static string.
    assert_eq!(
        unsafe { std::slice::from_raw_parts(k.kind.cast::<u8>(), k.kind_size) },
        b"device"
    );
    // The memory starts with a NULL vtable (the client skips user data then).
    // SAFETY: a memory handle points at its vtable field.
    assert!(unsafe { *(m.memory as *const *const c_void) }.is_null());
    let mut attrs: PJRT_Plugin_Attributes_Args = args();
    p.call("Plugin_Attributes", &mut attrs).unwrap();
    // SAFETY: the plugin's static attributes.
    let attrs = unsafe { std::slice::from_raw_parts(attrs.attributes, attrs.num_attributes) };
    let version = attrs
        .iter()
        .find(|a| unsafe { std::slice::from_raw_parts(a.name.cast::<u8>(), a.name_size) } == b"stablehlo_current_version")
        .expect("stablehlo_current_version");
    // SAFETY: an int64 list of value_size entries.
    let v =
        unsafe { std::slice::from_raw_parts(version.value.int64_array_value, version.value_size) };
    assert_eq!(v, [1, 17, 0]);
    p.destroy_client(client);
}

/// Host round trips, bit-exact, for every stored type, 0-d and 0-size included.
#[test]
fn buffers_round_trip_every_type() {
    let p = load();
    let client = p.client(&[]).unwrap();
    for ty in 1..=15 {
        let size = xlac_pjrt::buffer::element_type(ty).unwrap().byte_size();
        for dims in [vec![], vec![0], vec![2, 0, 3], vec![3], vec![2, 3, 4]] {
            let count: i64 = dims.iter().product();
            let mut data: Vec<u8> = (0..count as usize * size)
                .map(|i| (i * 37 + 11) as u8)
                .collect();
            if ty == 1 {
                data.iter_mut().for_each(|b| *b &= 1);
            }
            let b = p.buffer(client, ty, &dims, &data).unwrap();
            assert_eq!(p.dims(b), dims);
            assert_eq!(p.element_type(b), ty);
            assert_eq!(p.to_host(b).unwrap(), data, "type {ty} dims {dims:?}");
            // The zero-copy view JAX makes of a CPU buffer.
            let mut r: PJRT_Buffer_IncreaseExternalReferenceCount_Args = args();
            r.buffer = b;
            p.call("Buffer_IncreaseExternalReferenceCount", &mut r)
                .unwrap();
            let mut ptr: PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args = args();
            ptr.buffer = b;
            p.call("Buffer_OpaqueDeviceMemoryDataPointer", &mut ptr)
                .unwrap();
            let mut del: PJRT_Buffer_Delete_Args = args();
            del.buffer = b;
            p.call("Buffer_Delete", &mut del).unwrap();
            // Still readable after delete while the external reference lives.
            // SAFETY: the external reference keeps the memory alive.
            let view = unsafe {
                std::slice::from_raw_parts(ptr.device_memory_ptr.cast::<u8>(), data.len())
            };
            assert_eq!(view, data.as_slice());
            let mut dec: PJRT_Buffer_DecreaseExternalReferenceCount_Args = args();
            dec.buffer = b;
            p.call("Buffer_DecreaseExternalReferenceCount", &mut dec)
                .unwrap();
            assert!(p.to_host(b).unwrap_err().message.contains("deleted"));
            p.destroy_buffer(b);
        }
    }
    p.destroy_client(client);
}

/// A column-major host array (byte strides) arrives row-major.
#[test]
fn strided_host_buffers_are_made_dense() {
    let p = load();
    let client = p.client(&[]).unwrap();
    let col_major: [f32; 6] = [0., 3., 1., 4., 2., 5.];
    let dims = [2i64, 3];
    let strides = [4i64, 8];
    let mut a: PJRT_Client_BufferFromHostBuffer_Args = args();
    a.client = client;
    a.data = col_major.as_ptr().cast();
    a.type_ = 11;
    a.dims = dims.as_ptr();
    a.num_dims = 2;
    a.byte_strides = strides.as_ptr();
    a.num_byte_strides = 2;
    p.call("Client_BufferFromHostBuffer", &mut a).unwrap();
    p.destroy_event(a.done_with_host_buffer);
    let bytes = p.to_host(a.buffer).unwrap();
    let want: Vec<u8> = [0f32, 1., 2., 3., 4., 5.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    assert_eq!(bytes, want);
    p.destroy_buffer(a.buffer);
    p.destroy_client(client);
}

/// A bad program fails with xlac's one-line message and its location; the next compile
/// in the same client works.
#[test]
fn bad_programs_fail_and_the_next_compile_works() {
    let p = load();
    let client = p.client(&[]).unwrap();
    let bad = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.frobnicate %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
    let e = p.compile(client, bad.as_bytes(), &[]).unwrap_err();
    assert_eq!(e.code, 3, "{e:?}");
    assert!(
        e.message.starts_with("error: program.mlir:2:"),
        "{}",
        e.message
    );
    assert!(!e.message.contains('\n'));
    let e = p
        .compile(client, b"ML\xefR\x0dStableHLO_v1.17.0\x00\x01", &[])
        .unwrap_err();
    assert_eq!(e.code, 3, "{e:?}");
    assert!(
        e.message.starts_with("error: program.mlirbc: byte "),
        "{}",
        e.message
    );
    assert!(!e.message.contains('\n'));
    let good = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
    let x = ArrayLiteral::from_vec(&[4], vec![1f32, 2., 3., 4.]);
    let got = run_model(&p, client, good.as_bytes(), &[x]);
    let want: Vec<u8> = [2f32, 4., 6., 8.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    assert_eq!(got[0].0, want);
    // Wrong argument count and a deleted argument are errors, not crashes.
    let exe = p.compile(client, good.as_bytes(), &[]).unwrap();
    assert!(
        p.execute(exe, &[])
            .unwrap_err()
            .message
            .contains("takes 1 arguments")
    );
    let b = p.buffer(client, 11, &[3], &[0; 12]).unwrap();
    assert!(
        p.execute(exe, &[b])
            .unwrap_err()
            .message
            .contains("argument 0 is f32[3]")
    );
    p.destroy_buffer(b);
    p.destroy_loaded(exe);
    p.destroy_client(client);
}

/// Unimplemented slots answer UNIMPLEMENTED with their name; the NULL slots are NULL.
#[test]
fn unimplemented_and_null_slots() {
    let p = load();
    for name in NULL_SLOTS {
        assert!(p.slot(name).is_null(), "{name}");
    }
    let mut a: PJRT_Client_TopologyDescription_Args = args();
    let e = p.call("Client_TopologyDescription", &mut a).unwrap_err();
    assert_eq!(e.code, 12);
    assert_eq!(
        e.message,
        "PJRT_Client_TopologyDescription is not implemented by xlac"
    );
}

/// Donation through the C API: `donate_two_of_three` (jax's bytes for
/// `jit(lambda x, y, z: (x + y, y * z, z - 1.0), donate_argnums=(0, 2))`) consumes
/// arguments 0 and 2, which are deleted afterwards, and outputs 0 and 1 are computed in
/// their memory (same data pointer); argument 1 is untouched, and values equal the
/// interpreter's. Listed in `non_donatable_input_indices`, or viewed externally, an
/// argument is kept and the output is a copy; passed twice, it is consumed once.
#[test]
fn donated_inputs_become_their_outputs_without_a_copy() {
    let p = load();
    let client = p.client(&[]).expect("client");
    let dir = testdata("bytecode/attributes");
    let code = std::fs::read(dir.join("donate_two_of_three.jit.mlirbc")).unwrap();
    let text = std::fs::read_to_string(dir.join("donate_two_of_three.mlir")).unwrap();
    let exe = p.compile(client, &code, &[]).expect("compile");
    let arg = |k: usize| {
        let v: Vec<f32> = (0..128).map(|i| (i + 7 * k) as f32 / 64.0).collect();
        ArrayLiteral::from_vec(&[16, 8], v)
    };
    let host: Vec<ArrayLiteral> = (0..3).map(arg).collect();
    let want = interpreter(&text, &host);

    let inputs: Vec<_> = host.iter().map(|a| put(&p, client, a)).collect();
    let before: Vec<usize> = inputs.iter().map(|&b| p.data_pointer(b)).collect();
    let outputs = p.execute(exe, &inputs).expect("execute");
    assert_eq!(outputs.len(), 3);
    assert!(p.is_deleted(inputs[0]) && p.is_deleted(inputs[2]));
    assert!(!p.is_deleted(inputs[1]));
    assert_eq!(p.to_host(inputs[1]).unwrap(), literal_bytes(&host[1]));
    assert_eq!(
        p.data_pointer(outputs[0]),
        before[0],
        "output 0 reuses argument 0"
    );
    assert_eq!(
        p.data_pointer(outputs[1]),
        before[2],
        "output 1 reuses argument 2"
    );
    assert!(!before.contains(&p.data_pointer(outputs[2])));
    for (i, &b) in outputs.iter().enumerate() {
        assert_eq!(p.to_host(b).unwrap(), literal_bytes(&want[i]), "output {i}");
    }
    // A deleted argument cannot be passed again.
    let e = p.execute(exe, &inputs).unwrap_err();
    assert!(e.message.contains("deleted or donated"), "{}", e.message);
    outputs
        .into_iter()
        .chain(inputs)
        .for_each(|b| p.destroy_buffer(b));

    // An external reference (a numpy view) on argument 0: not donated (as XLA:CPU); the
    // buffer and its view keep their bytes and the output has memory of its own.
    let inputs: Vec<_> = host.iter().map(|a| put(&p, client, a)).collect();
    let mut r: PJRT_Buffer_IncreaseExternalReferenceCount_Args = args();
    r.buffer = inputs[0];
    p.call("Buffer_IncreaseExternalReferenceCount", &mut r)
        .unwrap();
    let viewed = p.data_pointer(inputs[0]);
    let outputs = p.execute(exe, &inputs).expect("execute");
    assert!(!p.is_deleted(inputs[0]) && p.is_deleted(inputs[2]));
    assert_eq!(p.to_host(inputs[0]).unwrap(), literal_bytes(&host[0]));
    assert_ne!(p.data_pointer(outputs[0]), viewed);
    // SAFETY: the external reference keeps the 512 bytes alive.
    let view = unsafe { std::slice::from_raw_parts(viewed as *const u8, 512) };
    assert_eq!(view, literal_bytes(&host[0]));
    assert_eq!(p.to_host(outputs[0]).unwrap(), literal_bytes(&want[0]));
    let mut d: PJRT_Buffer_DecreaseExternalReferenceCount_Args = args();
    d.buffer = inputs[0];
    p.call("Buffer_DecreaseExternalReferenceCount", &mut d)
        .unwrap();
    outputs
        .into_iter()
        .chain(inputs)
        .for_each(|b| p.destroy_buffer(b));

    // `non_donatable_input_indices = [0]`: argument 0 is kept, argument 2 still donated.
    let inputs: Vec<_> = host.iter().map(|a| put(&p, client, a)).collect();
    let kept = [0i64];
    let outputs = p.execute_with(exe, &inputs, &kept).expect("execute");
    assert!(!p.is_deleted(inputs[0]) && p.is_deleted(inputs[2]));
    assert_eq!(p.to_host(inputs[0]).unwrap(), literal_bytes(&host[0]));
    for (i, &b) in outputs.iter().enumerate() {
        assert_eq!(p.to_host(b).unwrap(), literal_bytes(&want[i]), "output {i}");
    }
    outputs
        .into_iter()
        .chain(inputs)
        .for_each(|b| p.destroy_buffer(b));

    // The same buffer as arguments 0 and 1 (donated and kept): refused with XLA's
    // INVALID_ARGUMENT, nothing consumed; the next call works.
    let x = put(&p, client, &host[0]);
    let z = put(&p, client, &host[2]);
    let e = p
        .execute(exe, &[x, x, z])
        .expect_err("a donated buffer passed twice");
    assert!(
        e.message.contains("Attempt to use a buffer that was previously donated in the same call to Execute() (flattened argument 1"),
        "{}",
        e.message
    );
    assert!(!p.is_deleted(x) && !p.is_deleted(z));
    assert_eq!(p.to_host(x).unwrap(), literal_bytes(&host[0]));
    let y = put(&p, client, &host[1]);
    let outputs = p.execute(exe, &[x, y, z]).expect("execute");
    for (i, &b) in outputs.iter().enumerate() {
        assert_eq!(p.to_host(b).unwrap(), literal_bytes(&want[i]), "output {i}");
    }
    outputs
        .into_iter()
        .chain([x, y, z])
        .for_each(|b| p.destroy_buffer(b));
    p.destroy_loaded(exe);
    p.destroy_client(client);
}
