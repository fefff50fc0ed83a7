//! `concatenate`: local when the concatenated dimension is whole. When it is split, each
//! partition needs pieces of several operands, so the split moves to another dimension
//! first (an `all-to-all` per operand), the operands concatenate locally, and the split
//! moves back (one more `all-to-all`), as XLA's `HandleConcatenate` does. Pieces that do
//! not divide evenly (or no other dimension to move to) gather the operands instead.

use crate::spmd::tiling::Tiling;

/// How a concatenate is partitioned.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// The concatenated dimension is whole in the result: operands in the result's
    /// tiling, one local concatenate.
    Local,
    /// The concatenated dimension's split moves to `dim` (`moved`) for the local
    /// concatenate, and back afterwards.
    MoveSplit {
        /// The dimension that holds the split meanwhile.
        dim: usize,
        /// The result's tiling with the split moved.
        moved: Tiling,
    },
    /// The pieces do not line up: operands gathered whole.
    Gather,
}

/// The plan for a concatenate along `dimension` of operands with `sizes` along it into a
/// result of `dims` held in `result`.
pub fn plan(result: &Tiling, dimension: usize, sizes: &[i64], dims: &[i64]) -> Plan {
    let k = result.counts[dimension];
    if k == 1 {
        return Plan::Local;
    }
    // Each operand's shards must be whole pieces of it, so that moving the split back
    // after the local concatenate gives every partition its own rows.
    if sizes.iter().any(|&s| s % k != 0) {
        return Plan::Gather;
    }
    let Some(dim) =
        (0..dims.len()).find(|&d| d != dimension && result.counts[d] == 1 && dims[d] % k == 0)
    else {
        return Plan::Gather;
    };
    let mut moved = result.without_dim(dimension);
    moved.counts[dim] = k;
    for (c, orig) in moved.coords.iter_mut().zip(&result.coords) {
        c[dim] = orig[dimension];
    }
    Plan::MoveSplit { dim, moved }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize) -> Tiling {
        Tiling::from_parts(
            vec![n as i64, 1],
            (0..n as i64).map(|p| vec![p, 0]).collect(),
        )
        .unwrap()
    }

    #[test]
    fn split_moves_to_the_other_dimension() {
        let Plan::MoveSplit { dim, moved } = plan(&rows(4), 0, &[8, 16], &[24, 4]) else {
            panic!("expected a moved split");
        };
        assert_eq!(dim, 1);
        assert_eq!(moved.counts, vec![1, 4]);
        assert_eq!(moved.coords[3], vec![0, 3]);
    }

    #[test]
    fn uneven_pieces_gather() {
        assert_eq!(plan(&rows(4), 0, &[6, 16], &[22, 4]), Plan::Gather);
        assert_eq!(plan(&rows(4), 0, &[8, 16], &[24, 3]), Plan::Gather);
    }

    #[test]
    fn whole_dimension_is_local() {
        assert_eq!(plan(&rows(4), 1, &[2, 2], &[8, 4]), Plan::Local);
    }
}
