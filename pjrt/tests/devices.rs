//! A client of several devices (`devices=N`) driven through the C table: devices and their
//! memories, buffers placed on and copied between devices, a program partitioned over the
//! devices and run with one argument list per device (compared with the reference
//! interpreter on the unpartitioned program), and the bad inputs: an argument on the wrong
//! device, a program over more devices than the client has.

mod common;

use std::ffi::c_void;

use common::{Plugin, args, load};
use xlac::eval::{EvalOptions, evaluate};
use xlac::ir::Literal;
use xlac_pjrt::abi::*;

fn devices(p: &Plugin, client: *mut c_void) -> Vec<*mut c_void> {
    let mut d: PJRT_Client_Devices_Args = args();
    d.client = client;
    p.call("Client_Devices", &mut d).unwrap();
    // SAFETY: the client's device list.
    unsafe { std::slice::from_raw_parts(d.devices, d.num_devices) }.to_vec()
}

fn device_id(p: &Plugin, device: *mut c_void) -> i32 {
    let mut g: PJRT_Device_GetDescription_Args = args();
    g.device = device;
    p.call("Device_GetDescription", &mut g).unwrap();
    let mut i: PJRT_DeviceDescription_Id_Args = args();
    i.device_description = g.device_description;
    p.call("DeviceDescription_Id", &mut i).unwrap();
    i.id
}

fn memory_of(p: &Plugin, device: *mut c_void) -> *mut c_void {
    let mut m: PJRT_Device_DefaultMemory_Args = args();
    m.device = device;
    p.call("Device_DefaultMemory", &mut m).unwrap();
    m.memory
}

fn buffer_device(p: &Plugin, b: *mut c_void) -> *mut c_void {
    let mut a: PJRT_Buffer_Device_Args = args();
    a.buffer = b;
    p.call("Buffer_Device", &mut a).unwrap();
    a.device
}

/// `BufferFromHostBuffer` of f32 values into `memory`, as JAX places a shard.
fn put_f32(p: &Plugin, client: *mut c_void, memory: *mut c_void, values: &[f32]) -> *mut c_void {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let dims = [values.len() as i64];
    let mut a: PJRT_Client_BufferFromHostBuffer_Args = args();
    a.client = client;
    a.data = bytes.as_ptr().cast();
    a.type_ = xlac_pjrt::buffer::buffer_type(xlac::ir::PrimitiveType::F32).unwrap();
    a.dims = dims.as_ptr();
    a.num_dims = 1;
    a.host_buffer_semantics = 2;
    a.memory = memory;
    p.call("Client_BufferFromHostBuffer", &mut a).unwrap();
    p.destroy_event(a.done_with_host_buffer);
    a.buffer
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A `CompileOptionsProto` with `num_replicas` and `num_partitions` and no assignment.
fn compile_options(replicas: u8, partitions: u8) -> Vec<u8> {
    let build = [0x20, replicas, 0x28, partitions, 0x30, 0x01];
    let mut top = vec![0x1a, build.len() as u8];
    top.extend(build);
    top
}

#[test]
fn devices_have_their_ids_and_memories() {
    let p = load();
    let client = p.client(&[("devices", "4")]).unwrap();
    let list = devices(&p, client);
    assert_eq!(list.len(), 4);
    for (i, &d) in list.iter().enumerate() {
        assert_eq!(device_id(&p, d), i as i32);
        let memory = memory_of(&p, d);
        let mut by: PJRT_Memory_AddressableByDevices_Args = args();
        by.memory = memory;
        p.call("Memory_AddressableByDevices", &mut by).unwrap();
        assert_eq!(by.num_devices, 1);
        // SAFETY: one device.
        assert_eq!(unsafe { *by.devices }, d);
    }
    let mut lookup: PJRT_Client_LookupDevice_Args = args();
    lookup.client = client;
    lookup.id = 4;
    assert!(p.call("Client_LookupDevice", &mut lookup).is_err());
    p.destroy_client(client);
}

#[test]
fn buffers_stay_on_their_device_and_copy_across() {
    let p = load();
    let client = p.client(&[("devices", "4")]).unwrap();
    let list = devices(&p, client);
    let b = put_f32(&p, client, memory_of(&p, list[2]), &[1.0, -2.5, 3.0]);
    assert_eq!(buffer_device(&p, b), list[2]);
    let mut c: PJRT_Buffer_CopyToMemory_Args = args();
    c.buffer = b;
    c.dst_memory = memory_of(&p, list[3]);
    p.call("Buffer_CopyToMemory", &mut c).unwrap();
    assert_eq!(buffer_device(&p, c.dst_buffer), list[3]);
    assert_eq!(f32s(&p.to_host(c.dst_buffer).unwrap()), [1.0, -2.5, 3.0]);
    p.destroy_buffer(b);
    p.destroy_buffer(c.dst_buffer);
    p.destroy_client(client);
}

/// A sum of squares over a parameter split four ways: each device squares its quarter and
/// the partitioner adds the partial sums with an all-reduce.
const SHARDED_SUM: &str = r#"HloModule sharded_sum, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[8] parameter(0), sharding={devices=[4]<=[4]}
  sq = f32[8] multiply(p, p)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(sq, zero), dimensions={0}, to_apply=add, sharding={replicated}
}
"#;

