//! Dots that are not really matrix products: a dot with an empty operand is zeros, a dot
//! with no contracting dimensions is an elementwise multiply of broadcasts (an outer
//! product), and 1-sized dimensions are reshaped away. A dot whose contracting dimension
//! has size 1 takes two rounds: its degenerate dimensions go first, which leaves a dot
//! with no contracting dimensions, which the next round turns into a multiply.
//!
//! Each output of a dot with no contracting dimensions is one product `lhs * rhs`, so the
//! multiply gives the same bits (operands of another type, e.g. bf16 into an f32 dot,
//! are converted first, as the dot does). XLA:CPU turns off the "strength reduction" that
//! rewrites matrix-vector dots into multiply-and-reduce, and so does xlac.
//!
//! XLA: `HandleDot`, `RewriteAsMultiplyDotWithZeroLhsContractingDim`,
//! `RemoveDegenerateDimensionFromDot` in `algebraic_simplifier.cc`.

use super::matchers::{array_shape, operands, row_major, scalar_like};
use super::{NewInstr, Rewrite, Value};
use crate::ir::{Computation, DotDimensionNumbers, InstrId, Op, Opcode, Shape};

/// `dot`: with an empty operand, with no contracting dimensions, with 1-sized dimensions.
pub fn simplify_dot(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    dot_of_empty(comp, id)
        .or_else(|| dot_to_multiply(comp, id))
        .or_else(|| dot_without_degenerate_dims(comp, id))
}

/// The dimension numbers of a dot, if `id` is one with no special algorithm.
/// XLA's `SupportedDotPrecisionConfig`: the algorithm is unset or `dot_f32_f32_f32`.
fn dimension_numbers(comp: &Computation, id: InstrId) -> Option<&DotDimensionNumbers> {
    match &comp.instr(id).op {
        Op::Dot {
            dimension_numbers,
            algorithm,
            ..
        } if algorithm.as_deref().is_none_or(|a| a == "dot_f32_f32_f32") => Some(dimension_numbers),
        _ => None,
    }
}

/// dot(x, y) => 0 when x, y or the result has no elements
fn dot_of_empty(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let ops = operands(comp, id);
    let empty = [id, ops[0], ops[1]]
        .iter()
        .any(|&i| array_shape(comp, i).is_some_and(|a| a.element_count() == 0));
    if !empty || !matches!(comp.instr(id).op, Op::Dot { .. }) {
        return None;
    }
    Rewrite::build("dot(empty) => 0", scalar_like(&comp.instr(id).shape, 0)?)
}

/// dot(x, y) with no contracting dims => multiply(broadcast(x'), broadcast(y')), where x'
/// and y' are the operands transposed to batch dims first, converted to the dot's type
fn dot_to_multiply(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let dnums = dimension_numbers(comp, id)?;
    if !dnums.lhs_contracting_dimensions.is_empty() {
        return None;
    }
    let (lhs, rhs) = (operands(comp, id)[0], operands(comp, id)[1]);
    let dot_shape = comp.instr(id).shape.clone();
    let dot_rank = dot_shape.rank();
    let lhs_rank = array_shape(comp, lhs)?.rank();
    let rhs_rank = array_shape(comp, rhs)?.rank();
    let batch = dnums.lhs_batch_dimensions.len();
    let mut instrs = Vec::new();
    // The lhs fills result dims [0, lhs_rank): batch dims, then its free dims.
    let lhs_dims: Vec<usize> = (0..lhs_rank).collect();
    let new_lhs = batch_major(
        comp,
        &mut instrs,
        lhs,
        &dnums.lhs_batch_dimensions,
        &dot_shape,
        &lhs_dims,
    )?;
    // The rhs fills the batch dims and the last ones, after the lhs free dims.
    let rhs_dims: Vec<usize> = (0..batch).chain(lhs_rank..dot_rank).collect();
    if rhs_dims.len() != rhs_rank {
        return None;
    }
    let new_rhs = batch_major(
        comp,
        &mut instrs,
        rhs,
        &dnums.rhs_batch_dimensions,
        &dot_shape,
        &rhs_dims,
    )?;
    instrs.push(NewInstr::new(
        dot_shape,
        Op::Plain(Opcode::Multiply),
        vec![new_lhs, new_rhs],
    ));
    Rewrite::build("dot(x, y) without contracting dims => multiply", instrs)
}

/// Brings a dot operand into the multiply: transposed to batch dims first (XLA's
/// `NormalizeDotOperandToBatchMajorAndContractingMinor` with no contracting dims),
/// converted to the dot's element type, and broadcast to the dot's shape along
/// `result_dims` when it does not fill it.
fn batch_major(
    comp: &Computation,
    instrs: &mut Vec<NewInstr>,
    operand: InstrId,
    batch: &[usize],
    dot_shape: &Shape,
    result_dims: &[usize],
) -> Option<Value> {
    let shape = array_shape(comp, operand)?;
    let dot = dot_shape.as_array()?;
    let mut value = Value::Old(operand);
    let permutation: Vec<usize> = batch
        .iter()
        .copied()
        .chain((0..shape.rank()).filter(|d| !batch.contains(d)))
        .collect();
    let mut dims: Vec<i64> = permutation.iter().map(|&d| shape.dims[d]).collect();
    if !permutation.is_sorted() {
        let transposed = row_major(shape.element_type, &dims);
        instrs.push(NewInstr::new(
            transposed,
            Op::Transpose {
                dimensions: permutation,
            },
            vec![value],
        ));
        value = Value::New(instrs.len() - 1);
    }
    if shape.element_type != dot.element_type {
        let converted = row_major(dot.element_type, &dims);
        instrs.push(NewInstr::new(
            converted,
            Op::Plain(Opcode::Convert),
            vec![value],
        ));
        value = Value::New(instrs.len() - 1);
    }
    if result_dims.len() != dot.rank() {
        dims = dot.dims.clone();
        instrs.push(NewInstr::new(
            row_major(dot.element_type, &dims),
            Op::Broadcast {
                dimensions: result_dims.to_vec(),
            },
            vec![value],
        ));
        value = Value::New(instrs.len() - 1);
    }
    Some(value)
}

