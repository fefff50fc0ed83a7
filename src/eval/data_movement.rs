//! Data-movement ops: iota, broadcast, reshape, bitcast, transpose, reverse, slice,
//! dynamic-slice, dynamic-update-slice, concatenate, pad.
//! XLA: `xla/hlo/evaluator/hlo_evaluator.cc` (`HandleBroadcast`, `HandleDynamicSlice`, ...),
//! `hlo_evaluator_typed_visitor.h` (`HandleIota`, `HandlePad`, `HandleSlice`).
//!
//! Every op here is one recipe: compute, for each result element in row-major order, the
//! row-major position of the source element, then gather those positions from the typed
//! vector ([`ArrayData::gather`]). Ops with two sources (pad's value, dynamic-update-slice's
//! update, concatenate's operands) first append the sources into one vector.

use super::convert::{from_le_bytes, to_le_bytes};
use super::index::{
    element_count, expect_array, for_each_index, integer_at, linear_index_with_strides,
    row_major_strides,
};
use super::{EvalError, EvalResult};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, Literal, PaddingDimension, Shape, SliceDimension,
};

/// `iota`: each element is its index along `dimension`, converted to the element type.
pub fn iota(shape: &Shape, dimension: usize) -> EvalResult {
    let out = result_shape(shape)?;
    if dimension >= out.rank() {
        return Err(EvalError::new(format!(
            "iota dimension {dimension} out of range"
        )));
    }
    let mut counts = Vec::with_capacity(out.element_count());
    for_each_index(&out.dims, |index| counts.push(index[dimension]));
    // Build the indices as s64 and convert them, which gives XLA's static_cast semantics
    // (bf16 through f32, pred as `!= 0`).
    let as_s64 = Literal::Array(ArrayLiteral::from_vec(&out.dims, counts));
    super::convert::convert(&Shape::Array(out), &as_s64)
}

/// `broadcast(x), dimensions=...`: operand dimension i becomes result dimension
/// `dimensions[i]`; the other result dimensions repeat the operand.
pub fn broadcast(shape: &Shape, x: &Literal, dimensions: &[usize]) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let out = result_shape(shape)?;
    if dimensions.len() != x.shape.rank() || dimensions.iter().any(|&d| d >= out.rank()) {
        return Err(EvalError::new(format!(
            "bad broadcast dimensions {dimensions:?}"
        )));
    }
    let src_strides = row_major_strides(&x.shape.dims);
    // Stride of each result dimension in the operand (0 for the new dimensions).
    let mut strides = vec![0usize; out.rank()];
    for (i, &d) in dimensions.iter().enumerate() {
        strides[d] = src_strides[i];
    }
    gather_with_strides(x, out, &strides, &vec![0; strides.len()])
}

/// `reshape(x)`: the same elements in row-major order with new dimensions.
pub fn reshape(shape: &Shape, x: &Literal) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let out = result_shape(shape)?;
    check_count(x, &out)?;
    Ok(Literal::Array(ArrayLiteral {
        shape: out,
        data: x.data.clone(),
    }))
}

/// `bitcast(x)`: reinterprets the physical buffer. The row-major value is laid out with the
/// operand's declared layout, the bytes are read as the result's declared dims and layout,
/// and the value is brought back to row-major.
pub fn bitcast(from: &Shape, to: &Shape, x: &Literal) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let from = from
        .as_array()
        .ok_or_else(|| EvalError::new("bitcast of a non-array"))?;
    let to = to
        .as_array()
        .ok_or_else(|| EvalError::new("bitcast to a non-array"))?;
    if from.byte_size() != to.byte_size() {
        return Err(EvalError::new(format!(
            "bitcast from {} bytes to {} bytes",
            from.byte_size(),
            to.byte_size()
        )));
    }
    let physical = x.with_layout(&from.layout);
    let data = if from.element_type == to.element_type {
        physical.data
    } else {
        from_le_bytes(&to_le_bytes(&physical.data), to.element_type)?
    };
    let mut shape = to.clone();
    shape.dynamic_dims.clear();
    Ok(Literal::Array(ArrayLiteral { shape, data }.to_row_major()))
}

/// `transpose(x), dimensions=...`: result dimension i is operand dimension `dimensions[i]`.
pub fn transpose(shape: &Shape, x: &Literal, dimensions: &[usize]) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let out = result_shape(shape)?;
    if dimensions.len() != x.shape.rank() || dimensions.iter().any(|&d| d >= x.shape.rank()) {
        return Err(EvalError::new(format!(
            "bad transpose permutation {dimensions:?}"
        )));
    }
    let src_strides = row_major_strides(&x.shape.dims);
    let strides: Vec<usize> = dimensions.iter().map(|&d| src_strides[d]).collect();
    gather_with_strides(x, out, &strides, &vec![0; strides.len()])
}