#[test]
fn a_partitioned_program_runs_on_every_device() {
    let p = load();
    let client = p.client(&[("devices", "4")]).unwrap();
    let list = devices(&p, client);
    let global: Vec<f32> = (0..8).map(|i| i as f32 * 0.5 - 1.0).collect();
    let module = xlac::front::hlo_text::parse_module(SHARDED_SUM, "sharded_sum.hlo")
        .unwrap()
        .module;
    let want = evaluate(
        &module,
        &[Literal::Array(xlac::ir::ArrayLiteral::from_vec(
            &[8],
            global.clone(),
        ))],
        &EvalOptions::default(),
    )
    .unwrap();
    let want = want.leaves()[0].values::<f32>().unwrap().to_vec();
    let loaded = p
        .compile(client, SHARDED_SUM.as_bytes(), &compile_options(1, 4))
        .unwrap();
    let shards: Vec<*mut c_void> = (0..4)
        .map(|d| {
            put_f32(
                &p,
                client,
                memory_of(&p, list[d]),
                &global[2 * d..2 * d + 2],
            )
        })
        .collect();
    let outputs = p
        .execute_on_devices(
            loaded,
            &[&shards[0..1], &shards[1..2], &shards[2..3], &shards[3..4]],
        )
        .unwrap();
    assert_eq!(outputs.len(), 4);
    for (d, out) in outputs.iter().enumerate() {
        assert_eq!(out.len(), 1);
        assert_eq!(buffer_device(&p, out[0]), list[d]);
        assert_eq!(f32s(&p.to_host(out[0]).unwrap()), want);
    }
    // An argument on another device than its execution's is refused, naming both.
    let e = p
        .execute_on_devices(
            loaded,
            &[&shards[1..2], &shards[0..1], &shards[2..3], &shards[3..4]],
        )
        .unwrap_err();
    assert!(e.message.contains("is on device 1"), "{}", e.message);
    p.destroy_loaded(loaded);
    p.destroy_client(client);
}

#[test]
fn a_program_over_more_devices_than_the_client_has_is_an_error() {
    let p = load();
    let client = p.client(&[("devices", "2")]).unwrap();
    let e = p
        .compile(client, SHARDED_SUM.as_bytes(), &compile_options(1, 4))
        .unwrap_err();
    assert!(e.message.contains("devices=N"), "{}", e.message);
    assert!(e.message.contains("has 2"), "{}", e.message);
    p.destroy_client(client);
}
