//! Reductions with nothing to combine: a reduce of an empty array (or to an empty result)
//! is its init value broadcast, and a reduce that keeps the element count (it reduces no
//! dimensions, or only 1-sized ones) is a reshape of its input.
//!
//! The reshape rule relies on what XLA requires of every reduce: the init value is an
//! identity of the reducer, which may apply it any number of times. So `reduce(x, 0)` over
//! a 1-sized `add` dimension is `x`, not `x + 0` (they differ only for `x = -0`). A reduce
//! whose init is not an identity is outside XLA's semantics; XLA rewrites it all the same.
//!
//! XLA: `HandleReduce`, `BroadcastReduce`, `ReplaceReduceWithReshape` in
//! `algebraic_simplifier.cc`.

use super::matchers::{array_shape, operands};
use super::{NewInstr, Rewrite, Value};
use crate::ir::{Computation, InstrId, Op, Opcode, Shape};

/// `reduce`: of or to an empty array, or keeping the element count.
pub fn simplify_reduce(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    reduce_empty(comp, id).or_else(|| reduce_to_reshape(comp, id))
}

/// The inputs, the init values and the per-output result shapes of a reduce.
fn parts(comp: &Computation, id: InstrId) -> Option<(&[InstrId], &[InstrId], Vec<Shape>)> {
    let all = operands(comp, id);
    let (inputs, inits) = all.split_at(all.len() / 2);
    let shape = &comp.instr(id).shape;
    let results = match shape {
        Shape::Tuple(elements) => elements.clone(),
        _ => vec![shape.clone()],
    };
    (results.len() == inputs.len() && !inputs.is_empty()).then_some((inputs, inits, results))
}

/// One new instruction per output, then a tuple of them if the reduce has several.
fn per_output(comp: &Computation, id: InstrId, mut outputs: Vec<NewInstr>) -> Vec<NewInstr> {
    let shape = &comp.instr(id).shape;
    if shape.is_tuple() {
        let elements = (0..outputs.len()).map(Value::New).collect();
        outputs.push(NewInstr::new(
            shape.clone(),
            Op::Plain(Opcode::Tuple),
            elements,
        ));
    }
    outputs
}

/// reduce(x, init) => broadcast(init) when x or the result is empty
fn reduce_empty(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let (inputs, inits, results) = parts(comp, id)?;
    let input_count = array_shape(comp, inputs[0])?.element_count();
    let result_count = results[0].as_array()?.element_count();
    if input_count != 0 && result_count != 0 {
        return None;
    }
    let broadcasts = results
        .into_iter()
        .zip(inits)
        .map(|(shape, &init)| {
            NewInstr::new(
                shape,
                Op::Broadcast { dimensions: vec![] },
                vec![Value::Old(init)],
            )
        })
        .collect();
    Rewrite::build(
        "reduce(empty, init) => broadcast(init)",
        per_output(comp, id, broadcasts),
    )
}

/// reduce(x, init) => reshape(x) when the result has as many elements as x
fn reduce_to_reshape(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let (inputs, _, results) = parts(comp, id)?;
    if array_shape(comp, inputs[0])?.element_count() != results[0].as_array()?.element_count() {
        return None;
    }
    let reshapes = results
        .into_iter()
        .zip(inputs)
        .map(|(shape, &x)| NewInstr::new(shape, Op::Plain(Opcode::Reshape), vec![Value::Old(x)]))
        .collect();
    Rewrite::build(
        "reduce(x) keeping the element count => reshape(x)",
        per_output(comp, id, reshapes),
    )
}
