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
    let kept: Vec<usize> = (0..operand_dims.len())
        .filter(|i| !d.collapsed_slice_dims.contains(i) && !d.operand_batching_dims.contains(i))
        .collect();
    kept.iter()
        .zip(&d.offset_dims)
        .filter(|&(&i, _)| {
            !d.start_index_map.contains(&i) && slice_sizes.get(i) == operand_dims.get(i)
        })
        .map(|(&i, &o)| (i, o))
        .collect()
}

/// Scatter: the (operand dim, update dim) pairs of passthrough dimensions.
pub fn scatter_passthrough(
    d: &ScatterDimensionNumbers,
    operand_dims: &[i64],
    update_dims: &[i64],
) -> Vec<(usize, usize)> {
    let kept: Vec<usize> = (0..operand_dims.len())
        .filter(|i| !d.inserted_window_dims.contains(i) && !d.input_batching_dims.contains(i))
        .collect();
    kept.iter()
        .zip(&d.update_window_dims)
        .filter(|&(&i, &u)| {
            !d.scatter_dims_to_operand_dims.contains(&i)
                && update_dims.get(u) == operand_dims.get(i)
        })
        .map(|(&i, &u)| (i, u))
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
