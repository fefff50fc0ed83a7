//! `convolution`: local on shards split along the input batch and the kernel's output
//! features (spatial and input-feature dimensions whole, so no halo exchange), the result
//! split along its batch and feature dimensions alike. XLA:
//! `SpmdPartitioningVisitor::HandleConvolution` (its batch and output-feature cases;
//! spatial halos and split input features are not done here: those operands are gathered).

use super::dot::assemble;
use crate::ir::ConvolutionDimensionNumbers;
use crate::spmd::tiling::Tiling;

/// Propagation: the result's batch split from the input's, its feature split from the
/// kernel's output features (when the two combine into one tiling), other dims whole.
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
    assemble(out_rank, n, &[(&ob, lhs, &ib), (&of, rhs, &ko)])
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
