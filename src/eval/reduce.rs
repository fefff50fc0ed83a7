//! Reductions over dimensions and windows: reduce (variadic), reduce-window,
//! select-and-scatter.

use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{ComputationId, Literal, Shape, Window};

/// `reduce(inputs..., inits...), dimensions=..., to_apply=r`.
pub fn reduce(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    dimensions: &[usize],
    to_apply: ComputationId,
) -> EvalResult {
    let _ = (ev, shape, operands, dimensions, to_apply);
    Err(EvalError::new("reduce is not implemented in the interpreter yet"))
}

/// `reduce-window(inputs..., inits...), window=..., to_apply=r`.
pub fn reduce_window(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    window: &Window,
    to_apply: ComputationId,
) -> EvalResult {
    let _ = (ev, shape, operands, window, to_apply);
    Err(EvalError::new("reduce-window is not implemented in the interpreter yet"))
}

/// `select-and-scatter(operand, source, init), window=..., select=s, scatter=t`.
pub fn select_and_scatter(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    window: &Window,
    select: ComputationId,
    scatter: ComputationId,
) -> EvalResult {
    let _ = (ev, shape, operands, window, select, scatter);
    Err(EvalError::new("select-and-scatter is not implemented in the interpreter yet"))
}
