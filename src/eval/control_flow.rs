//! Control flow: while, conditional, map. (`call` and `fusion` are `Evaluator::call`.)
//! XLA: `xla/hlo/evaluator/hlo_evaluator.cc` (`HandleWhile`, `HandleConditional`,
//! `HandleMap`).

use super::index::{expect_array, integer_at};
use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{ArrayData, ArrayLiteral, ArrayShape, ComputationId, Literal, Shape};

/// `while(init)`: runs `body` on the loop state while `condition` returns true.
pub fn while_loop(
    ev: &mut Evaluator<'_>,
    name: &str,
    init: &Literal,
    condition: ComputationId,
    body: ComputationId,
) -> EvalResult {
    let mut state = init.clone();
    let mut iteration = 0u64;
    loop {
        iteration = iteration.saturating_add(1);
        ev.options
            .limits
            .check_while(name, iteration)
            .map_err(EvalError::new)?;
        let keep_going = ev.call(condition, &[&state])?;
        if !scalar_pred(&keep_going, "while condition")? {
            return Ok(state);
        }
        state = ev.call(body, &[&state])?;
    }
}

/// `conditional(selector, args...)`: a `pred` selector runs branch 0 when true and branch 1
/// when false; an integer selector runs that branch, and the last one when out of range.
/// Branch i receives argument i.
pub fn conditional(
    ev: &mut Evaluator<'_>,
    operands: &[&Literal],
    branches: &[ComputationId],
) -> EvalResult {
    let (selector, args) = operands
        .split_first()
        .ok_or_else(|| EvalError::new("conditional has no selector"))?;
    if branches.is_empty() || args.len() != branches.len() {
        return Err(EvalError::new(format!(
            "conditional has {} branches and {} branch arguments",
            branches.len(),
            args.len()
        )));
    }
    let selector = expect_array(selector, "conditional selector")?;
    let branch = match &selector.data {
        ArrayData::Pred(v) if v.len() == 1 => usize::from(!v[0]),
        _ => {
            let index = integer_at(selector, 0)?;
            if index < 0 || index as usize >= branches.len() {
                branches.len() - 1
            } else {
                index as usize
            }
        }
    };
    ev.call(branches[branch], &[args[branch]])
}

/// `map(xs...), to_apply=f`: calls the scalar computation `f` once per element position with
/// the elements of every operand at that position.
pub fn map(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    xs: &[&Literal],
    to_apply: ComputationId,
) -> EvalResult {
    let out = shape
        .as_array()
        .ok_or_else(|| EvalError::new("map must produce an array"))?;
    let arrays = xs
        .iter()
        .map(|x| expect_array(x, "map operand"))
        .collect::<EvalResult<Vec<_>>>()?;
    if arrays.iter().any(|a| a.shape.dims != out.dims) {
        return Err(EvalError::new(
            "map operands must have the result's dimensions",
        ));
    }
    let count = out.element_count();
    let mut results = Vec::with_capacity(count);
    for i in 0..count {
        let scalars: Vec<Literal> = arrays.iter().map(|a| scalar_at(a, i)).collect();
        let refs: Vec<&Literal> = scalars.iter().collect();
        let value = ev.call(to_apply, &refs)?;
        results.push(expect_array(&value, "map result")?.data.clone());
    }
    let parts: Vec<&ArrayData> = results.iter().collect();
    let data = if parts.is_empty() {
        ArrayData::zeros(out.element_type, 0)
    } else {
        super::data_movement::append_data(&parts)?
    };
    Ok(Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(out.element_type, &out.dims),
        data,
    }))
}

/// Element `i` of an array as a rank-0 literal.
fn scalar_at(a: &ArrayLiteral, i: usize) -> Literal {
    Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(a.element_type(), &[]),
        data: a.data.gather(&[i]),
    })
}

/// The value of a `pred[]` result.
fn scalar_pred(value: &Literal, what: &str) -> EvalResult<bool> {
    match value.as_array().and_then(|a| a.values::<bool>()) {
        Some([b]) => Ok(*b),
        _ => Err(EvalError::new(format!("{what} must return pred[]"))),
    }
}

#[cfg(test)]
mod tests;
