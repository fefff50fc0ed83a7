//! The client, its devices (`devices=N`, ids 0..N-1), each device's one memory, and the
//! plugin attributes.
//!
//! After `jax.distributed.initialize`, the framework creates the client with `node_id` and
//! `num_nodes` and hands it its key-value store; the clients of the job agree on the global
//! topology through it ([`crate::topology`]). The client then lists every device of the
//! job, with XLA:CPU's ids (`2048 * process + local ordinal`); the other processes' devices
//! are not addressable and have no memory.
//!
//! Everything a getter returns (names, pointer arrays) lives inside the boxed [`Client`],
//! so it has the client's lifetime as the header requires.

use std::ffi::{c_char, c_int, c_void};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::abi::*;
use crate::error::{Error, Result, bytes, entry_points, guard, slice};
use crate::topology::{self, CallbackStore, GlobalTopology, LocalTopology};

mod devices;
mod options;
#[cfg(test)]
mod tests;

pub use devices::*;
pub use options::*;

/// Most devices one client simulates (the library's limit for a device grid).
pub const MAX_DEVICES: usize = xlac::ifrt::MAX_DEVICES;
/// Most processes of a `jax.distributed` job.
pub const MAX_PROCESSES: usize = crate::topology::MAX_PROCESSES;

/// `PJRT_Memory`: starts with the 0.105 vtable pointer, NULL (no user data support).
#[repr(C)]
pub struct Memory {
    vtable: *const PJRT_Memory_FunctionTable,
    client: *const Client,
    /// The memory's id, equal to its device's.
    id: usize,
    to_string: String,
    /// The one device that addresses it, as a one-entry list.
    devices: [*mut c_void; 1],
}

/// `PJRT_DeviceDescription`.
pub struct DeviceDescription {
    /// The global id (`2048 * process + local ordinal`; the local ordinal in one process).
    id: usize,
    /// The process that owns the device.
    process_index: usize,
    to_string: String,
    debug_string: String,
}

/// `PJRT_Device`: one simulated CPU device of a job: this process's, or another's.
pub struct Device {
    description: DeviceDescription,
    /// Its index among its process's devices (`local_hardware_id`).
    local_ordinal: usize,
    /// This process's device: it has a memory and is addressable.
    addressable: bool,
    /// Its memory, as a one-entry list; empty for another process's device.
    memories: Vec<*mut c_void>,
}

/// `PJRT_Client`.
pub struct Client {
    /// The create options.
    pub options: ClientOptions,
    /// The pool executables run in, when `threads=` was given.
    pub pool: Option<rayon::ThreadPool>,
    /// Compiles so far: numbers the dump folders.
    pub compiles: AtomicUsize,
    /// This process's index in the job (0 when it is alone).
    pub process_index: usize,
    /// The job's processes: how many devices each has.
    process_devices: Vec<usize>,
    // Boxed: the framework keeps pointers to each device and memory, which must not move.
    #[allow(clippy::vec_box)]
    devices: Vec<Box<Device>>,
    #[allow(clippy::vec_box)]
    memories: Vec<Box<Memory>>,
    /// The other processes' devices.
    #[allow(clippy::vec_box)]
    remote_devices: Vec<Box<Device>>,
    /// This process's devices, by local ordinal.
    device_list: Vec<*mut c_void>,
    memory_list: Vec<*mut c_void>,
    /// Every device of the job, by process, then id.
    global_device_list: Vec<*mut c_void>,
    /// The worker threads asynchronous executes run on, one per local device.
    pub queues: crate::execute_queue::ExecuteQueues,
}

impl Drop for Client {
    fn drop(&mut self) {
        // The runs in flight use the client (its pool): they end before it goes.
        self.queues.shut_down();
    }
}

// SAFETY: the raw pointers point into the client itself, which is never moved after
// creation (it lives in a Box) and only read after that.
unsafe impl Send for Client {}
unsafe impl Sync for Client {}

/// Strings the getters hand out; `'static`, so their lifetime is the process's.
///
/// The platform is "cpu", as XLA:CPU's: jax lowers for the platform name a client reports
/// (its CPU rules emit the LAPACK and host-callback custom calls xlac runs,
/// `lax.platform_dependent(cpu=...)` takes the CPU branch) and IFRT hands host callbacks
/// only to CPU and GPU platforms. jax still knows the backend as "xlac", the name it was
/// registered under (`jax.devices("xlac")`); the version and the device's name say xlac.
pub const PLATFORM_NAME: &str = "cpu";
const PLATFORM_VERSION: &str = concat!("xlac ", env!("CARGO_PKG_VERSION"));
const DEVICE_KIND: &str = "cpu";
/// The memory kind JAX expects of a device's default memory.
pub const MEMORY_KIND: &str = "device";