/// dot(x, y) => reshape(dot(reshape(x), reshape(y))) without the 1-sized dimensions
fn dot_without_degenerate_dims(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let Op::Dot {
        dimension_numbers: dnums,
        precision,
        algorithm,
    } = &comp.instr(id).op
    else {
        return None;
    };
    let (lhs, rhs) = (operands(comp, id)[0], operands(comp, id)[1]);
    let (lhs_shape, rhs_shape) = (array_shape(comp, lhs)?, array_shape(comp, rhs)?);
    let lhs_map = degenerate_map(&lhs_shape.dims);
    let rhs_map = degenerate_map(&rhs_shape.dims);
    if lhs_map.iter().chain(&rhs_map).all(Option::is_some) {
        return None;
    }
    let keep = |dims: &[usize], map: &[Option<usize>]| -> Vec<usize> {
        dims.iter().filter_map(|&d| map[d]).collect()
    };
    let new_dnums = DotDimensionNumbers {
        lhs_batch_dimensions: keep(&dnums.lhs_batch_dimensions, &lhs_map),
        rhs_batch_dimensions: keep(&dnums.rhs_batch_dimensions, &rhs_map),
        lhs_contracting_dimensions: keep(&dnums.lhs_contracting_dimensions, &lhs_map),
        rhs_contracting_dimensions: keep(&dnums.rhs_contracting_dimensions, &rhs_map),
    };
    let mut instrs = Vec::new();
    let new_lhs = drop_degenerate(&mut instrs, lhs, lhs_shape);
    let new_rhs = drop_degenerate(&mut instrs, rhs, rhs_shape);
    // The new dot's dims: batch (lhs order), lhs free, rhs free; no 1-sized ones left.
    let squeezed_lhs: Vec<i64> = lhs_shape.dims.iter().copied().filter(|&d| d != 1).collect();
    let squeezed_rhs: Vec<i64> = rhs_shape.dims.iter().copied().filter(|&d| d != 1).collect();
    let free = |dims: &[i64], batch: &[usize], contracting: &[usize]| -> Vec<i64> {
        (0..dims.len())
            .filter(|d| !batch.contains(d) && !contracting.contains(d))
            .map(|d| dims[d])
            .collect()
    };
    let mut dot_dims: Vec<i64> = new_dnums
        .lhs_batch_dimensions
        .iter()
        .map(|&d| squeezed_lhs[d])
        .collect();
    dot_dims.extend(free(
        &squeezed_lhs,
        &new_dnums.lhs_batch_dimensions,
        &new_dnums.lhs_contracting_dimensions,
    ));
    dot_dims.extend(free(
        &squeezed_rhs,
        &new_dnums.rhs_batch_dimensions,
        &new_dnums.rhs_contracting_dimensions,
    ));
    let old_shape = comp.instr(id).shape.clone();
    let same_dims = old_shape.dims() == dot_dims.as_slice();
    let dot_shape = if same_dims {
        old_shape.clone()
    } else {
        row_major(old_shape.element_type()?, &dot_dims)
    };
    let op = Op::Dot {
        dimension_numbers: new_dnums,
        precision: precision.clone(),
        algorithm: algorithm.clone(),
    };
    instrs.push(NewInstr::new(dot_shape, op, vec![new_lhs, new_rhs]));
    if !same_dims {
        let dot = Value::New(instrs.len() - 1);
        instrs.push(NewInstr::new(
            old_shape,
            Op::Plain(Opcode::Reshape),
            vec![dot],
        ));
    }
    Rewrite::build("dot(x, y) => dot without 1-sized dims", instrs)
}

/// For each dimension, its index once the 1-sized dimensions are dropped (`None` for those).
fn degenerate_map(dims: &[i64]) -> Vec<Option<usize>> {
    let mut next = 0;
    dims.iter()
        .map(|&d| {
            (d != 1).then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// The operand reshaped without its 1-sized dimensions (itself if it has none).
fn drop_degenerate(
    instrs: &mut Vec<NewInstr>,
    operand: InstrId,
    shape: &crate::ir::ArrayShape,
) -> Value {
    if !shape.dims.contains(&1) {
        return Value::Old(operand);
    }
    let dims: Vec<i64> = shape.dims.iter().copied().filter(|&d| d != 1).collect();
    instrs.push(NewInstr::new(
        row_major(shape.element_type, &dims),
        Op::Plain(Opcode::Reshape),
        vec![Value::Old(operand)],
    ));
    Value::New(instrs.len() - 1)
}
