//! The partitioner's view of a sharding: for every partition, which tile of the array it
//! holds. Two shardings that put the same data on the same partitions are the same
//! [`Tiling`], however they are spelled (iota or explicit devices, replica order), so the
//! rules compare tilings, never sharding text.
//!
//! An unreduced tiling (jax's `P(unreduced=...)`, `last_tile_dims={unreduced}`) also gives
//! each partition its coordinate in its unreduced group: the partitions of one group hold
//! partial values of the same tile, and the array is their sum. Only annotations make
//! one; every tiling the rules derive from another (`project`, `merge`, `from_parts`) is
//! reduced.

use crate::ir::sharding::{HloSharding, SubgroupKind, TileAssignment, shard_size, tile_range};

/// Tiles per array dimension, and each partition's tile coordinates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tiling {
    /// Tiles along each array dimension.
    pub counts: Vec<i64>,
    /// Per partition, its tile's coordinates (one per dimension).
    pub coords: Vec<Vec<i64>>,
    /// Per partition, its coordinate in its unreduced group; empty when the value is
    /// complete on every partition.
    pub unreduced: Vec<i64>,
}

impl Tiling {
    /// Every partition holds the whole array.
    pub fn replicated(rank: usize, partitions: usize) -> Tiling {
        Tiling {
            counts: vec![1; rank],
            coords: vec![vec![0; rank]; partitions],
            unreduced: Vec::new(),
        }
    }

    /// The tiling of a (validated) array sharding; maximal and replicated shardings are
    /// replicated tilings (every partition computes the value).
    pub fn of(sharding: &HloSharding, rank: usize, partitions: usize) -> Tiling {
        Tiling {
            counts: sharding.tile_counts(rank),
            coords: sharding.tile_coordinates(rank, partitions as i64),
            unreduced: sharding
                .unreduced_coordinates(rank, partitions as i64)
                .unwrap_or_default(),
        }
    }

    /// True if the partitions hold partial values (the array is their sum per group).
    pub fn is_unreduced(&self) -> bool {
        !self.unreduced.is_empty()
    }

    /// The same split with complete values (what an all-reduce over the unreduced groups
    /// leaves).
    pub fn reduced(&self) -> Tiling {
        Tiling {
            counts: self.counts.clone(),
            coords: self.coords.clone(),
            unreduced: Vec::new(),
        }
    }

    /// The unreduced groups: partitions holding partial values of the same tile, each
    /// group in partition order, groups by their first partition. The k-th partition
    /// (in partition order) with a given tile and unreduced coordinate joins the k-th group
    /// of that tile (replicas hold equal partial values, so any such pairing sums right).
    /// Empty for a reduced tiling.
    pub fn unreduced_groups(&self) -> Vec<Vec<i64>> {
        if !self.is_unreduced() {
            return Vec::new();
        }
        let mut seen = std::collections::HashMap::<(&[i64], i64), i64>::new();
        let keys: Vec<(&[i64], i64)> = (0..self.partitions())
            .map(|p| {
                let k = seen
                    .entry((self.coords[p].as_slice(), self.unreduced[p]))
                    .or_default();
                *k += 1;
                (self.coords[p].as_slice(), *k)
            })
            .collect();
        group_by(self.partitions(), |p| keys[p])
    }

    /// True if both hold the same value the same way: the same split and, when unreduced,
    /// the same groups (partial values may sit in any order within a group).
    pub fn same_as(&self, other: &Tiling) -> bool {
        if self == other {
            return true;
        }
        self.counts == other.counts
            && self.coords == other.coords
            && self.is_unreduced()
            && other.is_unreduced()
            && self.unreduced_groups() == other.unreduced_groups()
    }

