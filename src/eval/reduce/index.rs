//! Small row-major index helpers shared by the reduction, window, gather/scatter, sort,
//! dot and convolution handlers. Evaluator values are row-major (see `eval/mod.rs`), so a
//! multi-index maps to a linear position through [`row_major_strides`].

use crate::eval::{EvalError, EvalResult};

/// Dimension sizes as `usize` (negative sizes, which a verified module never has, become 0).
pub(in crate::eval) fn dims_usize(dims: &[i64]) -> Vec<usize> {
    dims.iter().map(|&d| d.max(0) as usize).collect()
}

/// Row-major strides in elements: the last dimension has stride 1.
pub(in crate::eval) fn row_major_strides(dims: &[usize]) -> Vec<usize> {
    let mut strides = vec![1usize; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    strides
}

/// Advances `index` to the next multi-index of `dims` in row-major order (the last
/// dimension fastest). Returns false, with `index` back at all zeros, after the last one.
pub(in crate::eval) fn next_index(index: &mut [usize], dims: &[usize]) -> bool {
    for d in (0..index.len()).rev() {
        index[d] += 1;
        if index[d] < dims[d] {
            return true;
        }
        index[d] = 0;
    }
    false
}

/// The linear offsets `sum(i[d] * strides[d])` of every combination of indices along the
/// dimensions `which`, in row-major order over `which` (its last entry fastest).
pub(in crate::eval) fn linear_offsets(
    dims: &[usize],
    strides: &[usize],
    which: &[usize],
) -> Vec<usize> {
    let sizes: Vec<usize> = which.iter().map(|&d| dims[d]).collect();
    let count: usize = sizes.iter().product();
    let mut out = Vec::with_capacity(count);
    if count == 0 {
        return out;
    }
    let mut index = vec![0usize; which.len()];
    loop {
        out.push(index.iter().zip(which).map(|(&i, &d)| i * strides[d]).sum());
        if !next_index(&mut index, &sizes) {
            return out;
        }
    }
}

/// Checks that every entry of `dims` is a dimension of a rank-`rank` array.
pub(in crate::eval) fn check_dims(dims: &[usize], rank: usize, what: &str) -> EvalResult<()> {
    match dims.iter().find(|&&d| d >= rank) {
        Some(d) => Err(EvalError::new(format!(
            "{what} {d} is out of range for rank {rank}"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_walk_row_major() {
        let dims = [2, 3, 4];
        let strides = row_major_strides(&dims);
        assert_eq!(strides, vec![12, 4, 1]);
        assert_eq!(
            linear_offsets(&dims, &strides, &[0, 2]),
            vec![0, 1, 2, 3, 12, 13, 14, 15]
        );
        assert_eq!(linear_offsets(&dims, &strides, &[]), vec![0]);
        let mut i = [0, 2];
        assert!(next_index(&mut i, &[2, 3]));
        assert_eq!(i, [1, 0]);
    }
}
