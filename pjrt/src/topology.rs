//! The global topology of a multi-process client (`jax.distributed`), agreed through the
//! framework's key-value store as XLA's own clients agree on it
//! (`xla/pjrt/distributed/topology_util.cc`, `ExchangeTopologies`):
//!
//! 1. every node puts its [`LocalTopology`] under `local_topology/cpu/<node_id>`;
//! 2. node 0 gets all of them, checks them, numbers every device and puts the
//!    [`GlobalTopology`] under `global_topology/cpu`;
//! 3. the other nodes get that.
//!
//! The messages are XLA's `LocalTopologyProto` and `GlobalTopologyProto`
//! (`xla/pjrt/distributed/protocol.proto`), restricted to the fields a CPU client fills.
//! Device ids are XLA:CPU's, `2048 * process + local ordinal`
//! (`xla/pjrt/plugin/xla_cpu/cpu_topology.h`), so `jax.devices()` reads the same on xlac as
//! on jax's CPU backend.
//!
//! What comes back from the store is input from other processes: its size is bounded
//! ([`MAX_TOPOLOGY_BYTES`]) and [`GlobalTopology::check`] refuses anything inconsistent
//! before a client is built from it.

use std::ffi::{c_char, c_void};
use std::time::Duration;

use prost::Message;

use crate::abi::*;
use crate::error::{Code, Error, Result};

/// XLA:CPU's stride between processes' device ids (`kMaxCpuDevicesPerProcess`'s role in
/// `cpu_topology.h`): device `l` of process `p` has id `2048 * p + l`.
pub const IDS_PER_PROCESS: usize = 2048;
/// The most processes a job may have (ids stay below `i32::MAX`).
pub const MAX_PROCESSES: usize = 1 << 16;
/// The largest topology message read from the store.
pub const MAX_TOPOLOGY_BYTES: usize = 1 << 20;
/// How long node 0 waits for each node's local topology (XLA's default).
pub const LOCAL_TOPOLOGY_TIMEOUT: Duration = Duration::from_secs(120);
/// How long the other nodes wait for the global topology (XLA's default).
pub const GLOBAL_TOPOLOGY_TIMEOUT: Duration = Duration::from_secs(300);

/// The platform part of the store keys, as XLA:CPU spells it.
const PLATFORM: &str = "cpu";

/// `DeviceProto`, the fields a CPU client fills.
#[derive(Clone, PartialEq, Message)]
pub struct DeviceProto {
    /// The device's index among its process's devices.
    #[prost(int32, tag = "1")]
    pub local_device_ordinal: i32,
    /// Set by node 0 in the global topology.
    #[prost(int32, tag = "4")]
    pub global_device_id: i32,
    /// `"cpu"`.
    #[prost(string, tag = "8")]
    pub device_kind: String,
}

/// `LocalTopologyProto`: one process and its devices.
#[derive(Clone, PartialEq, Message)]
pub struct LocalTopology {
    /// The process's node id (jax's `process_id`).
    #[prost(int32, tag = "1")]
    pub process_id: i32,
    /// Its devices, in local ordinal order.
    #[prost(message, repeated, tag = "3")]
    pub devices: Vec<DeviceProto>,
    /// `partition_index` (`JAX_PARTITION_INDEX`), when given.
    #[prost(int32, optional, tag = "4")]
    pub partition_index: Option<i32>,
}

/// `GlobalTopologyProto`: every process, in process order.
#[derive(Clone, PartialEq, Message)]
pub struct GlobalTopology {
    /// One entry per process.
    #[prost(message, repeated, tag = "1")]
    pub processes: Vec<LocalTopology>,
}

impl LocalTopology {
    /// Process `process_id` with `devices` CPU devices (global ids not set yet).
    pub fn new(process_id: usize, devices: usize, partition_index: Option<i32>) -> LocalTopology {
        LocalTopology {
            process_id: process_id as i32,
            devices: (0..devices)
                .map(|l| DeviceProto {
                    local_device_ordinal: l as i32,
                    global_device_id: 0,
                    device_kind: PLATFORM.into(),
                })
                .collect(),
            partition_index,
        }
    }
}

impl GlobalTopology {
    /// Node 0's step: the local topologies (one per node, any order) as one global
    /// topology with XLA:CPU's device ids.
    pub fn build(mut locals: Vec<LocalTopology>, num_nodes: usize) -> Result<GlobalTopology> {
        locals.sort_by_key(|l| l.process_id);
        for (i, l) in locals.iter_mut().enumerate() {
            if l.process_id != i as i32 {
                return Err(topology_error(format!(
                    "node {i}'s local topology says it is process {}",
                    l.process_id
                )));
            }
            for (ordinal, d) in l.devices.iter_mut().enumerate() {
                d.global_device_id = (i * IDS_PER_PROCESS + ordinal) as i32;
            }
        }
        let global = GlobalTopology { processes: locals };
        global.check(num_nodes)?;
        Ok(global)
    }