    /// A tiling from explicit parts, if every tile is held by the same number of partitions
    /// (a full grid: what a sharding can express).
    pub fn from_parts(counts: Vec<i64>, coords: Vec<Vec<i64>>) -> Option<Tiling> {
        let tiles: i64 = counts.iter().product();
        let n = coords.len() as i64;
        if tiles <= 0 || n % tiles != 0 {
            return None;
        }
        let mut seen = std::collections::HashMap::<&[i64], i64>::new();
        for c in &coords {
            if c.len() != counts.len() || c.iter().zip(&counts).any(|(&x, &t)| x < 0 || x >= t) {
                return None;
            }
            *seen.entry(c.as_slice()).or_default() += 1;
        }
        let per = n / tiles;
        if seen.len() as i64 != tiles || seen.values().any(|&k| k != per) {
            return None;
        }
        Some(Tiling {
            counts,
            coords,
            unreduced: Vec::new(),
        })
    }

    /// Number of partitions.
    pub fn partitions(&self) -> usize {
        self.coords.len()
    }

    /// Array rank.
    pub fn rank(&self) -> usize {
        self.counts.len()
    }

    /// True if no dimension is split and every partition holds the complete value.
    pub fn is_replicated(&self) -> bool {
        self.counts.iter().all(|&c| c == 1) && !self.is_unreduced()
    }

    /// The per-partition (padded) shape of an array of `dims`.
    pub fn shard_dims(&self, dims: &[i64]) -> Vec<i64> {
        dims.iter()
            .zip(&self.counts)
            .map(|(&n, &t)| shard_size(n, t))
            .collect()
    }

    /// Where partition `p`'s shard starts along `dim`, in padded coordinates.
    pub fn start(&self, dims: &[i64], p: usize, dim: usize) -> i64 {
        self.coords[p][dim] * shard_size(dims[dim], self.counts[dim])
    }

    /// Partition `p`'s index domain (clipped to the array).
    pub fn domain(&self, dims: &[i64], p: usize) -> Vec<(i64, i64)> {
        (0..dims.len())
            .map(|i| tile_range(dims[i], self.counts[i], self.coords[p][i]))
            .collect()
    }

    /// True if some split dimension does not divide evenly.
    pub fn is_uneven(&self, dims: &[i64], dim: usize) -> bool {
        self.counts[dim] > 1 && dims[dim] % self.counts[dim] != 0
    }

    /// The same tiling with `dim` no longer split.
    pub fn without_dim(&self, dim: usize) -> Tiling {
        let mut t = self.clone();
        t.counts[dim] = 1;
        for c in &mut t.coords {
            c[dim] = 0;
        }
        t
    }

    /// A tiling of another array whose dimension `i` is this tiling's `map[i]` (or unsplit
    /// when `None`).
    pub fn project(&self, map: &[Option<usize>]) -> Tiling {
        Tiling {
            counts: map
                .iter()
                .map(|m| m.map_or(1, |d| self.counts[d]))
                .collect(),
            coords: self
                .coords
                .iter()
                .map(|c| map.iter().map(|m| m.map_or(0, |d| c[d])).collect())
                .collect(),
            unreduced: Vec::new(),
        }
    }

    /// This tiling with `other`'s splits of the dimensions this one leaves whole, if that
    /// adds a split and the result is a full grid (XLA's `MergeSharding` of compatible
    /// partial shardings; Shardy's factor merge).
    pub fn merge(&self, other: &Tiling) -> Option<Tiling> {
        let add: Vec<usize> = (0..self.rank())
            .filter(|&d| self.counts[d] == 1 && other.counts[d] > 1)
            .collect();
        if add.is_empty() || other.rank() != self.rank() {
            return None;
        }
        let mut counts = self.counts.clone();
        let mut coords = self.coords.clone();
        for &d in &add {
            counts[d] = other.counts[d];
            for (c, o) in coords.iter_mut().zip(&other.coords) {
                c[d] = o[d];
            }
        }
        Tiling::from_parts(counts, coords)
    }