impl Client {
    /// A client alone in its job (no `jax.distributed`).
    fn create(options: ClientOptions) -> Result<Box<Client>> {
        let local = LocalTopology::new(0, options.devices, None);
        let global = GlobalTopology::build(vec![local], 1)?;
        Client::create_in(options, 0, &global)
    }

    /// The client of process `process_index` of a job whose topology is `global` (checked).
    fn create_in(
        options: ClientOptions,
        process_index: usize,
        global: &GlobalTopology,
    ) -> Result<Box<Client>> {
        let pool = match options.threads {
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("xlac-pjrt-{i}"))
                    .build()
                    .map_err(|e| Error::invalid(format!("threads={n}: {e}")))?,
            ),
            None => None,
        };
        let n = options.devices;
        let process_devices: Vec<usize> =
            global.processes.iter().map(|p| p.devices.len()).collect();
        let mut client = Box::new(Client {
            options,
            pool,
            compiles: AtomicUsize::new(0),
            process_index,
            process_devices,
            devices: Vec::with_capacity(n),
            memories: Vec::with_capacity(n),
            remote_devices: Vec::new(),
            device_list: Vec::with_capacity(n),
            memory_list: Vec::with_capacity(n),
            global_device_list: Vec::new(),
            queues: crate::execute_queue::ExecuteQueues::new(n),
        });
        let me: *const Client = &*client;
        for (p, process) in global.processes.iter().enumerate() {
            for d in &process.devices {
                let id = d.global_device_id as usize;
                let mut device = Box::new(Device {
                    description: DeviceDescription {
                        id,
                        process_index: p,
                        to_string: format!("XlacDevice(id={id})"),
                        debug_string: format!("xlac:{id}"),
                    },
                    local_ordinal: d.local_device_ordinal as usize,
                    addressable: p == process_index,
                    memories: Vec::new(),
                });
                let device_ptr: *mut c_void = (&mut *device as *mut Device).cast();
                client.global_device_list.push(device_ptr);
                if p != process_index {
                    client.remote_devices.push(device);
                    continue;
                }
                let mut memory = Box::new(Memory {
                    vtable: std::ptr::null(),
                    client: me,
                    id,
                    to_string: format!("XlacMemory(id={id}, kind={MEMORY_KIND})"),
                    devices: [device_ptr],
                });
                // The boxes keep their addresses when moved into the vectors.
                let memory_ptr: *mut c_void = (&mut *memory as *mut Memory).cast();
                device.memories = vec![memory_ptr];
                client.devices.push(device);
                client.memories.push(memory);
                client.device_list.push(device_ptr);
                client.memory_list.push(memory_ptr);
            }
        }
        if client.device_list.len() != n {
            return Err(Error::new(
                crate::error::Code::FailedPrecondition,
                format!(
                    "jax.distributed topology: process {process_index} has {} devices in the global topology; devices={n}",
                    client.device_list.len()
                ),
            ));
        }
        Ok(client)
    }

    /// How many processes the job has (1 without `jax.distributed`).
    pub fn process_count(&self) -> usize {
        self.process_devices.len()
    }

    /// The number of this process's devices.
    pub fn device_count(&self) -> usize {
        self.device_list.len()
    }

    /// Device `d`'s handle (`d` < [`Client::device_count`]).
    pub fn device_ptr(&self, d: usize) -> *mut c_void {
        self.device_list[d]
    }

    /// The handles of devices `ids`, for getters that return device arrays.
    pub fn device_handles(&self, ids: &[usize]) -> Vec<*mut c_void> {
        ids.iter().map(|&d| self.device_list[d]).collect()
    }

    /// Device `d`'s memory handle.
    pub fn memory_ptr(&self, d: usize) -> *mut c_void {
        self.memory_list[d]
    }

    /// The index of device handle `p`, if it is one of this client's.
    pub fn device_index(&self, p: *mut c_void) -> Option<usize> {
        self.device_list.iter().position(|&d| d == p)
    }

    /// The local index of the device with global id `id`: `Ok(None)` for another process's
    /// device, an error for an id no process has.
    pub fn local_index_of_id(&self, id: i64) -> Result<Option<usize>> {
        let stride = crate::topology::IDS_PER_PROCESS as i64;
        let (p, l) = (id.div_euclid(stride), id.rem_euclid(stride));
        let known = id >= 0
            && usize::try_from(p)
                .ok()
                .and_then(|p| self.process_devices.get(p))
                .is_some_and(|&n| (l as usize) < n);
        if !known {
            return Err(Error::invalid(format!(
                "no xlac device has id {id}; {}",
                self.describe_ids()
            )));
        }
        Ok((p as usize == self.process_index).then_some(l as usize))
    }

    /// The process of each of `ids` when some are another process's (`None` when all
    /// are this process's, or one is no device of the job: the caller reports that).
    pub fn owners(&self, ids: &[i64]) -> Option<Vec<u32>> {
        let mut remote = false;
        let mut owners = Vec::with_capacity(ids.len());
        for &id in ids {
            let Ok(local) = self.local_index_of_id(id) else {
                return None;
            };
            remote |= local.is_none();
            owners.push((id / crate::topology::IDS_PER_PROCESS as i64) as u32);
        }
        remote.then_some(owners)
    }

    /// This process's place in its job (process 0 of 1 without `jax.distributed`).
    pub fn distributed(&self) -> Distributed {
        Distributed {
            node_id: self.process_index,
            num_nodes: self.process_count(),
            partition_index: self.options.distributed.and_then(|d| d.partition_index),
        }
    }

    /// The ids of the job's devices, for error messages.
    pub fn describe_ids(&self) -> String {
        let stride = crate::topology::IDS_PER_PROCESS;
        if self.process_devices.len() == 1 {
            return format!("the client has devices 0..{}", self.device_count() - 1);
        }
        let ranges: Vec<String> = self
            .process_devices
            .iter()
            .enumerate()
            .map(|(p, &n)| format!("{}..{}", p * stride, p * stride + n - 1))
            .collect();
        format!(
            "the job's processes have devices {} (this is process {})",
            ranges.join(", "),
            self.process_index
        )
    }

    /// The next compile's number, for `module_NNNN` dump folders.
    pub fn next_compile_number(&self) -> usize {
        self.compiles.fetch_add(1, Ordering::Relaxed)
    }

    /// Runs `f` in the client's pool (or the global one).
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }
}