    /// Checks what a node read from the store: `num_nodes` processes numbered
    /// 0..num_nodes in order, each with 1..2048 devices whose ordinals are 0, 1, ... and
    /// whose ids are XLA:CPU's.
    pub fn check(&self, num_nodes: usize) -> Result<()> {
        if self.processes.len() != num_nodes {
            return Err(topology_error(format!(
                "the global topology lists {} processes; the job has num_nodes={num_nodes}",
                self.processes.len()
            )));
        }
        for (p, l) in self.processes.iter().enumerate() {
            if l.process_id != p as i32 {
                return Err(topology_error(format!(
                    "entry {p} of the global topology is process {}",
                    l.process_id
                )));
            }
            if l.devices.is_empty() || l.devices.len() > IDS_PER_PROCESS {
                return Err(topology_error(format!(
                    "process {p} has {} devices; each process has 1 to {IDS_PER_PROCESS}",
                    l.devices.len()
                )));
            }
            for (ordinal, d) in l.devices.iter().enumerate() {
                let id = (p * IDS_PER_PROCESS + ordinal) as i32;
                if d.local_device_ordinal != ordinal as i32 || d.global_device_id != id {
                    return Err(topology_error(format!(
                        "process {p}'s device {ordinal} has ordinal {} and id {}; expected ordinal {ordinal} and id {id}",
                        d.local_device_ordinal, d.global_device_id
                    )));
                }
            }
        }
        Ok(())
    }
}

fn topology_error(message: String) -> Error {
    Error::new(
        Code::FailedPrecondition,
        format!("jax.distributed topology: {message}"),
    )
}

/// The two store operations the exchange needs.
pub trait KeyValueStore {
    /// The value under `key`, waiting up to `timeout` for another node to put it.
    fn get(&self, key: &str, timeout: Duration) -> Result<Vec<u8>>;
    /// Puts `value` under `key`.
    fn put(&self, key: &str, value: &[u8]) -> Result<()>;
}

/// Agrees on the global topology with the other `num_nodes - 1` nodes through `store`;
/// `local` is this node's (its `process_id` is `node_id`).
pub fn exchange(
    store: &dyn KeyValueStore,
    node_id: usize,
    num_nodes: usize,
    local: LocalTopology,
) -> Result<GlobalTopology> {
    if num_nodes == 1 {
        return GlobalTopology::build(vec![local], 1);
    }
    let own_devices = local.devices.len();
    store.put(&local_key(node_id), &local.encode_to_vec())?;
    let global = if node_id == 0 {
        let mut locals = Vec::with_capacity(num_nodes);
        for n in 0..num_nodes {
            let bytes = store.get(&local_key(n), LOCAL_TOPOLOGY_TIMEOUT)?;
            let l = decode::<LocalTopology>(&bytes, &format!("node {n}'s local topology"))?;
            if l.process_id != n as i32 {
                return Err(topology_error(format!(
                    "the local topology under {} says process {}",
                    local_key(n),
                    l.process_id
                )));
            }
            locals.push(l);
        }
        let global = GlobalTopology::build(locals, num_nodes)?;
        store.put(&global_key(), &global.encode_to_vec())?;
        global
    } else {
        let bytes = store.get(&global_key(), GLOBAL_TOPOLOGY_TIMEOUT)?;
        let global = decode::<GlobalTopology>(&bytes, "the global topology")?;
        global.check(num_nodes)?;
        global
    };
    let listed = global.processes[node_id].devices.len();
    if listed != own_devices {
        return Err(topology_error(format!(
            "the global topology gives node {node_id} {listed} devices; it has {own_devices}"
        )));
    }
    Ok(global)
}

fn local_key(node: usize) -> String {
    format!("local_topology/{PLATFORM}/{node}")
}

fn global_key() -> String {
    format!("global_topology/{PLATFORM}")
}

fn decode<M: Message + Default>(bytes: &[u8], what: &str) -> Result<M> {
    if bytes.len() > MAX_TOPOLOGY_BYTES {
        return Err(topology_error(format!(
            "{what} is {} bytes; at most {MAX_TOPOLOGY_BYTES} are read",
            bytes.len()
        )));
    }
    M::decode(bytes).map_err(|e| topology_error(format!("{what} does not decode: {e}")))
}