/// `reverse(x), dimensions=...`: those dimensions run backwards.
pub fn reverse(x: &Literal, dimensions: &[usize]) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let dims = &x.shape.dims;
    if dimensions.iter().any(|&d| d >= dims.len()) {
        return Err(EvalError::new(format!(
            "bad reverse dimensions {dimensions:?}"
        )));
    }
    let strides = row_major_strides(dims);
    let mut order = Vec::with_capacity(x.data.len());
    let mut from = vec![0i64; dims.len()];
    for_each_index(dims, |index| {
        from.copy_from_slice(index);
        for &d in dimensions {
            from[d] = dims[d] - 1 - index[d];
        }
        order.push(linear_index_with_strides(&strides, &from));
    });
    let shape = ArrayShape::new(x.element_type(), dims);
    Ok(Literal::Array(ArrayLiteral {
        shape,
        data: x.data.gather(&order),
    }))
}

/// `concatenate(xs...), dimensions={d}`: the operands one after another along `d`.
pub fn concatenate(shape: &Shape, xs: &[&Literal], dimension: usize) -> EvalResult {
    let out = result_shape(shape)?;
    let arrays = xs
        .iter()
        .map(|x| expect_array(x, "operand"))
        .collect::<EvalResult<Vec<_>>>()?;
    if dimension >= out.rank() {
        return Err(EvalError::new(format!(
            "concatenate dimension {dimension} out of range"
        )));
    }
    // In row-major order the result is, for each index of the dimensions before `d`, a
    // block of each operand in turn; a block is the operand's `dims[d..]` elements.
    let outer: usize = element_count(&out.dims[..dimension]);
    let mut order = Vec::with_capacity(out.element_count());
    let mut base = 0usize;
    let mut bases = Vec::with_capacity(arrays.len());
    for a in &arrays {
        bases.push(base);
        base += a.data.len();
    }
    for o in 0..outer {
        for (a, &b) in arrays.iter().zip(&bases) {
            let block = element_count(&a.shape.dims[dimension.min(a.shape.rank())..]);
            order.extend((0..block).map(|i| b + o * block + i));
        }
    }
    let parts: Vec<&ArrayData> = arrays.iter().map(|a| &a.data).collect();
    let all = append_data(&parts)?;
    finish(out, all.gather(&order))
}

/// `slice(x), slice={[start:limit:stride], ...}`.
pub fn slice(shape: &Shape, x: &Literal, slice: &[SliceDimension]) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let out = result_shape(shape)?;
    if slice.len() != x.shape.rank() {
        return Err(EvalError::new("slice rank does not match the operand"));
    }
    for (s, (&n, &m)) in slice.iter().zip(x.shape.dims.iter().zip(&out.dims)) {
        if s.start < 0 || s.stride < 1 || (m > 0 && s.start + (m - 1) * s.stride >= n) {
            return Err(EvalError::new(format!(
                "slice [{}:{}:{}] out of bounds",
                s.start, s.limit, s.stride
            )));
        }
    }
    let src_strides = row_major_strides(&x.shape.dims);
    let strides: Vec<usize> = src_strides
        .iter()
        .zip(slice)
        .map(|(&st, s)| st * s.stride as usize)
        .collect();
    let starts: Vec<i64> = slice.iter().map(|s| s.start).collect();
    gather_with_strides(x, out, &strides, &starts)
}

/// `dynamic-slice(x, starts...)`: each start is clamped to `[0, dim - size]` so the slice
/// stays in bounds.
pub fn dynamic_slice(shape: &Shape, x: &Literal, starts: &[&Literal], sizes: &[i64]) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let out = result_shape(shape)?;
    if sizes.len() != x.shape.rank() || out.dims != sizes {
        return Err(EvalError::new(
            "dynamic-slice sizes do not match the operand or result",
        ));
    }
    let starts = clamped_starts(starts, &x.shape.dims, sizes)?;
    gather_with_strides(x, out, &row_major_strides(&x.shape.dims), &starts)
}

/// `dynamic-update-slice(x, update, starts...)`: `x` with `update` written at the (clamped)
/// starts.
pub fn dynamic_update_slice(x: &Literal, update: &Literal, starts: &[&Literal]) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let update = expect_array(update, "update")?;
    let dims = &x.shape.dims;
    if update.shape.rank() != dims.len() || update.shape.dims.iter().zip(dims).any(|(u, d)| u > d) {
        return Err(EvalError::new(
            "dynamic-update-slice update does not fit the operand",
        ));
    }
    let starts = clamped_starts(starts, dims, &update.shape.dims)?;
    // Positions past the operand's end index into the update, appended after it.
    let n = x.data.len();
    let mut order: Vec<usize> = (0..n).collect();
    let strides = row_major_strides(dims);
    let mut target = vec![0i64; dims.len()];
    let mut k = 0usize;
    for_each_index(&update.shape.dims, |index| {
        for (t, (&i, &s)) in target.iter_mut().zip(index.iter().zip(&starts)) {
            *t = i + s;
        }
        order[linear_index_with_strides(&strides, &target)] = n + k;
        k += 1;
    });
    let all = append_data(&[&x.data, &update.data])?;
    finish(ArrayShape::new(x.element_type(), dims), all.gather(&order))
}

