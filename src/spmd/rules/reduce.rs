//! `reduce`: reduce each shard locally (padding masked with the init value), then combine
//! the partial results across the partitions that held different parts of a reduced
//! dimension (an all-reduce with the same reducer). A variadic reduce (several inputs,
//! as argmax's values and indices) has no all-reduce: its partial results are gathered
//! along the split reduced dimensions, in order, and reduced again.

use super::{coords_of, reduction_groups};
use crate::spmd::tiling::Tiling;

/// The tiling of the local reduce's result: the kept dimensions keep their split.
pub fn result(operand: &Tiling, reduced: &[usize]) -> Tiling {
    let kept: Vec<Option<usize>> = (0..operand.rank())
        .filter(|d| !reduced.contains(d))
        .map(Some)
        .collect();
    operand.project(&kept)
}

/// The all-reduce groups when a reduced dimension is split; `None` when none is (the local
/// result is already complete); `Some(Err(()))` when no valid grouping exists.
pub fn partial_groups(operand: &Tiling, reduced: &[usize]) -> Option<Result<Vec<Vec<i64>>, ()>> {
    if reduced.iter().all(|&d| operand.counts[d] == 1) {
        return None;
    }
    let kept: Vec<usize> = (0..operand.rank())
        .filter(|d| !reduced.contains(d))
        .collect();
    Some(
        reduction_groups(
            operand.partitions(),
            |p| coords_of(operand, p, &kept),
            |p| coords_of(operand, p, reduced),
        )
        .ok_or(()),
    )
}

/// For a variadic reduce's partial results: the global dimensions of the gathered pieces
/// (each reduced dimension kept, one element per tile along it) and the tiling after
/// gathering them (the reduced dimensions whole, the kept ones split as before).
pub fn partial_pieces(operand: &Tiling, dims: &[i64], reduced: &[usize]) -> (Vec<i64>, Tiling) {
    let mut pieces = dims.to_vec();
    let mut gathered = operand.clone();
    for &d in reduced {
        pieces[d] = operand.counts[d];
        gathered = gathered.without_dim(d);
    }
    (pieces, gathered)
}
