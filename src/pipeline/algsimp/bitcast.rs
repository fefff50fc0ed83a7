//! Layout-sensitive rules: a reshape or transpose that does not move any byte, given the
//! physical layouts of its operand and result, becomes a `bitcast` (XLA's
//! `ReplaceWithBitcast`, used only when `is_layout_sensitive`, i.e. after layout
//! assignment). A bitcast costs nothing at run time: the buffer is reused as it is.

use super::{NewInstr, Rewrite, Value};
use crate::ir::{ArrayShape, Computation, InstrId, Op, Opcode, Shape};

/// reshape(x) => bitcast(x) when both layouts keep the elements in the same physical
/// order (XLA's `ReshapeIsBitcast`). xlac decides it for the case that matters before
/// layouts vary: both layouts row-major (then the linear order is the logical order).
pub(super) fn reshape_to_bitcast(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let instr = comp.instr(id);
    let (operand, result) = array_pair(comp, id)?;
    let same_order = operand.layout.is_row_major()
        && result.layout.is_row_major()
        && operand.element_type == result.element_type;
    same_order.then(|| {
        bitcast(
            instr.shape.clone(),
            instr.operands[0],
            "reshape(x) => bitcast(x) (no byte moves)",
        )
    })?
}

/// transpose(x) => bitcast(x) when the result's layout, read through the permutation, is
/// the operand's layout: the same bytes, only renamed dimensions (XLA's
/// `TransposeIsBitcast`).
pub(super) fn transpose_to_bitcast(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let instr = comp.instr(id);
    let Op::Transpose { dimensions } = &instr.op else {
        return None;
    };
    let (operand, result) = array_pair(comp, id)?;
    let through: Vec<usize> = result
        .layout
        .minor_to_major
        .iter()
        .map(|&d| dimensions[d])
        .collect();
    (through == operand.layout.minor_to_major
        && result.layout.extra.is_none()
        && operand.layout.extra.is_none())
    .then(|| {
        bitcast(
            instr.shape.clone(),
            instr.operands[0],
            "transpose(x) => bitcast(x) (no byte moves)",
        )
    })?
}

fn array_pair(comp: &Computation, id: InstrId) -> Option<(&ArrayShape, &ArrayShape)> {
    let instr = comp.instr(id);
    let operand = comp.instr(*instr.operands.first()?).shape.as_array()?;
    Some((operand, instr.shape.as_array()?))
}

fn bitcast(shape: Shape, x: InstrId, rule: &'static str) -> Option<Rewrite> {
    Rewrite::build(
        rule,
        vec![NewInstr::new(
            shape,
            Op::Plain(Opcode::Bitcast),
            vec![Value::Old(x)],
        )],
    )
}
