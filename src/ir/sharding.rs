//! Shardings: how an array is laid out over the partitions of an SPMD program.
//! XLA: `xla/hlo/ir/hlo_sharding.{h,cc}` (`ToString`), `tile_assignment.{h,cc}`,
//! `xla/hlo/parser/hlo_parser.cc` (`ParseSharding`); Shardy:
//! `docs/sharding_representation.md` for the `#sdy.*` forms.
//!
//! A tiled sharding names a device array (the tile assignment) with one dimension per array
//! dimension, plus optional trailing dimensions: `last_tile_dim_replicate` (the last one lists
//! replicas of each tile) or `last_tile_dims={manual, replicated, ...}` (subgroups of those
//! kinds). Device ids are partition ids `0..N`. [`HloSharding::tile_coordinates`] and
//! [`index_domain`] are the semantics every user (the partitioner, the runtime's shard
//! slicing) goes through.
//!
//! Sizes are bounded: a tile assignment has at most [`MAX_DEVICES`] devices, so a bad
//! sharding cannot make the parser allocate without limit.
//!
//! This file holds the types; the tile arithmetic is `tiles.rs`'s, printing `print.rs`'s,
//! parsing `parse.rs`'s (over
//! `cursor.rs`) and Shardy's forms `sdy.rs`'s.

use std::fmt;

mod cursor;
mod parse;
mod print;
mod sdy;
mod tiles;

pub use cursor::MAX_SHARDING_TEXT;
pub use sdy::{
    SdyDim, SdyMesh, SdySharding, frontend_attribute, parse_frontend_meshes, parse_manual_axes,
};
pub use tiles::{index_domain, shard_size, tile_range};

/// The most devices a tile assignment may name.
pub const MAX_DEVICES: i64 = 1 << 16;

/// A sharding error: what is wrong, in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardingError(pub String);

impl fmt::Display for ShardingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ShardingError {}

type SResult<T> = Result<T, ShardingError>;

fn err<T>(msg: impl Into<String>) -> SResult<T> {
    Err(ShardingError(msg.into()))
}

/// The device array of a tiled sharding (XLA's `TileAssignment`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TileAssignment {
    /// `[dims]<=[reshape]T(perm)`: `iota(prod(reshape)).reshape(reshape).transpose(perm)
    /// .reshape(dims)`; `perm` is empty for the identity (no `T(...)` printed).
    Iota {
        /// The device array's dimensions.
        dims: Vec<i64>,
        /// The iota's shape before the transpose.
        reshape: Vec<i64>,
        /// The transpose; empty for none.
        perm: Vec<usize>,
    },
    /// `[dims]d0,d1,...`: the devices in row-major order.
    Explicit {
        /// The device array's dimensions.
        dims: Vec<i64>,
        /// The devices, row-major over `dims`.
        devices: Vec<i64>,
    },
}

impl TileAssignment {
    /// The device array's dimensions.
    pub fn dims(&self) -> &[i64] {
        match self {
            TileAssignment::Iota { dims, .. } | TileAssignment::Explicit { dims, .. } => dims,
        }
    }

    /// The number of devices.
    pub fn count(&self) -> i64 {
        self.dims().iter().product()
    }

    /// The devices in row-major order over [`dims`](Self::dims).
    pub fn devices(&self) -> Vec<i64> {
        match self {
            TileAssignment::Explicit { devices, .. } => devices.clone(),
            TileAssignment::Iota { reshape, perm, .. } => iota_transposed(reshape, perm),
        }
    }

    /// An iota assignment of `dims` over `reshape` transposed by `perm`, in XLA's canonical
    /// printed form: size-1 dimensions of the reshape dropped, adjacent dimensions that stay
    /// adjacent after the transpose merged, and an identity transpose omitted.
    pub fn iota(dims: Vec<i64>, reshape: &[i64], perm: &[usize]) -> TileAssignment {
        let (reshape, perm) = canonical_iota(reshape, perm);
        TileAssignment::Iota {
            dims,
            reshape,
            perm,
        }
    }
}

/// `iota(prod(reshape)).reshape(reshape).transpose(perm)` flattened.
fn iota_transposed(reshape: &[i64], perm: &[usize]) -> Vec<i64> {
    let count: i64 = reshape.iter().product();
    if perm.is_empty() {
        return (0..count).collect();
    }
    let mut strides = vec![1i64; reshape.len()];
    for d in (0..reshape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * reshape[d + 1];
    }
    let tdims: Vec<i64> = perm.iter().map(|&p| reshape[p]).collect();
    let mut index = vec![0i64; tdims.len()];
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        out.push(index.iter().zip(perm).map(|(&i, &p)| i * strides[p]).sum());
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < tdims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    out
}

