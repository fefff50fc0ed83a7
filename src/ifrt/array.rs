//! Arrays: one global value (shape, element type, sharding) whose shards live on devices
//! (IFRT's `Array`, `xla/python/ifrt/array.h`; jax's `jax.Array`). An [`Array`] is a
//! handle: clones share the shards, [`Array::delete`] frees them for every clone, and the
//! last handle dropped frees them too. Using a deleted array is an
//! [`IfrtError::ArrayDeleted`], never a crash.

use std::sync::{Arc, Mutex};

use super::copy::{copy_box, empty_like};
use super::{Client, DeviceId, IfrtError, IndexDomain, Result, Sharding};
use crate::ir::{ArrayLiteral, ArrayShape, Literal, PrimitiveType};
use crate::runtime::device_memory::BufferId;

/// One shard of an array: where it is and which box of the global array it holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Shard {
    pub(crate) device: DeviceId,
    pub(crate) domain: IndexDomain,
    pub(crate) buffer: BufferId,
}

struct ArrayState {
    client: Client,
    dtype: PrimitiveType,
    dims: Vec<i64>,
    sharding: Sharding,
    /// `None` once deleted.
    shards: Mutex<Option<Vec<Shard>>>,
}

impl Drop for ArrayState {
    fn drop(&mut self) {
        if let Some(shards) = self.shards.get_mut().ok().and_then(Option::take) {
            for s in shards {
                self.client.state.memory.remove(s.buffer);
            }
        }
    }
}

/// A global array over devices.
#[derive(Clone)]
pub struct Array {
    state: Arc<ArrayState>,
}

/// What jax's `addressable_shards[i]` shows: the device, the index (the box of the global
/// array), the replica id (which copy of that box this is, counting in device order) and
/// the data (copied to the host).
#[derive(Clone, Debug, PartialEq)]
pub struct AddressableShard {
    /// The device.
    pub device: DeviceId,
    /// `shard.index`.
    pub index: IndexDomain,
    /// `shard.replica_id`.
    pub replica_id: usize,
    /// `shard.data`, on the host.
    pub data: ArrayLiteral,
}

impl Array {
    /// An array from its parts; the shards' buffers must be live on `client`.
    pub(crate) fn from_shards(
        client: &Client,
        dtype: PrimitiveType,
        dims: Vec<i64>,
        sharding: Sharding,
        shards: Vec<Shard>,
    ) -> Array {
        Array {
            state: Arc::new(ArrayState {
                client: client.clone(),
                dtype,
                dims,
                sharding,
                shards: Mutex::new(Some(shards)),
            }),
        }
    }

    pub(crate) fn from_host(
        client: &Client,
        host: &ArrayLiteral,
        sharding: Sharding,
    ) -> Result<Array> {
        client.check_devices(&sharding)?;
        let host = host.to_row_major();
        let dims = host.shape.dims.clone();
        let domains = sharding.index_domains(&dims)?;
        let mut shards = Vec::with_capacity(domains.len());
        let mut bytes = 0u64;
        for (device, domain) in domains {
            let mut data = empty_like(&host, &domain.dims());
            copy_box(
                &mut data,
                &IndexDomain::full(&domain.dims()),
                &host,
                &domain,
            );
            bytes += (data.shape.byte_size()) as u64;
            let buffer = client.put(device, Arc::new(Literal::Array(data)))?;
            shards.push(Shard {
                device,
                domain,
                buffer,
            });
        }
        client.count(|t| t.host_to_device_bytes += bytes);
        Ok(Array::from_shards(
            client,
            host.shape.element_type,
            dims,
            sharding,
            shards,
        ))
    }

    pub(crate) fn assemble(
        client: &Client,
        dims: &[i64],
        sharding: Sharding,
        arrays: &[Array],
    ) -> Result<Array> {
        client.check_devices(&sharding)?;
        let domains = sharding.index_domains(dims)?;
        if arrays.len() != domains.len() {
            return Err(IfrtError::DeviceMismatch(format!(
                "{sharding} has {} shards, {} single-device arrays were given",
                domains.len(),
                arrays.len()
            )));
        }
        let dtype = match arrays.first() {
            Some(a) => a.dtype(),
            None => {
                return Err(IfrtError::DeviceMismatch(
                    "no single-device arrays to assemble".into(),
                ));
            }
        };
        let mut shards = Vec::with_capacity(arrays.len());
        for (i, (a, (device, domain))) in arrays.iter().zip(domains).enumerate() {
            let what = format!("single-device array {i}");
            let parts = a.shards(&what)?;
            let [part] = parts.as_slice() else {
                return Err(IfrtError::DeviceMismatch(format!(
                    "{what} is on {} devices, not one",
                    parts.len()
                )));
            };
            if part.device != device {
                return Err(IfrtError::DeviceMismatch(format!(
                    "{what} is on device {}, {sharding} puts shard {i} on device {device}",
                    part.device
                )));
            }
            if a.dims() != domain.dims().as_slice() || a.dtype() != dtype {
                return Err(IfrtError::ShapeMismatch {
                    what,
                    expected: super::shape_text(dtype, &domain.dims()),
                    given: a.shape_text(),
                });
            }
            let (_, value) = client
                .state
                .memory
                .get(part.buffer)
                .ok_or(IfrtError::ArrayDeleted { what: what.clone() })?;
            shards.push(Shard {
                device,
                domain,
                buffer: client.put(device, value)?,
            });
        }
        Ok(Array::from_shards(
            client,
            dtype,
            dims.to_vec(),
            sharding,
            shards,
        ))
    }

