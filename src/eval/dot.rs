//! `dot` with general dimension numbers (batch and contracting dimensions).

use super::{EvalError, EvalResult};
use crate::ir::{DotDimensionNumbers, Literal, Shape};

/// `dot(lhs, rhs)`: result dims are batch, lhs free, rhs free.
pub fn dot(shape: &Shape, lhs: &Literal, rhs: &Literal, dnums: &DotDimensionNumbers) -> EvalResult {
    let _ = (shape, lhs, rhs, dnums);
    Err(EvalError::new("dot is not implemented in the interpreter yet"))
}