/// XLA's canonical iota form (see [`TileAssignment::iota`]).
fn canonical_iota(reshape: &[i64], perm: &[usize]) -> (Vec<i64>, Vec<usize>) {
    let perm: Vec<usize> = if perm.is_empty() {
        (0..reshape.len()).collect()
    } else {
        perm.to_vec()
    };
    // Drop size-1 dimensions.
    let keep: Vec<usize> = (0..reshape.len()).filter(|&d| reshape[d] != 1).collect();
    let renum = |d: usize| keep.iter().position(|&k| k == d);
    let mut dims: Vec<i64> = keep.iter().map(|&d| reshape[d]).collect();
    let mut perm: Vec<usize> = perm.iter().filter_map(|&p| renum(p)).collect();
    // Merge runs p, p+1 that stay adjacent after the transpose.
    while let Some(i) = (0..perm.len().saturating_sub(1)).find(|&i| perm[i + 1] == perm[i] + 1) {
        let a = perm[i];
        dims[a] *= dims[a + 1];
        dims.remove(a + 1);
        perm.remove(i + 1);
        for p in perm.iter_mut() {
            if *p > a {
                *p -= 1;
            }
        }
    }
    if dims.is_empty() {
        dims.push(1);
        perm = vec![0];
    }
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        perm.clear();
    }
    (dims, perm)
}

/// The kind of a trailing subgroup dimension (`last_tile_dims={...}`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SubgroupKind {
    /// `manual`: each device of the subgroup runs its own (manual) code.
    Manual,
    /// `replicated`: the devices hold the same tile.
    Replicated,
    /// `maximal`.
    Maximal,
    /// `unreduced`: partial values still to be summed.
    Unreduced,
}

impl SubgroupKind {
    fn name(self) -> &'static str {
        match self {
            SubgroupKind::Manual => "manual",
            SubgroupKind::Replicated => "replicated",
            SubgroupKind::Maximal => "maximal",
            SubgroupKind::Unreduced => "unreduced",
        }
    }
}

/// A tiled sharding: `devices=[...]... [last_tile_dim_replicate] [last_tile_dims={...}]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledSharding {
    /// The device array: one dimension per array dimension, then the subgroup dimensions.
    pub tiles: TileAssignment,
    /// `last_tile_dim_replicate`: the last device-array dimension lists replicas.
    pub last_tile_dim_replicate: bool,
    /// `last_tile_dims={...}`: the kinds of the trailing subgroup dimensions.
    pub last_tile_dims: Vec<SubgroupKind>,
}

impl TiledSharding {
    /// How many trailing device-array dimensions are not array dimensions.
    pub fn subgroup_dims(&self) -> usize {
        usize::from(self.last_tile_dim_replicate) + self.last_tile_dims.len()
    }

    /// The number of array dimensions the sharding tiles.
    pub fn data_rank(&self) -> usize {
        self.tiles.dims().len().saturating_sub(self.subgroup_dims())
    }

    /// True if one of the subgroups is manual.
    pub fn has_manual_subgroup(&self) -> bool {
        self.last_tile_dims.contains(&SubgroupKind::Manual)
    }
}

/// A sharding as XLA's `HloSharding` (the `sharding=` attribute of an instruction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HloSharding {
    /// `{replicated}`: every device holds the whole array.
    Replicated,
    /// `{manual}`: the program is already per-device here (shard_map bodies).
    Manual,
    /// `{unknown}`: to be decided by propagation.
    Unknown,
    /// `{unreduced}`: every device holds a partial value.
    Unreduced,
    /// `{maximal device=N}`: one device holds the array.
    Maximal {
        /// The device.
        device: i64,
    },
    /// `{devices=...}`.
    Tiled(TiledSharding),
    /// `{{...}, {...}}`: one sharding per tuple leaf, depth-first.
    Tuple(Vec<HloSharding>),
}

impl HloSharding {
    /// A tiled sharding from its parts; `[1,..,1]` tiles with only replication become
    /// `{replicated}`, as XLA normalizes them.
    pub fn tiled(
        tiles: TileAssignment,
        last_tile_dim_replicate: bool,
        last_tile_dims: Vec<SubgroupKind>,
    ) -> HloSharding {
        let t = TiledSharding {
            tiles,
            last_tile_dim_replicate,
            last_tile_dims,
        };
        if t.last_tile_dims.is_empty() && t.tiles.dims()[..t.data_rank()].iter().all(|&d| d == 1) {
            return HloSharding::Replicated;
        }
        HloSharding::Tiled(t)
    }

