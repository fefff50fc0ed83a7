//! `gather` and `scatter` with full dimension numbers (including batching dims).

use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{ComputationId, GatherDimensionNumbers, Literal, ScatterDimensionNumbers, Shape};

/// `gather(operand, indices)`: start indices are clamped so each slice stays in bounds.
pub fn gather(
    shape: &Shape,
    operand: &Literal,
    indices: &Literal,
    dnums: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> EvalResult {
    let _ = (shape, operand, indices, dnums, slice_sizes);
    Err(EvalError::new("gather is not implemented in the interpreter yet"))
}

/// `scatter(operands..., indices, updates...)`: out-of-bounds updates are skipped.
pub fn scatter(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    dnums: &ScatterDimensionNumbers,
    to_apply: ComputationId,
) -> EvalResult {
    let _ = (ev, shape, operands, dnums, to_apply);
    Err(EvalError::new("scatter is not implemented in the interpreter yet"))
}