    /// The element type.
    pub fn dtype(&self) -> PrimitiveType {
        self.state.dtype
    }

    /// The global shape's dimensions.
    pub fn dims(&self) -> &[i64] {
        &self.state.dims
    }

    /// The global shape as HLO prints it: `f32[8,16]`.
    pub fn shape_text(&self) -> String {
        super::shape_text(self.state.dtype, &self.state.dims)
    }

    /// The sharding.
    pub fn sharding(&self) -> &Sharding {
        &self.state.sharding
    }

    /// The client the array lives on.
    pub fn client(&self) -> &Client {
        &self.state.client
    }

    /// True once [`delete`](Self::delete) ran.
    pub fn is_deleted(&self) -> bool {
        self.lock().is_none()
    }

    /// Frees the shards now (for every clone of this handle); later uses are errors.
    pub fn delete(&self) {
        if let Some(shards) = self.lock().take() {
            for s in shards {
                self.state.client.state.memory.remove(s.buffer);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Vec<Shard>>> {
        self.state.shards.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The shards, or `ArrayDeleted` naming the array as `what`.
    pub(crate) fn shards(&self, what: &str) -> Result<Vec<Shard>> {
        self.lock().clone().ok_or_else(|| IfrtError::ArrayDeleted {
            what: what.to_string(),
        })
    }

    /// Each shard's data, without a host copy (the executable's arguments, reshard's
    /// sources).
    pub(crate) fn shard_values(&self, what: &str) -> Result<Vec<(Shard, Arc<Literal>)>> {
        self.shards(what)?
            .into_iter()
            .map(|s| {
                let (_, v) = self
                    .state
                    .client
                    .state
                    .memory
                    .get(s.buffer)
                    .ok_or_else(|| IfrtError::ArrayDeleted {
                        what: what.to_string(),
                    })?;
                Ok((s, v))
            })
            .collect()
    }

    /// Every shard as jax's `addressable_shards` lists it (in the sharding's device
    /// order), its data copied to the host.
    pub fn addressable_shards(&self) -> Result<Vec<AddressableShard>> {
        let values = self.shard_values("the array")?;
        let mut out: Vec<AddressableShard> = Vec::with_capacity(values.len());
        let mut bytes = 0u64;
        for (s, v) in values {
            let data = literal_array(&v)?.clone();
            bytes += data.shape.byte_size() as u64;
            let replica_id = out.iter().filter(|o| o.index == s.domain).count();
            out.push(AddressableShard {
                device: s.device,
                index: s.domain,
                replica_id,
                data,
            });
        }
        self.state.client.count(|t| t.device_to_host_bytes += bytes);
        Ok(out)
    }

    /// The global value on the host, each element from the first shard that holds it
    /// (IFRT's `CopyToHostBuffer`, `np.asarray(x)`).
    pub fn copy_to_host(&self) -> Result<ArrayLiteral> {
        let values = self.shard_values("the array")?;
        let mut out = ArrayLiteral::zeros(ArrayShape::new(self.state.dtype, &self.state.dims));
        let mut copied: Vec<&IndexDomain> = Vec::new();
        let mut bytes = 0u64;
        for (s, v) in &values {
            if copied.contains(&&s.domain) {
                continue;
            }
            let data = literal_array(v)?;
            copy_box(
                &mut out,
                &s.domain,
                data,
                &IndexDomain::full(&s.domain.dims()),
            );
            bytes += data.shape.byte_size() as u64;
            copied.push(&s.domain);
        }
        self.state.client.count(|t| t.device_to_host_bytes += bytes);
        Ok(out)
    }

    /// One single-device array per shard, in the sharding's device order, sharing the
    /// shards' buffers (IFRT's `DisassembleIntoSingleDeviceArrays`).
    pub fn disassemble(&self) -> Result<Vec<Array>> {
        let client = &self.state.client;
        self.shard_values("the array")?
            .into_iter()
            .map(|(s, v)| {
                let dims = s.domain.dims();
                let buffer = client.put(s.device, v)?;
                Ok(Array::from_shards(
                    client,
                    self.state.dtype,
                    dims.clone(),
                    Sharding::SingleDevice { device: s.device },
                    vec![Shard {
                        device: s.device,
                        domain: IndexDomain::full(&dims),
                        buffer,
                    }],
                ))
            })
            .collect()
    }

    /// The same global value in `sharding`, moved by the steps of
    /// [`super::ReshardPlan`] (IFRT's `Reshard`, jax's `device_put(x, sharding)`).
    pub fn reshard(&self, sharding: Sharding) -> Result<Array> {
        let plan = super::ReshardPlan::new(self, &sharding)?;
        plan.execute(self)
    }
}

/// The array inside a device buffer.
pub(crate) fn literal_array(v: &Literal) -> Result<&ArrayLiteral> {
    v.as_array()
        .ok_or_else(|| IfrtError::Unsupported("a tuple in a device buffer".into()))
}

impl std::fmt::Debug for Array {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Array({}, {})", self.shape_text(), self.state.sharding)
    }
}