/// `pad(x, value), padding=...`: `low` elements before, `high` after and `interior` between
/// neighbours of each dimension; negative `low`/`high` remove elements (after the interior
/// padding is inserted, as XLA defines it).
pub fn pad(
    shape: &Shape,
    x: &Literal,
    value: &Literal,
    padding: &[PaddingDimension],
) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let value = expect_array(value, "padding value")?;
    let out = result_shape(shape)?;
    if padding.len() != x.shape.rank() || value.data.len() != 1 {
        return Err(EvalError::new(
            "pad needs one padding entry per dimension and a scalar value",
        ));
    }
    if padding.iter().any(|p| p.interior < 0) {
        return Err(EvalError::new("pad interior must not be negative"));
    }
    // Every result element starts as the padding value (appended after the operand) ...
    let n = x.data.len();
    let mut order = vec![n; out.element_count()];
    let out_strides = row_major_strides(&out.dims);
    let mut target = vec![0i64; out.rank()];
    let mut k = 0usize;
    // ... then each operand element lands at low + i * (interior + 1), if that is inside.
    for_each_index(&x.shape.dims, |index| {
        let mut inside = true;
        for (d, p) in padding.iter().enumerate() {
            target[d] = p.low + index[d] * (p.interior + 1);
            inside &= target[d] >= 0 && target[d] < out.dims[d];
        }
        if inside {
            order[linear_index_with_strides(&out_strides, &target)] = k;
        }
        k += 1;
    });
    let all = append_data(&[&x.data, &value.data])?;
    finish(out, all.gather(&order))
}

/// Reads dynamic start indices (scalars of any integer type) and clamps each to
/// `[0, dim - size]`, as XLA does.
fn clamped_starts(starts: &[&Literal], dims: &[i64], sizes: &[i64]) -> EvalResult<Vec<i64>> {
    if starts.len() != dims.len() {
        return Err(EvalError::new(format!(
            "expected {} start indices, got {}",
            dims.len(),
            starts.len()
        )));
    }
    starts
        .iter()
        .zip(dims.iter().zip(sizes))
        .map(|(s, (&d, &size))| {
            let start = integer_at(expect_array(s, "start index")?, 0)?;
            Ok(start.clamp(0, (d - size).max(0)))
        })
        .collect()
}

/// Gathers `x` at `offset(starts + index)` for every result index, where the source offset of
/// result index `i` is `sum(starts[d] * row_major_stride[d]) + sum(i[d] * strides[d])`.
/// `strides` are per result dimension; `starts` per operand dimension (same rank here, or all 0).
fn gather_with_strides(
    x: &ArrayLiteral,
    out: ArrayShape,
    strides: &[usize],
    starts: &[i64],
) -> EvalResult {
    let base: usize = if starts.iter().all(|&s| s == 0) {
        0
    } else {
        linear_index_with_strides(&row_major_strides(&x.shape.dims), starts)
    };
    let mut order = Vec::with_capacity(out.element_count());
    for_each_index(&out.dims, |index| {
        order.push(base + linear_index_with_strides(strides, index))
    });
    if order.iter().any(|&i| i >= x.data.len()) {
        return Err(EvalError::new("index out of bounds of the operand"));
    }
    finish(out, x.data.gather(&order))
}

/// One vector holding the elements of every part, in order; all parts must share a type.
pub(super) fn append_data(parts: &[&ArrayData]) -> EvalResult<ArrayData> {
    macro_rules! cat {
        ($($variant:ident),*) => {
            match parts.first() {
                None => Err(EvalError::new("nothing to append")),
                $( Some(ArrayData::$variant(_)) => {
                    let mut out = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
                    for p in parts {
                        match p {
                            ArrayData::$variant(v) => out.extend_from_slice(v),
                            _ => return Err(EvalError::new("operands have different element types")),
                        }
                    }
                    Ok(ArrayData::$variant(out))
                } )*
            }
        };
    }
    cat!(
        Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128, Raw
    )
}

/// The instruction's array shape, row-major (values inside the evaluator are row-major).
fn result_shape(shape: &Shape) -> EvalResult<ArrayShape> {
    let a = shape
        .as_array()
        .ok_or_else(|| EvalError::new("expected an array result shape"))?;
    Ok(ArrayShape::new(a.element_type, &a.dims))
}

fn check_count(x: &ArrayLiteral, out: &ArrayShape) -> EvalResult<()> {
    if x.data.len() != out.element_count() {
        return Err(EvalError::new(format!(
            "{} elements do not fit result dimensions {:?}",
            x.data.len(),
            out.dims
        )));
    }
    if x.element_type() != out.element_type {
        return Err(EvalError::new(format!(
            "operand type {} differs from result type {}",
            x.element_type(),
            out.element_type
        )));
    }
    Ok(())
}

fn finish(out: ArrayShape, data: ArrayData) -> EvalResult {
    if data.len() != out.element_count() {
        return Err(EvalError::new("result size does not match its shape"));
    }
    Ok(Literal::Array(ArrayLiteral { shape: out, data }))
}

#[cfg(test)]
mod tests;
