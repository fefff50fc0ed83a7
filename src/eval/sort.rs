//! `sort` (several operands sorted together by a comparator computation) and `topk`.
//!
//! sort: every 1-D slice along `dimension` is sorted by a permutation computed with the
//! comparator `(a0, b0, a1, b1, ...) -> pred` ("a sorts before b"), and that permutation
//! is applied to every operand. The comparator is a computation, so it may fail; the
//! error propagates.
//!
//! We always use a stable merge sort, even when `is_stable=false`. HloEvaluator uses
//! `std::sort` there, whose order of equal elements is unspecified (it depends on the
//! C++ library), so no particular order can be "the" reference; a stable order is one
//! valid answer and keeps the interpreter deterministic and easy to compare against.
//!
//! topk: along the last dimension, the k largest (or smallest) elements and their s32
//! indices, ordered as XLA's TopK decomposition orders them (a stable sort with a
//! TOTALORDER comparison): NaN above +inf and -NaN below -inf, -0 below +0, and equal
//! elements by increasing index.
//! XLA: `xla/hlo/evaluator/hlo_evaluator.cc` (`HandleSort`), `xla/service/topk_rewriter.cc`
//! (`TopkDecomposer`), `xla/hlo/builder/lib/comparators.cc`.

use super::reduce::index::{dims_usize, linear_offsets, row_major_strides};
use super::reduce::scalar_fn::{Element, ScalarPred, array, scalar_at};
use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, ComputationId, Literal, PrimitiveType, Shape,
};

/// `sort(xs...), dimensions={d}, to_apply=cmp`.
pub fn sort(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    dimension: usize,
    is_stable: bool,
    to_apply: ComputationId,
) -> EvalResult {
    // Sorting is always stable; see the module doc.
    let _ = is_stable;
    let arrays: Vec<&ArrayLiteral> = operands
        .iter()
        .map(|l| array(l, "sort operand"))
        .collect::<EvalResult<_>>()?;
    let Some(first) = arrays.first() else {
        return Err(EvalError::new("sort needs at least one operand"));
    };
    if arrays.iter().any(|a| a.shape.dims != first.shape.dims) {
        return Err(EvalError::new(
            "sort operands must have the same dimensions",
        ));
    }
    if shape.leaves().len() != arrays.len() {
        return Err(EvalError::new(
            "sort result shape does not match its operands",
        ));
    }
    let n_params = ev.module.computation(to_apply).parameters().len();
    if n_params != 2 * arrays.len() {
        return Err(EvalError::new(format!(
            "sort comparator takes {n_params} parameters, expected {}",
            2 * arrays.len()
        )));
    }
    let dims = dims_usize(&first.shape.dims);
    if dimension >= dims.len() {
        return Err(EvalError::new(format!(
            "sort dimension {dimension} is out of range for rank {}",
            dims.len()
        )));
    }
    let strides = row_major_strides(&dims);
    let others: Vec<usize> = (0..dims.len()).filter(|&d| d != dimension).collect();
    let bases = linear_offsets(&dims, &strides, &others);
    let (len, stride) = (dims[dimension], strides[dimension]);

    let pred = ScalarPred::recognize(ev.module, to_apply, first.element_type());
    let mut order = vec![0usize; first.data.len()];
    let mut perm: Vec<usize> = Vec::with_capacity(len);
    for &base in &bases {
        perm.clear();
        perm.extend((0..len).map(|j| base + j * stride));
        match pred {
            // compare(a0, b0) or compare(b0, a0): sort on the first operand natively.
            ScalarPred::Compare {
                direction,
                total_order,
                lhs,
                rhs,
            } if lhs + rhs == 1 => {
                let swap = lhs == 1;
                macro_rules! native {
                    ($v:expr) => {
                        merge_sort(&mut perm, &mut |x, y| {
                            let (l, r) = if swap { (y, x) } else { (x, y) };
                            Ok(Element::compare(direction, total_order, $v[l], $v[r]))
                        })?
                    };
                }
                match &first.data {
                    ArrayData::Pred(v) => native!(v),
                    ArrayData::S8(v) => native!(v),
                    ArrayData::S16(v) => native!(v),
                    ArrayData::S32(v) => native!(v),
                    ArrayData::S64(v) => native!(v),
                    ArrayData::U8(v) => native!(v),
                    ArrayData::U16(v) => native!(v),
                    ArrayData::U32(v) => native!(v),
                    ArrayData::U64(v) => native!(v),
                    ArrayData::F16(v) => native!(v),
                    ArrayData::BF16(v) => native!(v),
                    ArrayData::F32(v) => native!(v),
                    ArrayData::F64(v) => native!(v),
                    _ => merge_sort(&mut perm, &mut |x, y| {
                        call_comparator(ev, to_apply, &arrays, x, y)
                    })?,
                }
            }
            _ => merge_sort(&mut perm, &mut |x, y| {
                call_comparator(ev, to_apply, &arrays, x, y)
            })?,
        }
        for (j, &src) in perm.iter().enumerate() {
            order[base + j * stride] = src;
        }
    }
    let mut sorted: Vec<Literal> = arrays
        .iter()
        .map(|a| {
            Literal::Array(ArrayLiteral {
                shape: ArrayShape::new(a.element_type(), &a.shape.dims),
                data: a.data.gather(&order),
            })
        })
        .collect();
    Ok(if sorted.len() == 1 {
        sorted.remove(0)
    } else {
        Literal::Tuple(sorted)
    })
}

