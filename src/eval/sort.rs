//! `sort` (multi-operand, with a comparator computation) and `topk`.

use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{ComputationId, Literal, Shape};

/// `sort(xs...), dimensions={d}, to_apply=cmp`.
pub fn sort(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    dimension: usize,
    is_stable: bool,
    to_apply: ComputationId,
) -> EvalResult {
    let _ = (ev, shape, operands, dimension, is_stable, to_apply);
    Err(EvalError::new("sort is not implemented in the interpreter yet"))
}

/// `topk(x), k=K, largest=...`: `(values, s32 indices)` along the last dimension.
pub fn topk(shape: &Shape, x: &Literal, k: i64, largest: bool) -> EvalResult {
    let _ = (shape, x, k, largest);
    Err(EvalError::new("topk is not implemented in the interpreter yet"))
}
