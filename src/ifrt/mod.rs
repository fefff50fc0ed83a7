//! IFRT-like arrays: one global array over many devices, instead of a pile of per-device
//! buffers. Modelled on XLA's IFRT (`xla/python/ifrt/`: `Client`, `Device`,
//! `Sharding`, `Array`, `LoadedExecutable`) and on what jax shows of it (`jax.Array`,
//! `NamedSharding`, `addressable_shards`).
//!
//! - A [`Client`] owns `N` simulated CPU devices and the runtime memory their buffers live
//!   in ([`crate::runtime::device_memory`]).
//! - A [`Sharding`] says which box of a global array each device holds: a named sharding
//!   over a [`Mesh`] with a [`PartitionSpec`] (`pspec!("x", "y")` is jax's `P("x", "y")`),
//!   an HLO sharding over a device list, or a single device. [`Sharding::index_domains`]
//!   is the index map every operation works from.
//! - An [`Array`] is a global shape, a dtype, a sharding and one shard per device.
//!   [`Client::make_array_from_host`] cuts a host array into shards;
//!   [`Array::copy_to_host`] puts it back together; [`Array::disassemble`] and
//!   [`Client::assemble_array_from_single_device_arrays`] convert to and from
//!   single-device arrays sharing the same buffers; [`Array::reshard`] moves it to another
//!   sharding by a printed [`ReshardPlan`].
//! - A [`LoadedExecutable`] ([`Client::compile`]) is a global SPMD program partitioned and
//!   compiled once for its devices; [`LoadedExecutable::execute`] takes arrays and returns
//!   arrays whose shards stay on the devices, so a training loop's parameters never go
//!   back to the host between steps.
//!
//! ```
//! use xlac::ifrt::{Client, Mesh, Sharding};
//! use xlac::ir::ArrayLiteral;
//! use xlac::pspec;
//!
//! let client = Client::new(8).unwrap();
//! let mesh = Mesh::new(&[("x", 4), ("y", 2)], (0..8).collect()).unwrap();
//! let x = ArrayLiteral::from_vec(&[8, 4], (0..32).map(|v| v as f32).collect());
//! let a = client.make_array_from_host(&x, Sharding::named(&mesh, pspec!("x", "y"))).unwrap();
//! let shards = a.addressable_shards().unwrap();
//! assert_eq!(shards[3].index.to_string(), "[2:4, 2:4]");
//! let b = a.reshard(Sharding::named(&mesh, pspec!(None, "x"))).unwrap();
//! assert_eq!(b.copy_to_host().unwrap(), x);
//! ```
//!
//! Files: [`client`], [`sharding`], [`array`], [`reshard`], [`executable`], [`error`],
//! and `copy` (the box copy every data movement is made of).

pub mod array;
pub mod client;
pub(crate) mod copy;
pub mod error;
pub mod executable;
pub mod reshard;
pub mod sharding;

pub use array::{AddressableShard, Array};
pub use client::{Client, Device, DeviceId, MAX_DEVICES, TransferStats};
pub use error::{IfrtError, Result};
pub use executable::{ArraySpec, LoadedExecutable, ProgramPlan};
pub use reshard::{ReshardPlan, ReshardStep, StepKind};
pub use sharding::{IndexDomain, Mesh, PartitionDim, PartitionSpec, Sharding};

/// A shape as HLO prints it without a layout: `f32[8,16]`.
pub(crate) fn shape_text(dtype: crate::ir::PrimitiveType, dims: &[i64]) -> String {
    let d: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("{dtype}[{}]", d.join(","))
}