/// Borrows the client behind a handle.
///
/// # Safety
/// `p` must be NULL or a live client from `PJRT_Client_Create`.
pub unsafe fn client_ref<'a>(p: *mut c_void) -> Result<&'a Client> {
    // SAFETY: the caller's contract.
    unsafe { p.cast::<Client>().as_ref() }.ok_or_else(|| Error::invalid("the PJRT_Client is NULL"))
}

/// The index of a device handle of this client; `None` for NULL ("the default").
pub fn check_device(client: &Client, device: *mut c_void) -> Result<Option<usize>> {
    if device.is_null() {
        return Ok(None);
    }
    client
        .device_index(device)
        .map(Some)
        .ok_or_else(|| Error::invalid("the PJRT_Device does not belong to this xlac client"))
}

/// The device index of a memory handle of this client; `None` for NULL.
pub fn check_memory(client: &Client, memory: *mut c_void) -> Result<Option<usize>> {
    if memory.is_null() {
        return Ok(None);
    }
    client
        .memory_list
        .iter()
        .position(|&m| m == memory)
        .map(Some)
        .ok_or_else(|| Error::invalid("the PJRT_Memory does not belong to this xlac client"))
}

unsafe fn device_ref<'a>(p: *mut c_void) -> Result<&'a Device> {
    // SAFETY: handles come from this client.
    unsafe { p.cast::<Device>().as_ref() }.ok_or_else(|| Error::invalid("the PJRT_Device is NULL"))
}

unsafe fn memory_ref<'a>(p: *mut c_void) -> Result<&'a Memory> {
    // SAFETY: handles come from this client.
    unsafe { p.cast::<Memory>().as_ref() }.ok_or_else(|| Error::invalid("the PJRT_Memory is NULL"))
}

unsafe fn description_ref<'a>(p: *mut c_void) -> Result<&'a DeviceDescription> {
    // SAFETY: handles come from this client.
    unsafe { p.cast::<DeviceDescription>().as_ref() }
        .ok_or_else(|| Error::invalid("the PJRT_DeviceDescription is NULL"))
}