    /// True for `{replicated}`, and for tilings whose array dimensions are all 1.
    pub fn is_replicated(&self) -> bool {
        match self {
            HloSharding::Replicated => true,
            HloSharding::Tiled(t) => {
                t.last_tile_dims
                    .iter()
                    .all(|&k| k == SubgroupKind::Replicated)
                    && t.tiles.dims()[..t.data_rank()].iter().all(|&d| d == 1)
            }
            HloSharding::Tuple(v) => v.iter().all(HloSharding::is_replicated),
            _ => false,
        }
    }

    /// True for `{manual}` and tilings with a manual subgroup.
    pub fn is_manual(&self) -> bool {
        match self {
            HloSharding::Manual => true,
            HloSharding::Tiled(t) => t.has_manual_subgroup(),
            HloSharding::Tuple(v) => !v.is_empty() && v.iter().all(HloSharding::is_manual),
            _ => false,
        }
    }

    /// True if some part holds partial values still to be summed (`{unreduced}`, or an
    /// unreduced subgroup: `last_tile_dims={unreduced}`).
    pub fn has_unreduced(&self) -> bool {
        match self {
            HloSharding::Unreduced => true,
            HloSharding::Tiled(t) => t.last_tile_dims.contains(&SubgroupKind::Unreduced),
            HloSharding::Tuple(v) => v.iter().any(HloSharding::has_unreduced),
            _ => false,
        }
    }

    /// The tuple element `index` of a tuple sharding (a non-tuple sharding applies to every
    /// element).
    pub fn element(&self, index: usize) -> Option<&HloSharding> {
        match self {
            HloSharding::Tuple(v) => v.get(index),
            s => Some(s),
        }
    }

    /// The number of tiles along each of the `rank` array dimensions.
    pub fn tile_counts(&self, rank: usize) -> Vec<i64> {
        match self {
            HloSharding::Tiled(t) if t.data_rank() == rank => t.tiles.dims()[..rank].to_vec(),
            _ => vec![1; rank],
        }
    }

    /// Checks that the sharding fits an array of `rank` dimensions on `num_devices`
    /// partitions: every device `0..num_devices` exactly once, the right number of
    /// device-array dimensions. Tuple shardings are checked by the caller, per leaf.
    pub fn validate(&self, rank: usize, num_devices: i64) -> SResult<()> {
        match self {
            HloSharding::Maximal { device } => {
                if *device < 0 || *device >= num_devices {
                    return err(format!(
                        "device {device} is outside the {num_devices} partitions"
                    ));
                }
                Ok(())
            }
            HloSharding::Tiled(t) => {
                let dims = t.tiles.dims();
                if t.data_rank() != rank || dims.len() < t.subgroup_dims() {
                    return err(format!(
                        "sharding {self} has {} tile dimensions, an array of rank {rank} needs {}",
                        dims.len(),
                        rank + t.subgroup_dims()
                    ));
                }
                if t.tiles.count() != num_devices {
                    return err(format!(
                        "sharding {self} names {} devices, the program has {num_devices} partitions",
                        t.tiles.count()
                    ));
                }
                let mut seen = vec![false; num_devices as usize];
                for d in t.tiles.devices() {
                    match usize::try_from(d).ok().and_then(|i| seen.get_mut(i)) {
                        Some(s) if !*s => *s = true,
                        Some(_) => return err(format!("sharding {self} names device {d} twice")),
                        None => {
                            return err(format!(
                                "sharding {self}: device {d} is outside the {num_devices} partitions"
                            ));
                        }
                    }
                }
                Ok(())
            }
            HloSharding::Tuple(_) => err("a tuple sharding on an array"),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;

/// Custom calls that only carry sharding information (GSPMD's and Shardy's annotations and
/// the partitioner's shard barriers): on one device each is its operand unchanged.
pub fn is_sharding_only_custom_call(target: &str) -> bool {
    matches!(
        target,
        "Sharding"
            | "SPMDFullToShardShape"
            | "SPMDShardToFullShape"
            | "xla.sdy.FuncResultSharding"
            | "xla.sdy.GlobalToLocalShape"
            | "xla.sdy.LocalToGlobalShape"
            | "xla.sdy.ShardingGroup"
            | "xla.sdy.PropagationBarrier"
            | "ShardBarrierFrom"
            | "ShardBarrierTo"
    )
}
