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

#[cfg(test)]
mod tests {
    use crate::pipeline::algsimp::AlgebraicSimplifier;
    use crate::pipeline::testing::{check_pass, check_unchanged};

    fn fires(before: &str, after: &str) {
        check_pass(AlgebraicSimplifier::new(), before, after);
    }

    fn stays(hlo: &str) {
        check_unchanged(AlgebraicSimplifier::new(), hlo);
    }

    #[test]
    fn outer_product_is_a_multiply_of_broadcasts() {
        fires(
            "
HloModule m
ENTRY main {
  x = f32[3]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT d = f32[3,4]{1,0} dot(x, y), lhs_contracting_dims={}, rhs_contracting_dims={}
}",
            "
HloModule m
ENTRY main {
  x = f32[3]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  broadcast = f32[3,4]{1,0} broadcast(x), dimensions={0}
  broadcast.1 = f32[3,4]{1,0} broadcast(y), dimensions={1}
  ROOT multiply = f32[3,4]{1,0} multiply(broadcast, broadcast.1)
  d = f32[3,4]{1,0} dot(x, y), lhs_contracting_dims={}, rhs_contracting_dims={}
}",
        );
    }

    #[test]
    fn batched_outer_product_with_mixed_types() {
        // bf16 operands into an f32 dot: the operands are transposed batch-first and
        // converted to f32, as the dot converts them.
        fires(
            "
HloModule m
ENTRY main {
  x = bf16[3,2]{1,0} parameter(0)
  y = bf16[2,5]{1,0} parameter(1)
  d = f32[2,3,5]{2,1,0} dot(x, y), lhs_batch_dims={1}, rhs_batch_dims={0}, lhs_contracting_dims={}, rhs_contracting_dims={}
  ROOT n = f32[2,3,5]{2,1,0} negate(d)
}",
            "
HloModule m
ENTRY main {
  x = bf16[3,2]{1,0} parameter(0)
  y = bf16[2,5]{1,0} parameter(1)
  transpose = bf16[2,3]{1,0} transpose(x), dimensions={1,0}
  convert = f32[2,3]{1,0} convert(transpose)
  broadcast = f32[2,3,5]{2,1,0} broadcast(convert), dimensions={0,1}
  convert.1 = f32[2,5]{1,0} convert(y)
  broadcast.1 = f32[2,3,5]{2,1,0} broadcast(convert.1), dimensions={0,2}
  multiply = f32[2,3,5]{2,1,0} multiply(broadcast, broadcast.1)
  d = f32[2,3,5]{2,1,0} dot(x, y), lhs_batch_dims={1}, lhs_contracting_dims={}, rhs_batch_dims={0}, rhs_contracting_dims={}
  ROOT n = f32[2,3,5]{2,1,0} negate(multiply)
}",
        );
    }

    #[test]
    fn size_one_contracting_dim_goes_in_two_rounds() {
        // Round 1 drops the 1-sized contracting dims; round 2 (not run here) makes the
        // remaining outer product a multiply.
        fires(
            "
HloModule m
ENTRY main {
  x = f32[3,1]{1,0} parameter(0)
  y = f32[1,4]{1,0} parameter(1)
  ROOT d = f32[3,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
            "
HloModule m
ENTRY main {
  x = f32[3,1]{1,0} parameter(0)
  y = f32[1,4]{1,0} parameter(1)
  reshape = f32[3]{0} reshape(x)
  reshape.1 = f32[4]{0} reshape(y)
  ROOT dot = f32[3,4]{1,0} dot(reshape, reshape.1), lhs_contracting_dims={}, rhs_contracting_dims={}
  d = f32[3,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
        );
    }

    #[test]
    fn vector_matrix_dot_loses_its_one_sized_row() {
        fires(
            "
HloModule m
ENTRY main {
  x = f32[1,3]{1,0} parameter(0)
  y = f32[3,4]{1,0} parameter(1)
  d = f32[1,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[1,4]{1,0} negate(d)
}",
            "
HloModule m
ENTRY main {
  x = f32[1,3]{1,0} parameter(0)
  y = f32[3,4]{1,0} parameter(1)
  reshape = f32[3]{0} reshape(x)
  dot = f32[4]{0} dot(reshape, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  reshape.1 = f32[1,4]{1,0} reshape(dot)
  d = f32[1,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[1,4]{1,0} negate(reshape.1)
}",
        );
    }

    #[test]
    fn matrix_product_stays() {
        stays(
            "
HloModule m
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  y = f32[3,4]{1,0} parameter(1)
  ROOT d = f32[2,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
        );
    }

    #[test]
    fn outer_product_with_a_special_algorithm_stays_a_dot() {
        stays(
            "
HloModule m
ENTRY main {
  x = f32[3]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT d = f32[3,4]{1,0} dot(x, y), lhs_contracting_dims={}, rhs_contracting_dims={}, algorithm=dot_bf16_bf16_f32
}",
        );
    }
}
