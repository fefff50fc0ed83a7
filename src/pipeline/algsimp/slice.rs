//! Slicing, padding and concatenating that do nothing or can be done in one step:
//! a slice of the whole operand, a slice of a slice, a concatenate of one operand (or
//! with empty operands, or of concatenates), a pad that adds nothing, and a dynamic-slice
//! whose start indices are constants (=> a slice, clamped as dynamic-slice clamps).
//!
//! XLA: `HandleSlice`, `HandleConcatenate`, `HandlePad`, `HandleDynamicSlice` in
//! `algebraic_simplifier.cc`.

use super::matchers::{array_shape, constant_integer, operands};
use super::{NewInstr, Rewrite, Value};
use crate::ir::{Computation, InstrId, Op, SliceDimension};

/// `slice`: of the whole operand, of an unstrided slice.
pub fn simplify_slice(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    slice_noop(comp, id).or_else(|| slice_of_slice(comp, id))
}

/// slice(x) => x when the slice keeps every element (its shape is x's)
fn slice_noop(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    Rewrite::replace_with(comp, id, operands(comp, id)[0], "slice(x) => x")
}

/// The slice attribute of a slice instruction.
fn slice_dims(comp: &Computation, id: InstrId) -> Option<&[SliceDimension]> {
    match &comp.instr(id).op {
        Op::Slice { slice } => Some(slice),
        _ => None,
    }
}

/// slice(slice(x)) => slice(x), both unstrided: the starts add up
fn slice_of_slice(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let outer = slice_dims(comp, id)?;
    let inner_id = operands(comp, id)[0];
    let inner = slice_dims(comp, inner_id)?;
    if outer.iter().chain(inner).any(|d| d.stride != 1) {
        return None;
    }
    let slice = outer
        .iter()
        .zip(inner)
        .map(|(o, i)| SliceDimension {
            start: o.start + i.start,
            limit: o.limit + i.start,
            stride: 1,
        })
        .collect();
    let new = NewInstr::new(
        comp.instr(id).shape.clone(),
        Op::Slice { slice },
        vec![Value::Old(operands(comp, inner_id)[0])],
    );
    Rewrite::build("slice(slice(x)) => slice(x)", vec![new])
}

/// `concatenate`: of one operand, with empty operands, of concatenates.
pub fn simplify_concatenate(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    concatenate_one(comp, id)
        .or_else(|| concatenate_without_empty(comp, id))
        .or_else(|| concatenate_of_concatenate(comp, id))
}

/// concatenate(x) => x
fn concatenate_one(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    match operands(comp, id) {
        [x] => Rewrite::replace_with(comp, id, *x, "concatenate(x) => x"),
        _ => None,
    }
}

/// concatenate(x, empty, y) => concatenate(x, y)
fn concatenate_without_empty(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let all = operands(comp, id);
    let mut nonempty = Vec::with_capacity(all.len());
    for &x in all {
        if array_shape(comp, x)?.element_count() > 0 {
            nonempty.push(x);
        }
    }
    let rule = "concatenate(x, empty) => concatenate(x)";
    match nonempty.as_slice() {
        _ if nonempty.len() == all.len() => None,
        [] => Rewrite::replace_with(comp, id, all[0], rule),
        [x] => Rewrite::replace_with(comp, id, *x, rule),
        _ => {
            let instr = comp.instr(id);
            let operands = nonempty.into_iter().map(Value::Old).collect();
            Rewrite::build(
                rule,
                vec![NewInstr::new(
                    instr.shape.clone(),
                    instr.op.clone(),
                    operands,
                )],
            )
        }
    }
}

/// concatenate(x, concatenate(y, z)) => concatenate(x, y, z) along the same dimension
fn concatenate_of_concatenate(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let instr = comp.instr(id);
    let Op::Concatenate { dimension } = instr.op else {
        return None;
    };
    let mut flat = Vec::new();
    for &x in &instr.operands {
        match comp.instr(x).op {
            Op::Concatenate { dimension: d } if d == dimension => flat.extend(operands(comp, x)),
            _ => flat.push(x),
        }
    }
    if flat.len() == instr.operands.len() {
        return None;
    }
    let new = NewInstr::new(
        instr.shape.clone(),
        instr.op.clone(),
        flat.into_iter().map(Value::Old).collect(),
    );
    Rewrite::build(
        "concatenate(x, concatenate(y)) => concatenate(x, y)",
        vec![new],
    )
}

/// `pad`: of an empty array, with no edge padding.
pub fn simplify_pad(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    pad_of_empty(comp, id).or_else(|| pad_noop(comp, id))
}

/// pad(empty, v) => broadcast(v): every element is padding
fn pad_of_empty(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let ops = operands(comp, id);
    if array_shape(comp, ops[0])?.element_count() != 0 {
        return None;
    }
    let broadcast = NewInstr::new(
        comp.instr(id).shape.clone(),
        Op::Broadcast { dimensions: vec![] },
        vec![Value::Old(ops[1])],
    );
    Rewrite::build("pad(empty, v) => broadcast(v)", vec![broadcast])
}

/// pad(x, v) => x when no edge padding is added (and the shape is x's)
fn pad_noop(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let Op::Pad { padding } = &comp.instr(id).op else {
        return None;
    };
    if padding.iter().any(|p| p.low != 0 || p.high != 0) {
        return None;
    }
    Rewrite::replace_with(comp, id, operands(comp, id)[0], "pad(x, 0 edges) => x")
}

/// `dynamic-slice`: of a whole operand, or at constant start indices.
pub fn simplify_dynamic_slice(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    dynamic_slice_noop(comp, id).or_else(|| dynamic_slice_constant_starts(comp, id))
}

/// dynamic-slice(x, i...) => x when the slice is all of x (a start index is clamped to 0)
fn dynamic_slice_noop(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    Rewrite::replace_with(comp, id, operands(comp, id)[0], "dynamic-slice(x) => x")
}

/// dynamic-slice(x, constants) => slice(x) at the clamped starts
/// `min(start, dim - size)`; like XLA, a negative start is left alone
fn dynamic_slice_constant_starts(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let ops = operands(comp, id);
    if matches!(comp.instr(ops[0]).op, Op::Constant { .. }) {
        return None; // constant folding's business
    }
    let operand_dims = &array_shape(comp, ops[0])?.dims;
    let sizes = &array_shape(comp, id)?.dims;
    let mut slice = Vec::with_capacity(sizes.len());
    for (i, &start) in ops[1..].iter().enumerate() {
        let start = constant_integer(comp, start)?;
        if start < 0 {
            return None;
        }
        let start = start.min(operand_dims[i] - sizes[i]);
        slice.push(SliceDimension {
            start,
            limit: start + sizes[i],
            stride: 1,
        });
    }
    let new = NewInstr::new(
        comp.instr(id).shape.clone(),
        Op::Slice { slice },
        vec![Value::Old(ops[0])],
    );
    Rewrite::build("dynamic-slice(x, constants) => slice(x)", vec![new])
}
