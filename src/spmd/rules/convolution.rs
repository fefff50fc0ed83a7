//! `convolution`: local on shards split along the input batch and the kernel's output
//! features (spatial and input-feature dimensions whole, so no halo exchange), the result
//! split along its batch and feature dimensions alike. XLA:
//! `SpmdPartitioningVisitor::HandleConvolution` (its batch and output-feature cases; the
//! spatial case exchanges halos, `spmd_partitioning/halo_handler.rs` with `halo_exchange.rs`; split
//! input features are not done: that operand is gathered).

use super::dot::assemble;
use crate::ir::ConvolutionDimensionNumbers;
use crate::spmd::tiling::Tiling;

/// Propagation: the result's batch and spatial splits from the input's, its feature split
/// from the kernel's output features (when they combine into one tiling; else the input's
/// part alone, else its batch split alone), other dims whole. A spatially split input's
/// split stays on the result, as XLA keeps it (the partitioner exchanges halos).
pub fn result(
    d: &ConvolutionDimensionNumbers,
    lhs: &Tiling,
    rhs: &Tiling,
    out_rank: usize,
) -> Tiling {
    let n = lhs.partitions();
    let (ob, of) = ([d.output_batch_dimension], [d.output_feature_dimension]);
    let (ib, ko) = (
        [d.input_batch_dimension],
        [d.kernel_output_feature_dimension],
    );
    let (os, is) = (
        d.output_spatial_dimensions.as_slice(),
        d.input_spatial_dimensions.as_slice(),
    );
    assemble(
        out_rank,
        n,
        &[(&ob, lhs, &ib), (os, lhs, is), (&of, rhs, &ko)],
    )
    .or_else(|| assemble(out_rank, n, &[(&ob, lhs, &ib), (os, lhs, is)]))
    .or_else(|| assemble(out_rank, n, &[(&ob, lhs, &ib), (&of, rhs, &ko)]))
    .or_else(|| assemble(out_rank, n, &[(&ob, lhs, &ib)]))
    .unwrap_or_else(|| Tiling::replicated(out_rank, n))
}

/// The partitioner's plan for a result wanted in `want`: (input tiling, kernel tiling,
/// local result tiling), the input split only along batch and the kernel only along
/// output features, as `want` splits the result's batch and feature dimensions.
pub fn plan(
    d: &ConvolutionDimensionNumbers,
    want: &Tiling,
    lhs_rank: usize,
    rhs_rank: usize,
) -> Option<(Tiling, Tiling, Tiling)> {
    let n = want.partitions();
    let (ob, of) = ([d.output_batch_dimension], [d.output_feature_dimension]);
    let lhs = assemble(lhs_rank, n, &[(&[d.input_batch_dimension], want, &ob)])?;
    let rhs = assemble(
        rhs_rank,
        n,
        &[(&[d.kernel_output_feature_dimension], want, &of)],
    )?;
    let out = assemble(want.rank(), n, &[(&ob, want, &ob), (&of, want, &of)])?;
    Some((lhs, rhs, out))
}

/// Propagation, backward: the tiling an unsharded operand (`which`: 0 input, 1 kernel)
/// takes from the result (the input its batch split, the kernel its feature split) and,
/// when known, from the other operand (the input features, as a dot's contracting
/// dimension; dropped if the two do not form one tiling). XLA:
/// `InferConvolutionShardingFromUsers`; Shardy's convolution factor rule read from the
/// result side.
pub fn operand_from_users(
    d: &ConvolutionDimensionNumbers,
    which: usize,
    other: Option<&Tiling>,
    out: &Tiling,
    rank: usize,
) -> Option<Tiling> {
    let n = out.partitions();
    let (own, from_out, feature, other_feature) = if which == 0 {
        (
            d.input_batch_dimension,
            d.output_batch_dimension,
            d.input_feature_dimension,
            d.kernel_input_feature_dimension,
        )
    } else {
        (
            d.kernel_output_feature_dimension,
            d.output_feature_dimension,
            d.kernel_input_feature_dimension,
            d.input_feature_dimension,
        )
    };
    let (own, from_out) = ([own], [from_out]);
    let (feature, other_feature) = ([feature], [other_feature]);
    if let Some(o) = other
        && let Some(t) = assemble(
            rank,
            n,
            &[(&own, out, &from_out), (&feature, o, &other_feature)],
        )
    {
        return Some(t);
    }
    assemble(rank, n, &[(&own, out, &from_out)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NHWC input, HWIO kernel, NHWC result.
    fn nhwc() -> ConvolutionDimensionNumbers {
        ConvolutionDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: 3,
            input_spatial_dimensions: vec![1, 2],
            kernel_input_feature_dimension: 2,
            kernel_output_feature_dimension: 3,
            kernel_spatial_dimensions: vec![0, 1],
            output_batch_dimension: 0,
            output_feature_dimension: 3,
            output_spatial_dimensions: vec![1, 2],
        }
    }

    #[test]
    fn operands_take_the_results_batch_and_feature_splits() {
        // Result split 2 on batch (major) and 4 on features over 8 partitions.
        let out = Tiling::from_parts(
            vec![2, 1, 1, 4],
            (0..8).map(|p| vec![p / 4, 0, 0, p % 4]).collect(),
        )
        .unwrap();
        let lhs = operand_from_users(&nhwc(), 0, None, &out, 4).unwrap();
        assert_eq!(lhs.counts, vec![2, 1, 1, 1]);
        assert_eq!(lhs.coords[5], vec![1, 0, 0, 0]);
        let rhs = operand_from_users(&nhwc(), 1, None, &out, 4).unwrap();
        assert_eq!(rhs.counts, vec![1, 1, 1, 4]);
        assert_eq!(rhs.coords[5], vec![0, 0, 0, 1]);
        // The partitioner's plan for that result needs no reshard of either.
        let (l, r, o) = plan(&nhwc(), &out, 4, 4).unwrap();
        assert_eq!((l, r, o), (lhs, rhs, out));
    }
}
