//! Clients of a `jax.distributed` job, driven through the C table as jaxlib drives them:
//! `Client_Create` with the int64 options `node_id` and `num_nodes` and the key-value
//! callbacks of `PJRT_Client_Create_Args`, here backed by an in-memory store shared by
//! threads that play the processes. Checked: every client lists the job's devices with
//! XLA:CPU's ids, only its own addressable; `UpdateGlobalProcessInfo` succeeds; and the
//! bad cases (options missing or out of range, no store, a store that fails, a topology
//! that does not decode) are errors that say so.

mod common;

use std::collections::HashMap;
use std::ffi::{c_char, c_void};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use common::{Failure, Plugin, args, load};
use xlac_pjrt::abi::*;

/// The key-value store of a job; `fail_gets` makes every get fail, as a dead coordinator
/// would.
#[derive(Default)]
struct Store {
    map: Mutex<HashMap<Vec<u8>, Vec<u8>>>,
    changed: Condvar,
    fail_gets: bool,
}

unsafe fn callback_error(e: *const PJRT_CallbackError, code: i32, message: &str) -> *mut c_void {
    // SAFETY: the plugin's error constructor.
    unsafe { (*e)(code, message.as_ptr().cast(), message.len()) }
}

unsafe extern "C" fn kv_get(a: *mut PJRT_KeyValueGetCallback_Args) -> *mut c_void {
    // SAFETY: the plugin's args, with our store as user arg.
    let a = unsafe { &mut *a };
    let store = unsafe { &*a.user_arg.cast::<Store>() };
    let key = unsafe { std::slice::from_raw_parts(a.key.cast::<u8>(), a.key_size) }.to_vec();
    if store.fail_gets {
        return unsafe { callback_error(a.callback_error, 14, "the coordinator is gone") };
    }
    let timeout = Duration::from_millis(a.timeout_in_ms.max(0) as u64).min(Duration::from_secs(30));
    let map = store.map.lock().unwrap();
    let (map, _) = store
        .changed
        .wait_timeout_while(map, timeout, |m| !m.contains_key(&key))
        .unwrap();
    let Some(value) = map.get(&key) else {
        return unsafe { callback_error(a.callback_error, 4, "deadline exceeded") };
    };
    let boxed = value.clone().into_boxed_slice();
    a.value_size = boxed.len();
    a.value = Box::into_raw(boxed).cast::<c_char>();
    // The deleter needs the length: keep it in a side table keyed by the pointer.
    SIZES.lock().unwrap().push((a.value as usize, a.value_size));
    a.value_deleter_callback = Some(delete_value);
    std::ptr::null_mut()
}

/// The values handed out and not yet deleted: (pointer, length).
static SIZES: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

unsafe extern "C" fn delete_value(v: *mut c_char) {
    let mut sizes = SIZES.lock().unwrap();
    let i = sizes.iter().position(|&(p, _)| p == v as usize).unwrap();
    let (_, n) = sizes.swap_remove(i);
    // SAFETY: the box `kv_get` leaked, with its length.
    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(v.cast::<u8>(), n)) });
}

unsafe extern "C" fn kv_put(a: *mut PJRT_KeyValuePutCallback_Args) -> *mut c_void {
    // SAFETY: the plugin's args, with our store as user arg.
    let a = unsafe { &mut *a };
    let store = unsafe { &*a.user_arg.cast::<Store>() };
    let key = unsafe { std::slice::from_raw_parts(a.key.cast::<u8>(), a.key_size) }.to_vec();
    let value = unsafe { std::slice::from_raw_parts(a.value.cast::<u8>(), a.value_size) };
    store.map.lock().unwrap().insert(key, value.to_vec());
    store.changed.notify_all();
    std::ptr::null_mut()
}

fn int_option(name: &'static str, v: i64) -> PJRT_NamedValue {
    PJRT_NamedValue {
        struct_size: std::mem::size_of::<PJRT_NamedValue>(),
        extension_start: std::ptr::null_mut(),
        name: name.as_ptr().cast(),
        name_size: name.len(),
        type_: PJRT_NamedValue_kInt64,
        value: NamedValueUnion { int64_value: v },
        value_size: 1,
    }
}