/// `cmp(a0, b0, a1, b1, ...)` with `a` at linear position `x` and `b` at `y`.
fn call_comparator(
    ev: &mut Evaluator<'_>,
    cmp: ComputationId,
    arrays: &[&ArrayLiteral],
    x: usize,
    y: usize,
) -> EvalResult<bool> {
    let args: Vec<Literal> = arrays
        .iter()
        .flat_map(|a| {
            [
                scalar_at(&a.data, a.element_type(), x),
                scalar_at(&a.data, a.element_type(), y),
            ]
        })
        .collect();
    let refs: Vec<&Literal> = args.iter().collect();
    let result = ev.call(cmp, &refs)?;
    result
        .as_array()
        .and_then(|a| a.values::<bool>())
        .and_then(|v| v.first().copied())
        .ok_or_else(|| EvalError::new("sort comparator must return pred[]"))
}

/// Stable bottom-up merge sort of `v` under a fallible strict "less than".
///
/// An element of the right run is taken before one of the left run only if it is
/// strictly less, so equal elements keep their order. The comparator is never assumed to
/// be a consistent order: an inconsistent one yields some permutation, not a panic.
/// The runtime's native sort runs it too (with its compiled comparator), so both backends
/// produce the same permutation.
pub fn merge_sort<E>(
    v: &mut Vec<usize>,
    less: &mut dyn FnMut(usize, usize) -> Result<bool, E>,
) -> Result<(), E> {
    let n = v.len();
    let mut buf = Vec::with_capacity(n);
    let mut width = 1;
    while width < n {
        buf.clear();
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j) = (lo, mid);
            while i < mid && j < hi {
                if less(v[j], v[i])? {
                    buf.push(v[j]);
                    j += 1;
                } else {
                    buf.push(v[i]);
                    i += 1;
                }
            }
            buf.extend_from_slice(&v[i..mid]);
            buf.extend_from_slice(&v[j..hi]);
            lo = hi;
        }
        std::mem::swap(v, &mut buf);
        width *= 2;
    }
    Ok(())
}

/// `topk(x), k=K, largest=...`: `(values, s32 indices)` along the last dimension.
pub fn topk(shape: &Shape, x: &Literal, k: i64, largest: bool) -> EvalResult {
    let x = array(x, "topk operand")?;
    let dims = dims_usize(&x.shape.dims);
    let Some(&n) = dims.last() else {
        return Err(EvalError::new("topk needs an operand of rank >= 1"));
    };
    if k < 0 || k as usize > n {
        return Err(EvalError::new(format!(
            "topk k={k} is out of range for a last dimension of {n}"
        )));
    }
    let k = k as usize;
    let keys = order_keys(&x.data).ok_or_else(|| {
        EvalError::new(format!("topk of {} is not supported", x.element_type())).unsupported()
    })?;
    let rows = x.data.len().checked_div(n).unwrap_or(0);
    let mut positions = Vec::with_capacity(rows * k);
    let mut indices = Vec::with_capacity(rows * k);
    let mut row: Vec<usize> = Vec::with_capacity(n);
    for r in 0..rows {
        row.clear();
        row.extend(0..n);
        let key = |j: usize| keys[r * n + j];
        // `sort_by` is stable, so equal keys stay in increasing index order.
        if largest {
            row.sort_by_key(|&a| std::cmp::Reverse(key(a)));
        } else {
            row.sort_by_key(|&a| key(a));
        }
        for &j in &row[..k] {
            positions.push(r * n + j);
            indices.push(j as i32);
        }
    }
    let mut out_dims = x.shape.dims.clone();
    if let Some(last) = out_dims.last_mut() {
        *last = k as i64;
    }
    let expected = Shape::Tuple(vec![
        Shape::array(x.element_type(), &out_dims),
        Shape::array(PrimitiveType::S32, &out_dims),
    ]);
    if !shape.compatible(&expected) {
        return Err(EvalError::new(
            "topk result shape does not match (values, s32 indices)",
        ));
    }
    let values = ArrayLiteral {
        shape: ArrayShape::new(x.element_type(), &out_dims),
        data: x.data.gather(&positions),
    };
    let indices = ArrayLiteral {
        shape: ArrayShape::new(PrimitiveType::S32, &out_dims),
        data: ArrayData::S32(indices),
    };
    Ok(Literal::Tuple(vec![
        Literal::Array(values),
        Literal::Array(indices),
    ]))
}

/// TOTALORDER keys of real elements; `None` for complex and raw data.
fn order_keys(data: &ArrayData) -> Option<Vec<i128>> {
    fn keys<T: Element>(v: &[T]) -> Option<Vec<i128>> {
        v.iter().map(|&x| x.total_order_key()).collect()
    }
    match data {
        ArrayData::Pred(v) => keys(v),
        ArrayData::S8(v) => keys(v),
        ArrayData::S16(v) => keys(v),
        ArrayData::S32(v) => keys(v),
        ArrayData::S64(v) => keys(v),
        ArrayData::U8(v) => keys(v),
        ArrayData::U16(v) => keys(v),
        ArrayData::U32(v) => keys(v),
        ArrayData::U64(v) => keys(v),
        ArrayData::F16(v) => keys(v),
        ArrayData::BF16(v) => keys(v),
        ArrayData::F32(v) => keys(v),
        ArrayData::F64(v) => keys(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
