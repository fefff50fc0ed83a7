//! Multi-index helpers shared by the interpreter's handlers: walking every index of a shape
//! in row-major order, and converting between multi-indices and linear (row-major) offsets.
//!
//! Values inside the evaluator are row-major (see `eval/mod.rs`), so these helpers never look
//! at layouts. They mirror what XLA's `IndexUtil` and `ShapeUtil::ForEachIndex` do for the
//! evaluator (`xla/index_util.cc`, `xla/shape_util.h`).
//!
//! Typical use in a handler:
//!
//! ```ignore
//! let strides = row_major_strides(&operand_dims);
//! for_each_index(&result_dims, |index| {
//!     let src = linear_index_with_strides(&strides, index);
//!     out.push(values[src]);
//! });
//! ```

use super::{EvalError, EvalResult};
use crate::ir::{ArrayLiteral, Literal};

/// Number of elements of an array with these dimensions (1 for a scalar, 0 if any is ≤ 0).
pub fn element_count(dims: &[i64]) -> usize {
    dims.iter().map(|&d| d.max(0) as usize).product()
}

/// Row-major strides in elements: the last dimension has stride 1.
pub fn row_major_strides(dims: &[i64]) -> Vec<usize> {
    let mut strides = vec![1usize; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1].max(0) as usize;
    }
    strides
}

/// The row-major linear offset of `index` in an array of `dims`.
/// Indices are assumed in bounds (the caller checked or clamped them).
pub fn linear_index(dims: &[i64], index: &[i64]) -> usize {
    let mut offset = 0usize;
    for (&d, &i) in dims.iter().zip(index) {
        offset = offset * d.max(0) as usize + i as usize;
    }
    offset
}

/// The linear offset of `index` given precomputed strides (see [`row_major_strides`]).
pub fn linear_index_with_strides(strides: &[usize], index: &[i64]) -> usize {
    strides
        .iter()
        .zip(index)
        .map(|(&s, &i)| s * i as usize)
        .sum()
}

/// The multi-index of row-major offset `linear` in an array of `dims`, written into `index`.
pub fn multi_index(dims: &[i64], mut linear: usize, index: &mut [i64]) {
    for k in (0..dims.len()).rev() {
        let d = dims[k].max(1) as usize;
        index[k] = (linear % d) as i64;
        linear /= d;
    }
}

/// Calls `f` with every multi-index of `dims`, in row-major order (last dimension fastest).
/// Calls `f` once with `&[]` for a scalar, and never for an empty array.
pub fn for_each_index(dims: &[i64], mut f: impl FnMut(&[i64])) {
    if dims.iter().any(|&d| d <= 0) {
        return;
    }
    let rank = dims.len();
    let mut index = vec![0i64; rank];
    loop {
        f(&index);
        // Odometer increment: bump the last dimension, carry into earlier ones.
        let mut k = rank;
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < dims[k] {
                break;
            }
            index[k] = 0;
        }
    }
}

/// Like [`for_each_index`], but `f` may stop the walk early by returning an error.
pub fn try_for_each_index(
    dims: &[i64],
    mut f: impl FnMut(&[i64]) -> EvalResult<()>,
) -> EvalResult<()> {
    let mut result = Ok(());
    // A plain loop would duplicate the odometer; instead remember the first error and skip.
    for_each_index(dims, |index| {
        if result.is_ok() {
            result = f(index);
        }
    });
    result
}

/// The array inside a literal, or an error naming what was expected.
pub fn expect_array<'a>(lit: &'a Literal, what: &str) -> EvalResult<&'a ArrayLiteral> {
    lit.as_array()
        .ok_or_else(|| EvalError::new(format!("{what} must be an array, got a tuple or token")))
}

/// Reads element `i` of an integer array as `i64` (any integer type or pred); used for
/// dynamic-slice starts, conditional indices and gather/scatter indices.
pub fn integer_at(array: &ArrayLiteral, i: usize) -> EvalResult<i64> {
    use crate::ir::ArrayData as D;
    let value = match &array.data {
        D::Pred(v) => v.get(i).map(|&x| x as i64),
        D::S8(v) => v.get(i).map(|&x| x as i64),
        D::S16(v) => v.get(i).map(|&x| x as i64),
        D::S32(v) => v.get(i).map(|&x| x as i64),
        D::S64(v) => v.get(i).copied(),
        D::U8(v) => v.get(i).map(|&x| x as i64),
        D::U16(v) => v.get(i).map(|&x| x as i64),
        D::U32(v) => v.get(i).map(|&x| x as i64),
        // u64 beyond i64::MAX wraps negative; as an index it is out of range either way and
        // callers clamp, which is what XLA does after its own conversion to int64.
        D::U64(v) => v.get(i).map(|&x| x as i64),
        _ => {
            return Err(EvalError::new(format!(
                "expected an integer index, got {}",
                array.element_type()
            )));
        }
    };
    value.ok_or_else(|| EvalError::new(format!("index element {i} out of range")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_row_major() {
        let mut seen = Vec::new();
        for_each_index(&[2, 3], |i| seen.push(i.to_vec()));
        assert_eq!(
            seen,
            vec![
                vec![0, 0],
                vec![0, 1],
                vec![0, 2],
                vec![1, 0],
                vec![1, 1],
                vec![1, 2]
            ]
        );
    }

    #[test]
    fn scalar_and_empty() {
        let mut n = 0;
        for_each_index(&[], |i| {
            assert!(i.is_empty());
            n += 1
        });
        assert_eq!(n, 1);
        for_each_index(&[3, 0], |_| n += 1);
        assert_eq!(n, 1);
    }

    #[test]
    fn linear_and_back() {
        let dims = [2, 3, 4];
        assert_eq!(row_major_strides(&dims), vec![12, 4, 1]);
        assert_eq!(linear_index(&dims, &[1, 2, 3]), 12 + 8 + 3);
        assert_eq!(linear_index_with_strides(&[12, 4, 1], &[1, 2, 3]), 23);
        let mut idx = [0; 3];
        multi_index(&dims, 23, &mut idx);
        assert_eq!(idx, [1, 2, 3]);
    }

    #[test]
    fn reads_integers_of_any_type() {
        let a = ArrayLiteral::from_vec(&[2], vec![-3i8, 7]);
        assert_eq!(integer_at(&a, 0), Ok(-3));
        let f = ArrayLiteral::from_vec(&[1], vec![1.0f32]);
        assert!(integer_at(&f, 0).is_err());
    }
}
