//! The client: a set of devices and the memory their buffers live in (IFRT's `Client`,
//! `xla/python/ifrt/client.h`; jax's backend). Devices are the simulated CPU devices of
//! this process; their buffers are kept in one [`DeviceMemory`] of the runtime, so an
//! array made here stays on its devices until it is deleted or dropped. The client counts
//! every byte that crosses between host and devices ([`TransferStats`]): that is how a test
//! sees that an executable's parameters never left the devices.

use std::sync::{Arc, Mutex};

use super::{Array, IfrtError, LoadedExecutable, Result, Sharding};
use crate::ir::{ArrayLiteral, Literal, Module};
use crate::runtime::device_memory::{BufferId, DeviceMemory};

/// The most devices one client simulates (each runs on a thread during an execute).
pub const MAX_DEVICES: usize = crate::runtime::collectives::MAX_DEVICES;

/// A device's id: its index in [`Client::devices`].
pub type DeviceId = usize;

/// One device of a client (IFRT's `Device`; jax prints it `CpuDevice(id=3)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// Its id.
    pub id: DeviceId,
    /// The process it belongs to (always 0: every device is in this process).
    pub process_index: usize,
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuDevice(id={})", self.id)
    }
}

/// Bytes moved so far, by direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransferStats {
    /// Host to device (`make_array_from_host`).
    pub host_to_device_bytes: u64,
    /// Device to host (`copy_to_host`, `addressable_shards`).
    pub device_to_host_bytes: u64,
    /// Between two devices (the transfer steps of `reshard`).
    pub device_to_device_bytes: u64,
}

pub(crate) struct ClientState {
    pub(crate) devices: Vec<Device>,
    pub(crate) memory: DeviceMemory,
    transfers: Mutex<TransferStats>,
}

/// A handle on a set of devices; clones share them.
#[derive(Clone)]
pub struct Client {
    pub(crate) state: Arc<ClientState>,
}

impl Client {
    /// A client of `devices` CPU devices (jax's `--xla_force_host_platform_device_count`).
    pub fn new(devices: usize) -> Result<Client> {
        if devices == 0 || devices > MAX_DEVICES {
            return Err(IfrtError::DeviceCount { requested: devices });
        }
        Ok(Client {
            state: Arc::new(ClientState {
                devices: (0..devices)
                    .map(|id| Device {
                        id,
                        process_index: 0,
                    })
                    .collect(),
                memory: DeviceMemory::new(devices),
                transfers: Mutex::new(TransferStats::default()),
            }),
        })
    }

    /// Every device.
    pub fn devices(&self) -> &[Device] {
        &self.state.devices
    }

    /// The device `id`.
    pub fn lookup_device(&self, id: DeviceId) -> Result<&Device> {
        self.state.devices.get(id).ok_or(IfrtError::NoSuchDevice {
            device: id,
            devices: self.state.devices.len(),
        })
    }

    /// Bytes moved so far.
    pub fn transfer_stats(&self) -> TransferStats {
        *self
            .state
            .transfers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Live buffers on every device (each shard of each live array is one).
    pub fn live_buffers(&self) -> usize {
        self.state.memory.live_buffers()
    }

    pub(crate) fn count(&self, f: impl FnOnce(&mut TransferStats)) {
        f(&mut self
            .state
            .transfers
            .lock()
            .unwrap_or_else(|p| p.into_inner()));
    }

    /// Checks that every device of `sharding` is one of this client's.
    pub(crate) fn check_devices(&self, sharding: &Sharding) -> Result<()> {
        for &d in sharding.devices() {
            self.lookup_device(d)?;
        }
        Ok(())
    }

    /// Places `value` on `device`.
    pub(crate) fn put(&self, device: DeviceId, value: Arc<Literal>) -> Result<BufferId> {
        self.state
            .memory
            .insert(device, value)
            .ok_or(IfrtError::NoSuchDevice {
                device,
                devices: self.state.devices.len(),
            })
    }

    /// An array of `host`'s shape and type whose shards (one per device of `sharding`,
    /// each its index domain of `host`) are copied to their devices (IFRT's
    /// `MakeArrayFromHostBuffer`, jax's `device_put`).
    pub fn make_array_from_host(&self, host: &ArrayLiteral, sharding: Sharding) -> Result<Array> {
        Array::from_host(self, host, sharding)
    }

    /// One array from single-device arrays, one per device of `sharding` in its device
    /// order, each holding that device's shard; the buffers are shared, not copied (IFRT's
    /// `AssembleArrayFromSingleDeviceArrays`, jax's
    /// `make_array_from_single_device_arrays`).
    pub fn assemble_array_from_single_device_arrays(
        &self,
        dims: &[i64],
        sharding: Sharding,
        arrays: &[Array],
    ) -> Result<Array> {
        Array::assemble(self, dims, sharding, arrays)
    }

    /// Compiles `module` (a global SPMD program, or an already partitioned one) for its
    /// partition count on devices `0..N`, once; see [`LoadedExecutable`].
    pub fn compile(&self, module: Module) -> Result<LoadedExecutable> {
        LoadedExecutable::compile(self, module, None)
    }

    /// [`compile`](Self::compile) on the given devices (partition `p` on `devices[p]`,
    /// XLA's device assignment).
    pub fn compile_on(&self, module: Module, devices: &[DeviceId]) -> Result<LoadedExecutable> {
        LoadedExecutable::compile(self, module, Some(devices))
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Client({} cpu devices)", self.state.devices.len())
    }
}