/// `Client_Create` as jaxlib calls it after `jax.distributed.initialize`.
fn create(
    p: &Plugin,
    store: Option<&Store>,
    options: &[(&'static str, i64)],
) -> Result<*mut c_void, Failure> {
    let values: Vec<PJRT_NamedValue> = options.iter().map(|&(k, v)| int_option(k, v)).collect();
    let mut a: PJRT_Client_Create_Args = args();
    a.create_options = values.as_ptr();
    a.num_options = values.len();
    if let Some(store) = store {
        let user: *mut c_void = (store as *const Store).cast_mut().cast();
        a.kv_get_callback = kv_get as *mut c_void;
        a.kv_get_user_arg = user;
        a.kv_put_callback = kv_put as *mut c_void;
        a.kv_put_user_arg = user;
    }
    p.call("Client_Create", &mut a)?;
    Ok(a.client)
}

/// What one process sees: (id, process index, addressable) per device of `Client_Devices`,
/// the addressable ids, and the client's process index.
#[derive(Debug, PartialEq)]
struct View {
    devices: Vec<(i32, i32, bool)>,
    addressable: Vec<i32>,
    process_index: i32,
}

fn describe(p: &Plugin, device: *mut c_void) -> (i32, i32, bool) {
    let mut g: PJRT_Device_GetDescription_Args = args();
    g.device = device;
    p.call("Device_GetDescription", &mut g).unwrap();
    let mut i: PJRT_DeviceDescription_Id_Args = args();
    i.device_description = g.device_description;
    p.call("DeviceDescription_Id", &mut i).unwrap();
    let mut pi: PJRT_DeviceDescription_ProcessIndex_Args = args();
    pi.device_description = g.device_description;
    p.call("DeviceDescription_ProcessIndex", &mut pi).unwrap();
    let mut a: PJRT_Device_IsAddressable_Args = args();
    a.device = device;
    p.call("Device_IsAddressable", &mut a).unwrap();
    (i.id, pi.process_index, a.is_addressable)
}

fn view(p: &Plugin, client: *mut c_void) -> View {
    let mut d: PJRT_Client_Devices_Args = args();
    d.client = client;
    p.call("Client_Devices", &mut d).unwrap();
    // SAFETY: the client's device list.
    let all = unsafe { std::slice::from_raw_parts(d.devices, d.num_devices) };
    let mut a: PJRT_Client_AddressableDevices_Args = args();
    a.client = client;
    p.call("Client_AddressableDevices", &mut a).unwrap();
    // SAFETY: the client's addressable device list.
    let local =
        unsafe { std::slice::from_raw_parts(a.addressable_devices, a.num_addressable_devices) };
    let mut pi: PJRT_Client_ProcessIndex_Args = args();
    pi.client = client;
    p.call("Client_ProcessIndex", &mut pi).unwrap();
    View {
        devices: all.iter().map(|&d| describe(p, d)).collect(),
        addressable: local.iter().map(|&d| describe(p, d).0).collect(),
        process_index: pi.process_index,
    }
}

#[test]
fn four_processes_of_two_devices_agree_on_the_job() {
    let p = load();
    let store = Store::default();
    let clients: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|n| {
                let (p, store) = (&p, &store);
                s.spawn(move || {
                    create(
                        p,
                        Some(store),
                        &[("node_id", n), ("num_nodes", 4), ("devices", 2)],
                    )
                    .map(|c| c as usize)
                    .unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ids = [0, 1, 2048, 2049, 4096, 4097, 6144, 6145];
    for (n, &c) in clients.iter().enumerate() {
        let c = c as *mut c_void;
        let v = view(&p, c);
        let expected: Vec<(i32, i32, bool)> = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| (id, i as i32 / 2, i / 2 == n))
            .collect();
        assert_eq!(v.devices, expected, "process {n}");
        assert_eq!(v.addressable, ids[2 * n..2 * n + 2].to_vec());
        assert_eq!(v.process_index, n as i32);

        // Another process's device: found by id, not addressable, no memory here.
        let other = ids[(2 * n + 2) % 8];
        let mut l: PJRT_Client_LookupDevice_Args = args();
        l.client = c;
        l.id = other;
        p.call("Client_LookupDevice", &mut l).unwrap();
        assert_eq!(describe(&p, l.device).0, other);
        let mut m: PJRT_Device_AddressableMemories_Args = args();
        m.device = l.device;
        p.call("Device_AddressableMemories", &mut m).unwrap();
        assert_eq!(m.num_memories, 0);
        let mut dm: PJRT_Device_DefaultMemory_Args = args();
        dm.device = l.device;
        let e = p.call("Device_DefaultMemory", &mut dm).unwrap_err();
        assert!(
            e.message
                .contains(&format!("belongs to process {}", (n + 1) % 4)),
            "{}",
            e.message
        );

        // IFRT's watcher thread calls this; an error would abort the host.
        let mut u: PJRT_Client_UpdateGlobalProcessInfo_Args = args();
        u.client = c;
        p.call("Client_UpdateGlobalProcessInfo", &mut u).unwrap();
        p.destroy_client(c);
    }
}

#[test]
fn one_node_needs_no_store() {
    let p = load();
    let c = create(
        &p,
        None,
        &[("node_id", 0), ("num_nodes", 1), ("devices", 3)],
    )
    .unwrap();
    let v = view(&p, c);
    assert_eq!(v.addressable, vec![0, 1, 2]);
    assert_eq!(v.devices.len(), 3);
    p.destroy_client(c);
}

#[test]
fn bad_distributed_options_are_errors_naming_them() {
    let p = load();
    let store = Store::default();
    for (options, word) in [
        (&[("node_id", 0)][..], "node_id and num_nodes come together"),
        (
            &[("num_nodes", 2)][..],
            "node_id and num_nodes come together",
        ),
        (&[("partition_index", 0)][..], "partition_index needs them"),
        (
            &[("node_id", 2), ("num_nodes", 2)][..],
            "node_id=2 is not below num_nodes=2",
        ),
        (&[("node_id", -1), ("num_nodes", 2)][..], "node_id=-1"),
        (
            &[("node_id", 0), ("num_nodes", 1 << 40)][..],
            "num_nodes=1099511627776",
        ),
    ] {
        let e = create(&p, Some(&store), options).unwrap_err();
        assert_eq!(e.code, 3, "{options:?}");
        assert!(e.message.contains(word), "{options:?}: {}", e.message);
    }
    let e = create(&p, None, &[("node_id", 1), ("num_nodes", 2)]).unwrap_err();
    assert!(e.message.contains("no key-value store"), "{}", e.message);
}

#[test]
fn a_failing_store_is_an_error_naming_the_key() {
    let p = load();
    let store = Store {
        fail_gets: true,
        ..Store::default()
    };
    let e = create(&p, Some(&store), &[("node_id", 1), ("num_nodes", 2)]).unwrap_err();
    assert!(
        e.message
            .contains("getting global_topology/cpu: the coordinator is gone"),
        "{}",
        e.message
    );
}

#[test]
fn a_global_topology_that_does_not_fit_is_refused() {
    let p = load();
    for (value, word) in [
        (vec![0xff, 0xff, 0xff], "does not decode"),
        // One process (field 1, empty message): the job has two.
        (
            vec![0x0a, 0x00],
            "lists 1 processes; the job has num_nodes=2",
        ),
    ] {
        let store = Store::default();
        store
            .map
            .lock()
            .unwrap()
            .insert(b"global_topology/cpu".to_vec(), value);
        let e = create(&p, Some(&store), &[("node_id", 1), ("num_nodes", 2)]).unwrap_err();
        assert!(e.message.contains(word), "{}", e.message);
    }
}

/// A sum over a parameter split across the devices: the partitioner adds the partial sums
/// with an all-reduce, which here crosses processes.
fn sharded_sum(devices: usize) -> String {
    format!(
        "HloModule sharded_sum, num_partitions={devices}\n\nadd {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}}\n\nENTRY main {{\n  p = f32[8] parameter(0), sharding={{devices=[{devices}]<=[{devices}]}}\n  zero = f32[] constant(0)\n  ROOT r = f32[] reduce(p, zero), dimensions={{0}}, to_apply=add, sharding={{replicated}}\n}}\n"
    )
}

/// A `CompileOptionsProto` for one replica of `ids.len()` partitions on devices `ids`.
fn options_on(ids: &[i64]) -> Vec<u8> {
    let assignment = xlac_pjrt::compile_options::device_assignment_bytes(1, ids.len(), ids);
    let mut build = vec![
        0x20,
        1,
        0x28,
        ids.len() as u8,
        0x30,
        1,
        0x4a,
        assignment.len() as u8,
    ];
    build.extend(assignment);
    let mut top = vec![0x1a, build.len() as u8];
    top.extend(build);
    top
}

/// Two processes' clients (`devices` each) on one store.
fn two_processes(p: &Plugin, store: &Store, devices: i64) -> Vec<*mut c_void> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|n| {
                s.spawn(move || {
                    create(
                        p,
                        Some(store),
                        &[("node_id", n), ("num_nodes", 2), ("devices", devices)],
                    )
                    .map(|c| c as usize)
                    .unwrap()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap() as *mut c_void)
            .collect()
    })
}

#[test]
fn a_program_over_processes_says_what_it_needs() {
    let p = load();
    let store = Store::default();
    let clients = two_processes(&p, &store, 1);
    // This test does not run under mpirun: with MPI the launch is what is missing.
    let want = if cfg!(feature = "mpi") {
        "this process was not started by mpirun"
    } else {
        "this xlac plugin was built without MPI"
    };
    for (&c, own) in clients.iter().zip([0, 2048]) {
        let e = p
            .compile(c, sharded_sum(2).as_bytes(), &options_on(&[0, 2048]))
            .unwrap_err();
        assert!(e.message.contains(want), "{}", e.message);
        assert!(!e.message.contains('\n'));
        let e = p
            .compile(c, sharded_sum(2).as_bytes(), &options_on(&[2048, 2048]))
            .unwrap_err();
        assert!(
            e.message.contains("lists device 2048 twice"),
            "{}",
            e.message
        );
        // The process's own device still runs programs.
        let exe = p.compile(c, sharded_sum(1).as_bytes(), &options_on(&[own]));
        p.destroy_loaded(exe.unwrap());
        p.destroy_client(c);
    }
    let store = Store::default();
    let clients = two_processes(&p, &store, 2);
    for &c in &clients {
        let e = p
            .compile(
                c,
                sharded_sum(4).as_bytes(),
                &options_on(&[0, 1, 2048, 2049]),
            )
            .unwrap_err();
        // Several devices per process run across processes too: what is missing is the same.
        assert!(e.message.contains(want), "{}", e.message);
        let e = p
            .compile(c, sharded_sum(2).as_bytes(), &options_on(&[0, 4096]))
            .unwrap_err();
        assert!(
            e.message
                .contains("the job's processes have devices 0..1, 2048..2049"),
            "{}",
            e.message
        );
        p.destroy_client(c);
    }
}

/// `x + 1` over 4 partitions: no collective, so each process runs its own devices alone.
const ADD_ONE: &str = "HloModule add_one, num_partitions=4\n\nENTRY main {\n  p = f32[8] parameter(0), sharding={devices=[4]<=[4]}\n  one = f32[] constant(1)\n  b = f32[8] broadcast(one), dimensions={}\n  ROOT r = f32[8] add(p, b), sharding={devices=[4]<=[4]}\n}\n";

fn put(p: &Plugin, client: *mut c_void, device: *mut c_void, values: &[f32]) -> *mut c_void {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let dims = [values.len() as i64];
    let mut a: PJRT_Client_BufferFromHostBuffer_Args = args();
    a.client = client;
    a.data = bytes.as_ptr().cast();
    a.type_ = 11; // F32
    a.dims = dims.as_ptr();
    a.num_dims = 1;
    a.host_buffer_semantics = 2;
    a.device = device;
    p.call("Client_BufferFromHostBuffer", &mut a).unwrap();
    p.destroy_event(a.done_with_host_buffer);
    a.buffer
}

fn addressable(p: &Plugin, client: *mut c_void) -> Vec<*mut c_void> {
    let mut a: PJRT_Client_AddressableDevices_Args = args();
    a.client = client;
    p.call("Client_AddressableDevices", &mut a).unwrap();
    // SAFETY: the client's list.
    unsafe { std::slice::from_raw_parts(a.addressable_devices, a.num_addressable_devices) }.to_vec()
}

#[test]
fn a_program_without_collectives_runs_each_process_on_its_own_devices() {
    let p = load();
    let store = Store::default();
    let clients = two_processes(&p, &store, 2);
    for (n, &c) in clients.iter().enumerate() {
        let exe = p
            .compile(c, ADD_ONE.as_bytes(), &options_on(&[0, 1, 2048, 2049]))
            .unwrap();
        let local = addressable(&p, c);
        // Shard k of [0, 1, ..., 7] is [2k, 2k+1]; this process holds shards 2n and 2n+1.
        let inputs: Vec<*mut c_void> = (0..2)
            .map(|i| {
                let k = (2 * n + i) as f32;
                put(&p, c, local[i], &[2.0 * k, 2.0 * k + 1.0])
            })
            .collect();
        let rows: Vec<&[*mut c_void]> = inputs.iter().map(std::slice::from_ref).collect();
        let out = p.execute_on_devices(exe, &rows).unwrap();
        for (i, o) in out.iter().enumerate() {
            let k = (2 * n + i) as f32;
            let got: Vec<f32> = p
                .to_host(o[0])
                .unwrap()
                .chunks(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            assert_eq!(got, [2.0 * k + 1.0, 2.0 * k + 2.0], "process {n} shard {i}");
            p.destroy_buffer(o[0]);
        }
        inputs.into_iter().for_each(|b| p.destroy_buffer(b));
        p.destroy_loaded(exe);

        // Programs on the other process's devices only, one without collectives and one
        // with: they compile here and run nowhere.
        let other = [[2048, 2049], [0, 1]][n];
        for (program, ids) in [(sharded_sum(1), &other[..1]), (sharded_sum(2), &other[..])] {
            let exe = p.compile(c, program.as_bytes(), &options_on(ids)).unwrap();
            assert!(p.execute_on_devices(exe, &[]).unwrap().is_empty());
            p.destroy_loaded(exe);
        }
        p.destroy_client(c);
    }
}
