//! Data-movement ops: iota, broadcast, reshape, bitcast, transpose, reverse, slice,
//! dynamic-slice, dynamic-update-slice, concatenate, pad.

use super::{EvalError, EvalResult};
use crate::ir::{Literal, PaddingDimension, Shape, SliceDimension};

fn todo(what: &str) -> EvalResult {
    Err(EvalError::new(format!("{what} is not implemented in the interpreter yet")))
}

/// `iota`: each element is its index along `dimension`.
pub fn iota(shape: &Shape, dimension: usize) -> EvalResult {
    let _ = (shape, dimension);
    todo("iota")
}

/// `broadcast(x), dimensions=...`.
pub fn broadcast(shape: &Shape, x: &Literal, dimensions: &[usize]) -> EvalResult {
    let _ = (shape, x, dimensions);
    todo("broadcast")
}

/// `reshape(x)`: same elements in row-major order, new dimensions.
pub fn reshape(shape: &Shape, x: &Literal) -> EvalResult {
    let _ = (shape, x);
    todo("reshape")
}

/// `bitcast(x)`: reinterprets the physical buffer of `from` (with its layout) as `to`.
pub fn bitcast(from: &Shape, to: &Shape, x: &Literal) -> EvalResult {
    let _ = (from, to, x);
    todo("bitcast")
}

/// `transpose(x), dimensions=...`.
pub fn transpose(shape: &Shape, x: &Literal, dimensions: &[usize]) -> EvalResult {
    let _ = (shape, x, dimensions);
    todo("transpose")
}

/// `reverse(x), dimensions=...`.
pub fn reverse(x: &Literal, dimensions: &[usize]) -> EvalResult {
    let _ = (x, dimensions);
    todo("reverse")
}

/// `concatenate(xs...), dimensions={d}`.
pub fn concatenate(shape: &Shape, xs: &[&Literal], dimension: usize) -> EvalResult {
    let _ = (shape, xs, dimension);
    todo("concatenate")
}

/// `slice(x), slice={...}`.
pub fn slice(shape: &Shape, x: &Literal, slice: &[SliceDimension]) -> EvalResult {
    let _ = (shape, x, slice);
    todo("slice")
}

/// `dynamic-slice(x, starts...)`: starts are clamped so the slice stays in bounds.
pub fn dynamic_slice(shape: &Shape, x: &Literal, starts: &[&Literal], sizes: &[i64]) -> EvalResult {
    let _ = (shape, x, starts, sizes);
    todo("dynamic-slice")
}

/// `dynamic-update-slice(x, update, starts...)`: starts are clamped.
pub fn dynamic_update_slice(x: &Literal, update: &Literal, starts: &[&Literal]) -> EvalResult {
    let _ = (x, update, starts);
    todo("dynamic-update-slice")
}

/// `pad(x, value), padding=...` (negative edges remove elements).
pub fn pad(shape: &Shape, x: &Literal, value: &Literal, padding: &[PaddingDimension]) -> EvalResult {
    let _ = (shape, x, value, padding);
    todo("pad")
}