    /// True if this tiling splits every dimension `other` splits, the same way.
    pub fn refines(&self, other: &Tiling) -> bool {
        self.rank() == other.rank()
            && (0..self.rank()).all(|d| {
                other.counts[d] == 1
                    || (self.counts[d] == other.counts[d]
                        && self
                            .coords
                            .iter()
                            .zip(&other.coords)
                            .all(|(a, b)| a[d] == b[d]))
            })
    }

    /// The sharding XLA would print for this tiling: the iota form when one fits, else
    /// explicit devices; replicas of a tile listed in partition order. An unreduced tiling
    /// prints as jax writes it: the unreduced subgroup, then the replicated one.
    pub fn to_sharding(&self) -> HloSharding {
        if self.is_replicated() {
            return HloSharding::Replicated;
        }
        let tiles: i64 = self.counts.iter().product();
        let partial = self.unreduced.iter().max().map_or(1, |m| m + 1);
        let replicas = self.partitions() as i64 / tiles / partial;
        if self.is_unreduced() && tiles == 1 && replicas == 1 && self.unreduced_in_order() {
            return HloSharding::Unreduced;
        }
        let mut dims = self.counts.clone();
        let mut kinds = Vec::new();
        if self.is_unreduced() {
            dims.push(partial);
            kinds.push(SubgroupKind::Unreduced);
            if replicas > 1 {
                dims.push(replicas);
                kinds.push(SubgroupKind::Replicated);
            }
        } else if replicas > 1 {
            dims.push(replicas);
        }
        // Row-major over tiles, then unreduced coordinates, then replicas in partition
        // order.
        let per_tile = (partial * replicas) as usize;
        let mut slots: Vec<Vec<i64>> = vec![Vec::new(); (tiles * partial) as usize];
        for (p, c) in self.coords.iter().enumerate() {
            let flat = c
                .iter()
                .zip(&self.counts)
                .fold(0i64, |acc, (&x, &t)| acc * t + x);
            let u = self.unreduced.get(p).copied().unwrap_or(0);
            slots[(flat * partial + u) as usize].push(p as i64);
        }
        let devices: Vec<i64> = slots.concat();
        debug_assert_eq!(devices.len(), tiles as usize * per_tile);
        let tiles = find_iota(&dims, &devices).unwrap_or(TileAssignment::Explicit {
            dims: dims.clone(),
            devices,
        });
        HloSharding::tiled(tiles, !self.is_unreduced() && replicas > 1, kinds)
    }

    /// True if partition `p`'s unreduced coordinate is `p` (what `{unreduced}` means).
    fn unreduced_in_order(&self) -> bool {
        self.unreduced
            .iter()
            .enumerate()
            .all(|(p, &u)| u == p as i64)
    }

    /// Partitions grouped by identical tile (replicas of each other), each group in
    /// partition order, groups by their first partition.
    pub fn replica_groups(&self) -> Vec<Vec<i64>> {
        group_by(self.partitions(), |p| self.coords[p].clone())
    }
}

/// Partitions `0..n` grouped by `key`, groups ordered by first member.
pub fn group_by<K: Eq + std::hash::Hash>(n: usize, key: impl Fn(usize) -> K) -> Vec<Vec<i64>> {
    let mut index = std::collections::HashMap::new();
    let mut groups: Vec<Vec<i64>> = Vec::new();
    for p in 0..n {
        let g = *index.entry(key(p)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(p as i64);
    }
    groups
}

/// An iota tile assignment that lists `devices` over `dims`, if a small one does
/// (reshapes of up to four factors, every transpose).
fn find_iota(dims: &[i64], devices: &[i64]) -> Option<TileAssignment> {
    let n = devices.len() as i64;
    if devices.iter().enumerate().all(|(i, &d)| d == i as i64) {
        return Some(TileAssignment::iota(dims.to_vec(), &[n], &[]));
    }
    if n > 4096 {
        return None;
    }
    let mut factorizations = Vec::new();
    ordered_factorizations(n, 4, &mut Vec::new(), &mut factorizations);
    for f in factorizations {
        if f.len() < 2 {
            continue;
        }
        for perm in permutations(f.len()) {
            let cand = TileAssignment::Iota {
                dims: dims.to_vec(),
                reshape: f.clone(),
                perm: perm.clone(),
            };
            if cand.devices() == devices {
                return Some(TileAssignment::iota(dims.to_vec(), &f, &perm));
            }
        }
    }
    None
}

fn ordered_factorizations(n: i64, max: usize, cur: &mut Vec<i64>, out: &mut Vec<Vec<i64>>) {
    if n == 1 {
        if !cur.is_empty() {
            out.push(cur.clone());
        }
        return;
    }
    if cur.len() == max {
        return;
    }
    for f in 2..=n {
        if n % f == 0 {
            cur.push(f);
            ordered_factorizations(n / f, max, cur, out);
            cur.pop();
        }
    }
}

fn permutations(k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(k - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, k - 1);
            out.push(q);
        }
    }
    out
}