/// Parses a global topology as it would come from the store (the fuzz target's entry).
pub fn decode_global(bytes: &[u8], num_nodes: usize) -> Result<GlobalTopology> {
    let g = decode::<GlobalTopology>(bytes, "the global topology")?;
    g.check(num_nodes)?;
    Ok(g)
}

// ---- the framework's store, through the callbacks of PJRT_Client_Create_Args -------------

/// `PJRT_KeyValueGetCallback` and friends, as `PJRT_Client_Create_Args` carries them.
#[derive(Clone, Copy)]
pub struct CallbackStore {
    get: KeyValueGetCallback,
    get_arg: *mut c_void,
    put: KeyValuePutCallback,
    put_arg: *mut c_void,
}

type KeyValueGetCallback = unsafe extern "C" fn(*mut PJRT_KeyValueGetCallback_Args) -> *mut c_void;
type KeyValuePutCallback = unsafe extern "C" fn(*mut PJRT_KeyValuePutCallback_Args) -> *mut c_void;

impl CallbackStore {
    /// The store behind the create args' callbacks; `None` when the caller gave none.
    ///
    /// # Safety
    /// Non-NULL callbacks must have the header's signatures and stay valid for the call.
    pub unsafe fn from_create_args(a: &PJRT_Client_Create_Args) -> Option<CallbackStore> {
        if a.kv_get_callback.is_null() || a.kv_put_callback.is_null() {
            return None;
        }
        // SAFETY: the caller's contract: these are the header's callback types.
        unsafe {
            Some(CallbackStore {
                get: std::mem::transmute::<*mut c_void, KeyValueGetCallback>(a.kv_get_callback),
                get_arg: a.kv_get_user_arg,
                put: std::mem::transmute::<*mut c_void, KeyValuePutCallback>(a.kv_put_callback),
                put_arg: a.kv_put_user_arg,
            })
        }
    }
}

/// The `PJRT_CallbackError` the framework's callbacks build their errors with: xlac's own
/// error, so that the plugin reads it back like any other.
unsafe extern "C" fn callback_error(
    code: PJRT_Error_Code,
    message: *const c_char,
    message_size: usize,
) -> *mut c_void {
    let text = if message.is_null() {
        String::new()
    } else {
        // SAFETY: the header: `message` is valid for `message_size` bytes during the call.
        let b = unsafe { std::slice::from_raw_parts(message.cast::<u8>(), message_size) };
        String::from_utf8_lossy(b).into_owned()
    };
    let code = match code {
        1 => Code::Cancelled,
        5 => Code::NotFound,
        8 => Code::ResourceExhausted,
        9 => Code::FailedPrecondition,
        11 => Code::OutOfRange,
        12 => Code::Unimplemented,
        3 => Code::InvalidArgument,
        // Deadline exceeded (4), unavailable (14) and the rest: the store failed.
        _ => Code::Internal,
    };
    Error::new(code, text).into_raw()
}

static CALLBACK_ERROR: PJRT_CallbackError = callback_error;

/// Takes back an error a callback returned (built by [`callback_error`]).
fn store_error(e: *mut c_void, what: &str) -> Error {
    // SAFETY: the callbacks build errors only through `callback_error`.
    let e = unsafe { Box::from_raw(e.cast::<Error>()) };
    Error::new(
        e.code,
        format!("jax.distributed topology: {what}: {}", e.message),
    )
}

impl KeyValueStore for CallbackStore {
    fn get(&self, key: &str, timeout: Duration) -> Result<Vec<u8>> {
        let mut a = PJRT_KeyValueGetCallback_Args {
            struct_size: std::mem::size_of::<PJRT_KeyValueGetCallback_Args>(),
            extension_start: std::ptr::null_mut(),
            key: key.as_ptr().cast(),
            key_size: key.len(),
            timeout_in_ms: timeout.as_millis().min(i32::MAX as u128) as i32,
            callback_error: &CALLBACK_ERROR,
            user_arg: self.get_arg,
            value: std::ptr::null_mut(),
            value_size: 0,
            value_deleter_callback: None,
        };
        // SAFETY: the framework's callback with its own user arg.
        let e = unsafe { (self.get)(&mut a) };
        if !e.is_null() {
            return Err(store_error(e, &format!("getting {key}")));
        }
        let value = if a.value.is_null() || a.value_size > MAX_TOPOLOGY_BYTES {
            None
        } else {
            // SAFETY: the callback's value is valid for `value_size` bytes until deleted.
            Some(unsafe { std::slice::from_raw_parts(a.value.cast::<u8>(), a.value_size) }.to_vec())
        };
        let size = a.value_size;
        if let Some(delete) = a.value_deleter_callback
            && !a.value.is_null()
        {
            // SAFETY: the header: the value is freed with the deleter the callback set.
            unsafe { delete(a.value) };
        }
        value.ok_or_else(|| {
            topology_error(format!(
                "the value under {key} is {size} bytes; at most {MAX_TOPOLOGY_BYTES} are read"
            ))
        })
    }

