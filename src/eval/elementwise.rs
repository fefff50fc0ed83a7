//! Elementwise ops: unary and binary math, compare, select, clamp, convert,
//! bitcast-convert, reduce-precision, with XLA's exact integer, NaN and rounding semantics.

use super::{EvalError, EvalResult};
use crate::ir::{ComparisonDirection, ComparisonType, Literal, Opcode, Shape};

/// An elementwise unary op (`abs`, `exponential`, `not`, `popcnt`, ...).
pub fn unary(opcode: Opcode, shape: &Shape, x: &Literal) -> EvalResult {
    let _ = (shape, x);
    Err(EvalError::new(format!("{opcode} is not implemented in the interpreter yet")))
}

/// An elementwise binary op (`add`, `divide`, `shift-left`, `atan2`, ...).
pub fn binary(opcode: Opcode, shape: &Shape, a: &Literal, b: &Literal) -> EvalResult {
    let _ = (shape, a, b);
    Err(EvalError::new(format!("{opcode} is not implemented in the interpreter yet")))
}

/// `compare(a, b), direction=..., type=...`.
pub fn compare(
    a: &Literal,
    b: &Literal,
    direction: ComparisonDirection,
    comparison_type: Option<ComparisonType>,
) -> EvalResult {
    let _ = (a, b, direction, comparison_type);
    Err(EvalError::new("compare is not implemented in the interpreter yet"))
}

/// `select(pred, on_true, on_false)`.
pub fn select(pred: &Literal, on_true: &Literal, on_false: &Literal) -> EvalResult {
    let _ = (pred, on_true, on_false);
    Err(EvalError::new("select is not implemented in the interpreter yet"))
}

/// `clamp(min, x, max)`.
pub fn clamp(min: &Literal, x: &Literal, max: &Literal) -> EvalResult {
    let _ = (min, x, max);
    Err(EvalError::new("clamp is not implemented in the interpreter yet"))
}

/// `convert(x)` to the element type of `shape`.
pub fn convert(shape: &Shape, x: &Literal) -> EvalResult {
    let _ = (shape, x);
    Err(EvalError::new("convert is not implemented in the interpreter yet"))
}

/// `bitcast-convert(x)`: reinterpret bits; a narrower result type adds a minor dimension.
pub fn bitcast_convert(shape: &Shape, x: &Literal) -> EvalResult {
    let _ = (shape, x);
    Err(EvalError::new("bitcast-convert is not implemented in the interpreter yet"))
}

/// `reduce-precision(x)`: round to a float with fewer exponent and mantissa bits.
pub fn reduce_precision(x: &Literal, exponent_bits: u32, mantissa_bits: u32) -> EvalResult {
    let _ = (x, exponent_bits, mantissa_bits);
    Err(EvalError::new("reduce-precision is not implemented in the interpreter yet"))
}