/// True if the sharding has a manual part (shard_map regions).
pub fn is_manual(s: &HloSharding) -> bool {
    match s {
        HloSharding::Manual => true,
        HloSharding::Tiled(t) => t.last_tile_dims.contains(&SubgroupKind::Manual),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_xla() {
        for text in [
            "{devices=[4,2]<=[8]}",
            "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}",
            "{devices=[4,1,2]<=[8] last_tile_dim_replicate}",
            "{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dim_replicate}",
            "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}",
            "{devices=[2,4]<=[4,2]T(1,0)}",
            "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={unreduced}}",
            "{devices=[2,1,4]<=[8] last_tile_dims={unreduced}}",
            "{devices=[1,1,2,4]<=[8] last_tile_dims={unreduced, replicated}}",
            "{devices=[2,1,2,2]<=[8] last_tile_dims={unreduced, replicated}}",
            "{devices=[1,1,2,4]<=[4,2]T(1,0) last_tile_dims={unreduced, replicated}}",
            "{unreduced}",
        ] {
            let s = HloSharding::parse(text).unwrap();
            let rank = match &s {
                HloSharding::Tiled(t) => t.data_rank(),
                _ => 2,
            };
            let t = Tiling::of(&s, rank, 8);
            assert_eq!(t.to_sharding().to_string(), text);
        }
        let s = HloSharding::parse("{devices=[2,2]3,1,2,0}").unwrap();
        assert_eq!(
            Tiling::of(&s, 2, 4).to_sharding().to_string(),
            "{devices=[2,2]3,1,2,0}"
        );
    }

    #[test]
    fn unreduced_groups_follow_the_unreduced_axis() {
        // x=2 splits dimension 0, y=2 is unreduced: groups {0,1},{2,3}.
        let s = HloSharding::parse("{devices=[2,1,2]<=[4] last_tile_dims={unreduced}}").unwrap();
        let t = Tiling::of(&s, 2, 4);
        assert_eq!(t.unreduced, vec![0, 1, 0, 1]);
        assert_eq!(t.unreduced_groups(), vec![vec![0, 1], vec![2, 3]]);
        assert!(!t.is_replicated());
        assert_eq!(
            t.reduced().to_sharding().to_string(),
            "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"
        );
        // Unreduced along x of x=2,y=4, replicated along y: groups pair devices 4 apart.
        let s =
            HloSharding::parse("{devices=[1,1,2,4]<=[8] last_tile_dims={unreduced, replicated}}")
                .unwrap();
        let t = Tiling::of(&s, 2, 8);
        assert_eq!(t.unreduced, vec![0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!(
            t.unreduced_groups(),
            vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]
        );
    }

    #[test]
    fn from_parts_needs_a_full_grid() {
        assert!(Tiling::from_parts(vec![2, 2], vec![vec![0, 0], vec![1, 1]]).is_none());
        assert!(Tiling::from_parts(vec![2], vec![vec![0], vec![1], vec![0], vec![1]]).is_some());
        assert!(Tiling::from_parts(vec![2], vec![vec![0], vec![0], vec![0], vec![1]]).is_none());
    }
}
