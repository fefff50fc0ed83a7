//! Control flow: while, conditional, map. (`call` and `fusion` are `Evaluator::call`.)

use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{ComputationId, Literal, Shape};

/// `while(init)`: runs `body` while `condition` is true.
pub fn while_loop(
    ev: &mut Evaluator<'_>,
    init: &Literal,
    condition: ComputationId,
    body: ComputationId,
) -> EvalResult {
    let _ = (ev, init, condition, body);
    Err(EvalError::new("while is not implemented in the interpreter yet"))
}

/// `conditional(selector, args...)`: pred selects branch 0 (true) or 1; an s32 index
/// outside the range selects the last branch.
pub fn conditional(
    ev: &mut Evaluator<'_>,
    operands: &[&Literal],
    branches: &[ComputationId],
) -> EvalResult {
    let _ = (ev, operands, branches);
    Err(EvalError::new("conditional is not implemented in the interpreter yet"))
}

/// `map(xs...), to_apply=f`: `f` on each element position.
pub fn map(ev: &mut Evaluator<'_>, shape: &Shape, xs: &[&Literal], to_apply: ComputationId) -> EvalResult {
    let _ = (ev, shape, xs, to_apply);
    Err(EvalError::new("map is not implemented in the interpreter yet"))
}
