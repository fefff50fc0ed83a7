//! Tile arithmetic: which tile each device holds, the unreduced groups, and the part of
//! each dimension a tile covers (XLA's padding rule). Every user of a sharding (the
//! partitioner, the runtime's shard slicing) goes through these.
//!
//! XLA: `hlo_sharding_util.cc`, `spmd_partitioner_util.cc` (`MakePartitionOffsets`).

use super::{HloSharding, SubgroupKind, TileAssignment};

impl HloSharding {
    /// For each device `0..num_devices`, the coordinates of the tile it holds (one per array
    /// dimension). Replicated, maximal and manual shardings put every device on tile 0.
    /// The sharding must be valid ([`validate`](Self::validate)).
    pub fn tile_coordinates(&self, rank: usize, num_devices: i64) -> Vec<Vec<i64>> {
        let mut out = vec![vec![0i64; rank]; num_devices as usize];
        if let HloSharding::Tiled(t) = self {
            if t.data_rank() != rank {
                return out;
            }
            let dims = t.tiles.dims();
            for (flat, d) in t.tiles.devices().into_iter().enumerate() {
                let mut rem = flat as i64;
                let mut coord = vec![0i64; dims.len()];
                for k in (0..dims.len()).rev() {
                    coord[k] = rem % dims[k];
                    rem /= dims[k];
                }
                if let Some(slot) = out.get_mut(d as usize) {
                    *slot = coord[..rank].to_vec();
                }
            }
        }
        out
    }

    /// For each device `0..num_devices`, its coordinate in its unreduced group (the devices
    /// holding partial values of the same tile), or `None` when the sharding has no
    /// unreduced part. `{unreduced}` makes every device one group, in device order.
    pub fn unreduced_coordinates(&self, rank: usize, num_devices: i64) -> Option<Vec<i64>> {
        match self {
            HloSharding::Unreduced => Some((0..num_devices).collect()),
            HloSharding::Tiled(t) if t.data_rank() == rank => {
                let k = t
                    .last_tile_dims
                    .iter()
                    .position(|&k| k == SubgroupKind::Unreduced)?;
                let dims = t.tiles.dims();
                let axis = dims.len() - t.last_tile_dims.len() + k;
                let mut out = vec![0i64; num_devices as usize];
                for (flat, d) in t.tiles.devices().into_iter().enumerate() {
                    let mut rem = flat as i64;
                    for j in (axis + 1..dims.len()).rev() {
                        rem /= dims[j];
                    }
                    if let Some(slot) = out.get_mut(d as usize) {
                        *slot = rem % dims[axis];
                    }
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// The sharding with its unreduced part replicated instead (the summed value's layout).
    pub fn without_unreduced(&self) -> HloSharding {
        match self {
            HloSharding::Unreduced => HloSharding::Replicated,
            HloSharding::Tuple(v) => {
                HloSharding::Tuple(v.iter().map(HloSharding::without_unreduced).collect())
            }
            HloSharding::Tiled(t) if t.last_tile_dims.contains(&SubgroupKind::Unreduced) => {
                let mut kinds: Vec<SubgroupKind> = t
                    .last_tile_dims
                    .iter()
                    .map(|&k| match k {
                        SubgroupKind::Unreduced => SubgroupKind::Replicated,
                        k => k,
                    })
                    .collect();
                // Two replicated subgroups are one: merge them into the last dimension.
                let dims = t.tiles.dims().to_vec();
                let reps: Vec<usize> = kinds
                    .iter()
                    .enumerate()
                    .filter(|(_, k)| **k == SubgroupKind::Replicated)
                    .map(|(i, _)| dims.len() - kinds.len() + i)
                    .collect();
                let mut tiles = t.tiles.clone();
                if reps.len() == 2 && reps[1] == reps[0] + 1 {
                    let mut nd = dims.clone();
                    nd[reps[0]] *= nd[reps[1]];
                    nd.remove(reps[1]);
                    tiles = TileAssignment::Explicit {
                        dims: nd,
                        devices: t.tiles.devices(),
                    };
                    kinds.pop();
                }
                let only_replicated = kinds == [SubgroupKind::Replicated];
                if only_replicated {
                    kinds.clear();
                }
                HloSharding::tiled(tiles, only_replicated, kinds)
            }
            s => s.clone(),
        }
    }
}

/// The part of dimension `size` that tile `index` of `tiles` holds: `[start, end)`, with
/// XLA's padding rule (every tile is `ceil(size / tiles)` long; the last ones may be short
/// or empty).
pub fn tile_range(size: i64, tiles: i64, index: i64) -> (i64, i64) {
    let per = shard_size(size, tiles);
    ((index * per).min(size), ((index + 1) * per).min(size))
}

/// The padded length of one tile: `ceil(size / tiles)`.
pub fn shard_size(size: i64, tiles: i64) -> i64 {
    if tiles <= 1 {
        size
    } else {
        (size + tiles - 1) / tiles
    }
}

/// The index domain (`[start, end)` per dimension) device `device` holds of an array of
/// `dims` under `sharding` (which must be valid for them).
pub fn index_domain(
    sharding: &HloSharding,
    dims: &[i64],
    num_devices: i64,
    device: i64,
) -> Vec<(i64, i64)> {
    let counts = sharding.tile_counts(dims.len());
    let coords = sharding.tile_coordinates(dims.len(), num_devices);
    let coord = coords
        .get(device as usize)
        .cloned()
        .unwrap_or_else(|| vec![0; dims.len()]);
    (0..dims.len())
        .map(|i| tile_range(dims[i], counts[i], coord[i]))
        .collect()
}