    fn put(&self, key: &str, value: &[u8]) -> Result<()> {
        let mut a = PJRT_KeyValuePutCallback_Args {
            struct_size: std::mem::size_of::<PJRT_KeyValuePutCallback_Args>(),
            extension_start: std::ptr::null_mut(),
            key: key.as_ptr().cast(),
            key_size: key.len(),
            value: value.as_ptr().cast(),
            value_size: value.len(),
            callback_error: &CALLBACK_ERROR,
            user_arg: self.put_arg,
        };
        // SAFETY: the framework's callback with its own user arg.
        let e = unsafe { (self.put)(&mut a) };
        if e.is_null() {
            Ok(())
        } else {
            Err(store_error(e, &format!("putting {key}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::sync::{Condvar, Mutex};

    /// An in-memory store shared by threads that play the nodes.
    #[derive(Default)]
    pub struct MemoryStore {
        map: Mutex<HashMap<String, Vec<u8>>>,
        changed: Condvar,
    }

    impl KeyValueStore for MemoryStore {
        fn get(&self, key: &str, timeout: Duration) -> Result<Vec<u8>> {
            let map = self.map.lock().unwrap();
            let (map, _) = self
                .changed
                .wait_timeout_while(map, timeout.min(Duration::from_secs(20)), |m| {
                    !m.contains_key(key)
                })
                .unwrap();
            map.get(key)
                .cloned()
                .ok_or_else(|| Error::new(Code::NotFound, format!("{key}: deadline exceeded")))
        }
        fn put(&self, key: &str, value: &[u8]) -> Result<()> {
            self.map.lock().unwrap().insert(key.into(), value.to_vec());
            self.changed.notify_all();
            Ok(())
        }
    }

    #[test]
    fn four_nodes_agree_on_xla_cpu_ids() {
        let store = MemoryStore::default();
        let globals: Vec<GlobalTopology> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|n| {
                    let store = &store;
                    s.spawn(move || exchange(store, n, 4, LocalTopology::new(n, 2, None)))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap().unwrap())
                .collect()
        });
        for g in &globals {
            assert_eq!(g, &globals[0]);
        }
        let ids: Vec<Vec<i32>> = globals[0]
            .processes
            .iter()
            .map(|p| p.devices.iter().map(|d| d.global_device_id).collect())
            .collect();
        assert_eq!(
            ids,
            vec![
                vec![0, 1],
                vec![2048, 2049],
                vec![4096, 4097],
                vec![6144, 6145]
            ]
        );
        assert!(
            store
                .map
                .lock()
                .unwrap()
                .contains_key("local_topology/cpu/3")
        );
        assert!(
            store
                .map
                .lock()
                .unwrap()
                .contains_key("global_topology/cpu")
        );
    }

    #[test]
    fn a_bad_global_topology_is_refused() {
        let good =
            GlobalTopology::build((0..2).map(|n| LocalTopology::new(n, 2, None)).collect(), 2)
                .unwrap();
        assert!(decode_global(&good.encode_to_vec(), 2).is_ok());
        let e = decode_global(&good.encode_to_vec(), 3).unwrap_err();
        assert!(e.message.contains("lists 2 processes"), "{}", e.message);
        let mut dup = good.clone();
        dup.processes[1].devices[1].global_device_id = 0;
        let e = decode_global(&dup.encode_to_vec(), 2).unwrap_err();
        assert!(
            e.message.contains("expected ordinal 1 and id 2049"),
            "{}",
            e.message
        );
        let mut empty = good.clone();
        empty.processes[0].devices.clear();
        assert!(decode_global(&empty.encode_to_vec(), 2).is_err());
        let e = decode_global(&[0xff, 0xff, 0xff], 2).unwrap_err();
        assert!(e.message.contains("does not decode"), "{}", e.message);
        let e = decode_global(&vec![0u8; MAX_TOPOLOGY_BYTES + 1], 2).unwrap_err();
        assert!(e.message.contains("at most"), "{}", e.message);
    }

    #[test]
    fn a_node_that_claims_another_id_is_refused() {
        let store = MemoryStore::default();
        store
            .put(
                "local_topology/cpu/1",
                &LocalTopology::new(0, 1, None).encode_to_vec(),
            )
            .unwrap();
        let e = exchange(&store, 0, 2, LocalTopology::new(0, 1, None)).unwrap_err();
        assert!(e.message.contains("says process 0"), "{}", e.message);
    }
}