fn str_out(s: &'static str) -> (*const c_char, usize) {
    (s.as_ptr().cast(), s.len())
}

/// A string owned by a device or memory, which lives as long as the client.
fn owned_str_out(s: &str) -> (*const c_char, usize) {
    (s.as_ptr().cast(), s.len())
}

// ---- plugin ---------------------------------------------------------------------------

pub unsafe extern "C" fn plugin_initialize(args: *mut PJRT_Plugin_Initialize_Args) -> *mut c_void {
    guard("Plugin_Initialize", args, |_| Ok(()))
}

struct Attributes([PJRT_NamedValue; 3]);
// SAFETY: the values point at 'static data only.
unsafe impl Send for Attributes {}
unsafe impl Sync for Attributes {}

static CURRENT_VERSION: [i64; 3] = [1, 17, 0];
static MINIMUM_VERSION: [i64; 3] = [1, 0, 0];

fn named_int(name: &'static str, v: i64) -> PJRT_NamedValue {
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

fn named_list(name: &'static str, v: &'static [i64]) -> PJRT_NamedValue {
    PJRT_NamedValue {
        struct_size: std::mem::size_of::<PJRT_NamedValue>(),
        extension_start: std::ptr::null_mut(),
        name: name.as_ptr().cast(),
        name_size: name.len(),
        type_: PJRT_NamedValue_kInt64List,
        value: NamedValueUnion {
            int64_array_value: v.as_ptr(),
        },
        value_size: v.len(),
    }
}

/// `xla_version` (XLA's CPU plugin reports 2), `stablehlo_current_version` = 1.17.0 (pins
/// the VHLO version JAX serializes to) and
/// `stablehlo_minimum_version` = 1.0.0 (from there on JAX writes bytecode v6, the version
/// xlac's reader reads).
pub unsafe extern "C" fn plugin_attributes(args: *mut PJRT_Plugin_Attributes_Args) -> *mut c_void {
    static ATTRS: OnceLock<Attributes> = OnceLock::new();
    guard("Plugin_Attributes", args, |a| {
        let attrs = ATTRS.get_or_init(|| {
            Attributes([
                named_int("xla_version", 2),
                named_list("stablehlo_current_version", &CURRENT_VERSION),
                named_list("stablehlo_minimum_version", &MINIMUM_VERSION),
            ])
        });
        a.attributes = attrs.0.as_ptr();
        a.num_attributes = attrs.0.len();
        Ok(())
    })
}

// ---- client ---------------------------------------------------------------------------

entry_points! {
    fn client_create(a: PJRT_Client_Create_Args) {
        // SAFETY: the framework's options array.
        let values = unsafe { read_named_values(a.create_options, a.num_options)? };
        let options = ClientOptions::parse(&values)?;
        // SAFETY: the framework's callbacks, valid during the call.
        let store = unsafe { CallbackStore::from_create_args(a) };
        if let Some(target) = &options.log_calls {
            crate::call_log::configure(target)
                .map_err(|e| Error::invalid(format!("log_calls={target}: {e}")))?;
        }
        if let Some(dir) = &options.dump_to {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::invalid(format!("dump_to={}: {e}", dir.display())))?;
        }
        let client = match options.distributed {
            None => Client::create(options)?,
            Some(d) => {
                let local = LocalTopology::new(d.node_id, options.devices, d.partition_index);
                let global = match store {
                    Some(store) => topology::exchange(&store, d.node_id, d.num_nodes, local)?,
                    None if d.num_nodes == 1 => GlobalTopology::build(vec![local], 1)?,
                    None => {
                        return Err(Error::invalid(format!(
                            "create options node_id={} num_nodes={}: the caller gave no key-value store to agree on the topology with (jax.distributed.initialize gives one)",
                            d.node_id, d.num_nodes
                        )));
                    }
                };
                if d.num_nodes > 1 {
                    crate::mpi_job::start(d.node_id, d.num_nodes)?;
                }
                Client::create_in(options, d.node_id, &global)?
            }
        };
        a.client = Box::into_raw(client).cast();
        Ok(())
    }

    fn client_destroy(a: PJRT_Client_Destroy_Args) {
        if !a.client.is_null() {
            // SAFETY: the handle came from `client_create`; the framework destroys it once.
            drop(unsafe { Box::from_raw(a.client.cast::<Client>()) });
        }
        Ok(())
    }

    fn client_platform_name(a: PJRT_Client_PlatformName_Args) {
        (a.platform_name, a.platform_name_size) = str_out(PLATFORM_NAME);
        Ok(())
    }

    fn client_process_index(a: PJRT_Client_ProcessIndex_Args) {
        // SAFETY: a live client.
        let c = unsafe { client_ref(a.client)? };
        a.process_index = c.process_index as c_int;
        Ok(())
    }

    /// IFRT's watcher thread reports the job's processes (alive, restarted); the client
    /// aborts the host on an error here, and xlac has nothing to update.
    fn client_update_global_process_info(a: PJRT_Client_UpdateGlobalProcessInfo_Args) {
        // SAFETY: a live client.
        unsafe { client_ref(a.client)? };
        Ok(())
    }

    fn client_platform_version(a: PJRT_Client_PlatformVersion_Args) {
        (a.platform_version, a.platform_version_size) = str_out(PLATFORM_VERSION);
        Ok(())
    }

    fn client_devices(a: PJRT_Client_Devices_Args) {
        // SAFETY: a live client.
        let c = unsafe { client_ref(a.client)? };
        a.devices = c.global_device_list.as_ptr();
        a.num_devices = c.global_device_list.len();
        Ok(())
    }

    fn client_addressable_devices(a: PJRT_Client_AddressableDevices_Args) {
        // SAFETY: a live client.
        let c = unsafe { client_ref(a.client)? };
        a.addressable_devices = c.device_list.as_ptr();
        a.num_addressable_devices = c.device_count();
        Ok(())
    }

    fn client_lookup_device(a: PJRT_Client_LookupDevice_Args) {
        // SAFETY: a live client.
        let c = unsafe { client_ref(a.client)? };
        let found = c.global_device_list.iter().copied().find(|&p| {
            // SAFETY: the client's own handles.
            unsafe { device_ref(p) }.is_ok_and(|d| d.description.id as i64 == a.id as i64)
        });
        let Some(device) = found else {
            return Err(Error::new(
                crate::error::Code::NotFound,
                format!("no xlac device with id {}; {}", a.id, c.describe_ids()),
            ));
        };
        a.device = device;
        Ok(())
    }

    fn client_lookup_addressable_device(a: PJRT_Client_LookupAddressableDevice_Args) {
        // SAFETY: a live client.
        let c = unsafe { client_ref(a.client)? };
        let Some(d) = usize::try_from(a.local_hardware_id)
            .ok()
            .filter(|&d| d < c.device_count())
        else {
            return Err(Error::new(
                crate::error::Code::NotFound,
                format!(
                    "no xlac device with local hardware id {}",
                    a.local_hardware_id
                ),
            ));
        };
        a.addressable_device = c.device_ptr(d);
        Ok(())
    }

    fn client_addressable_memories(a: PJRT_Client_AddressableMemories_Args) {
        // SAFETY: a live client.
        let c = unsafe { client_ref(a.client)? };
        a.addressable_memories = c.memory_list.as_ptr();
        a.num_addressable_memories = c.device_count();
        Ok(())
    }

    fn client_default_device_assignment(a: PJRT_Client_DefaultDeviceAssignment_Args) {
        // SAFETY: a live client.
        let c = unsafe { client_ref(a.client)? };
        let count = usize::try_from(a.num_replicas)
            .ok()
            .zip(usize::try_from(a.num_partitions).ok())
            .and_then(|(r, p)| r.checked_mul(p))
            .filter(|&n| n >= 1 && n <= c.device_count());
        let Some(count) = count else {
            return Err(Error::invalid(format!(
                "{} replicas x {} partitions: the xlac client has {} devices (create option devices=N)",
                a.num_replicas,
                a.num_partitions,
                c.device_count()
            )));
        };
        if a.default_assignment_size < count || a.default_assignment.is_null() {
            return Err(Error::invalid(format!(
                "default_assignment has no room for {count} devices"
            )));
        }
        // SAFETY: room for `count` entries, checked above.
        let out = unsafe { std::slice::from_raw_parts_mut(a.default_assignment, count) };
        // This process's devices: a program xlac compiles runs on the devices it owns.
        for (slot, &p) in out.iter_mut().zip(&c.device_list) {
            // SAFETY: the client's own handles.
            *slot = unsafe { device_ref(p)? }.description.id as c_int;
        }
        Ok(())
    }
}
