//! `sort`: sorted shard by shard when the sorted dimension is whole. Propagation keeps the
//! operand's split (the sorted dimension's too); the partitioner first moves a split of
//! the sorted dimension to another dimension (an all-to-all), sorts, and moves it back.
//! XLA: `SpmdPartitioningVisitor::HandleSort`.

use crate::spmd::tiling::Tiling;

/// The tiling the operands are sorted in, for a result wanted in `want` (global `dims`):
/// `want` itself when the sorted dimension is whole; else that split moved to the first
/// other whole dimension it divides, or dropped when there is none.
pub fn local_tiling(want: &Tiling, dims: &[i64], dimension: usize) -> Tiling {
    let t = want.counts[dimension];
    if t == 1 {
        return want.clone();
    }
    let to = (0..dims.len()).find(|&d| d != dimension && want.counts[d] == 1 && dims[d] % t == 0);
    match to {
        Some(to) => {
            let mut m = want.clone();
            m.counts[to] = t;
            m.counts[dimension] = 1;
            for c in &mut m.coords {
                c[to] = c[dimension];
                c[dimension] = 0;
            }
            m
        }
        None => want.without_dim(dimension),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_sorted_dimension_moves_to_a_whole_one() {
        let t = Tiling::from_parts(vec![1, 8], (0..8).map(|p| vec![0, p]).collect()).unwrap();
        let m = local_tiling(&t, &[16, 32], 1);
        assert_eq!(m.counts, vec![8, 1]);
        assert_eq!(m.coords[3], vec![3, 0]);
        // 6 rows cannot take 8 tiles: the split is dropped.
        assert!(local_tiling(&t, &[6, 32], 1).is_replicated());
        // The sorted dimension whole: unchanged.
        assert_eq!(local_tiling(&t, &[16, 32], 0), t);
    }
}
