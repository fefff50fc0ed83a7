//! One rule per op family: given the tilings of the operands (and the sharding wanted for
//! the result, when partitioning), which tilings the operands must be resharded to, what
//! the local op produces, and which partial results must be combined across partitions.
//! The rules are pure functions of tilings; `sharding_propagation` asks them for result
//! shardings and `spmd_partitioning` for plans it then emits.

pub mod concatenate;
pub mod convolution;
pub mod dot;
pub mod elementwise;
pub mod gather_scatter;
pub mod reduce;
pub mod shape_ops;
pub mod sort;

use super::tiling::Tiling;

/// Groups for combining partial results: partitions whose results cover the same tile
/// (`key`) but hold different parts of a split dimension (`part`) must be reduced together.
/// Partitions with the same key and the same part are replicas of each other; the k-th
/// replica of each part goes to the k-th group, so every group holds each part once.
/// `None` if the parts are not held equally often (no valid all-reduce exists).
pub fn reduction_groups(
    n: usize,
    key: impl Fn(usize) -> Vec<i64>,
    part: impl Fn(usize) -> Vec<i64>,
) -> Option<Vec<Vec<i64>>> {
    // Per key, its parts and the partitions holding each.
    type Buckets = Vec<(Vec<i64>, Vec<i64>)>;
    let mut by_key: Vec<(Vec<i64>, Buckets)> = Vec::new();
    for p in 0..n {
        let k = key(p);
        let slot = match by_key.iter().position(|(kk, _)| *kk == k) {
            Some(i) => i,
            None => {
                by_key.push((k, Vec::new()));
                by_key.len() - 1
            }
        };
        let pt = part(p);
        let buckets = &mut by_key[slot].1;
        match buckets.iter_mut().find(|(pp, _)| *pp == pt) {
            Some((_, members)) => members.push(p as i64),
            None => buckets.push((pt, vec![p as i64])),
        }
    }
    let mut groups = Vec::new();
    for (_, buckets) in by_key {
        let r = buckets[0].1.len();
        if buckets.iter().any(|(_, m)| m.len() != r) {
            return None;
        }
        for k in 0..r {
            let mut g: Vec<i64> = buckets.iter().map(|(_, m)| m[k]).collect();
            g.sort();
            groups.push(g);
        }
    }
    groups.sort();
    Some(groups)
}

/// Tiling helper: a tiling's coordinates restricted to `dims`.
pub fn coords_of(t: &Tiling, p: usize, dims: &[usize]) -> Vec<i64> {
    dims.iter().map(|&d| t.coords[p][d]).collect()
}
