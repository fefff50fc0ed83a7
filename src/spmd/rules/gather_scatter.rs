//! `gather` and `scatter`: local along passthrough dimensions, the operand dimensions an
//! index never selects in (taken whole by every slice or update window). Such a dimension
//! split in the operand is split the same way in the result (gather: the matching offset
//! dimension; scatter: the result and the updates' window dimension); the indices are
//! replicated, and every other dimension is whole. XLA:
//! `SpmdPartitioningVisitor::HandleGather`/`HandleScatter` (their passthrough cases;
//! index- and batch-parallel gathers are not done here: those operands are gathered).

use super::dot::assemble;
use crate::ir::{GatherDimensionNumbers, ScatterDimensionNumbers};
use crate::spmd::tiling::Tiling;

/// Gather: the (operand dim, output dim) pairs of passthrough dimensions.
pub fn gather_passthrough(
    d: &GatherDimensionNumbers,
    slice_sizes: &[i64],
    operand_dims: &[i64],
) -> Vec<(usize, usize)> {
    let removed: [&[usize]; 2] = [&d.collapsed_slice_dims, &d.operand_batching_dims];
    let whole = |i: usize, _| slice_sizes.get(i) == operand_dims.get(i);
    passthrough(
        operand_dims.len(),
        removed,
        &d.offset_dims,
        &d.start_index_map,
        whole,
    )
}

/// Scatter: the (operand dim, update dim) pairs of passthrough dimensions.
pub fn scatter_passthrough(
    d: &ScatterDimensionNumbers,
    operand_dims: &[i64],
    update_dims: &[i64],
) -> Vec<(usize, usize)> {
    let removed: [&[usize]; 2] = [&d.inserted_window_dims, &d.input_batching_dims];
    let whole = |i: usize, u: usize| update_dims.get(u) == operand_dims.get(i);
    let indexed = &d.scatter_dims_to_operand_dims;
    passthrough(
        operand_dims.len(),
        removed,
        &d.update_window_dims,
        indexed,
        whole,
    )
}

/// The operand dims that are not `removed` pair up, in order, with `window_dims` (of the
/// output or the updates); a pair passes through when the operand dim is not `indexed`
/// and `whole(operand dim, window dim)` says its window spans the whole dimension.
fn passthrough(
    operand_rank: usize,
    removed: [&[usize]; 2],
    window_dims: &[usize],
    indexed: &[usize],
    whole: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    (0..operand_rank)
        .filter(|i| !removed[0].contains(i) && !removed[1].contains(i))
        .zip(window_dims)
        .filter(|&(i, &w)| !indexed.contains(&i) && whole(i, w))
        .map(|(i, &w)| (i, w))
        .collect()
}

/// A tiling of a `rank`-dimensional array whose dims `pairs.1` take `src`'s dims
/// `pairs.0` (or `pairs.0` from `pairs.1` with `flip`), every other dim whole.
pub fn along(src: &Tiling, pairs: &[(usize, usize)], rank: usize, flip: bool) -> Option<Tiling> {
    let (from, to): (Vec<usize>, Vec<usize>) = pairs
        .iter()
        .map(|&(a, b)| if flip { (b, a) } else { (a, b) })
        .unzip();
    assemble(rank, src.partitions(), &[(&to, src, &from)])
}
