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
    fn whole_slice_and_slice_of_slice() {
        fires(
            "
HloModule m
ENTRY main {
  p = f32[10,4]{1,0} parameter(0)
  whole = f32[10,4]{1,0} slice(p), slice={[0:10], [0:4]}
  a = f32[6,4]{1,0} slice(whole), slice={[2:8], [0:4]}
  b = f32[3,2]{1,0} slice(a), slice={[1:4], [1:3]}
  ROOT n = f32[3,2]{1,0} negate(b)
}",
            "
HloModule m
ENTRY main {
  p = f32[10,4]{1,0} parameter(0)
  whole = f32[10,4]{1,0} slice(p), slice={[0:10], [0:4]}
  a = f32[6,4]{1,0} slice(p), slice={[2:8], [0:4]}
  slice = f32[3,2]{1,0} slice(p), slice={[3:6], [1:3]}
  b = f32[3,2]{1,0} slice(a), slice={[1:4], [1:3]}
  ROOT n = f32[3,2]{1,0} negate(slice)
}",
        );
    }

    #[test]
    fn strided_slice_of_slice_stays() {
        stays(
            "
HloModule m
ENTRY main {
  p = f32[10]{0} parameter(0)
  a = f32[5]{0} slice(p), slice={[0:10:2]}
  ROOT b = f32[2]{0} slice(a), slice={[1:3]}
}",
        );
    }

    #[test]
    fn concatenates() {
        fires(
            "
HloModule m
ENTRY main {
  x = f32[2]{0} parameter(0)
  y = f32[3]{0} parameter(1)
  e = f32[0]{0} parameter(2)
  one = f32[2]{0} concatenate(x), dimensions={0}
  inner = f32[5]{0} concatenate(one, y), dimensions={0}
  outer = f32[7]{0} concatenate(inner, e, x), dimensions={0}
  ROOT n = f32[7]{0} negate(outer)
}",
            "
HloModule m
ENTRY main {
  x = f32[2]{0} parameter(0)
  y = f32[3]{0} parameter(1)
  e = f32[0]{0} parameter(2)
  one = f32[2]{0} concatenate(x), dimensions={0}
  inner = f32[5]{0} concatenate(x, y), dimensions={0}
  concatenate = f32[7]{0} concatenate(inner, x), dimensions={0}
  outer = f32[7]{0} concatenate(inner, e, x), dimensions={0}
  ROOT n = f32[7]{0} negate(concatenate)
}",
        );
    }

    #[test]
    fn concatenate_along_another_dimension_stays_nested() {
        stays(
            "
HloModule m
ENTRY main {
  x = f32[2,2]{1,0} parameter(0)
  inner = f32[2,4]{1,0} concatenate(x, x), dimensions={1}
  ROOT outer = f32[4,4]{1,0} concatenate(inner, inner), dimensions={0}
}",
        );
    }

    #[test]
    fn pads_that_add_nothing() {
        fires(
            "
HloModule m
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[] constant(7)
  e = f32[0,3]{1,0} parameter(1)
  same = f32[2,3]{1,0} pad(x, v), padding=0_0x0_0
  all = f32[2,3]{1,0} pad(e, v), padding=1_1x0_0
  ROOT r = f32[2,3]{1,0} add(same, all)
}",
            "
HloModule m
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[] constant(7)
  e = f32[0,3]{1,0} parameter(1)
  same = f32[2,3]{1,0} pad(x, v), padding=0_0x0_0
  broadcast = f32[2,3]{1,0} broadcast(v), dimensions={}
  all = f32[2,3]{1,0} pad(e, v), padding=1_1x0_0
  ROOT r = f32[2,3]{1,0} add(x, broadcast)
}",
        );
    }

    #[test]
    fn real_pads_stay() {
        stays(
            "
HloModule m
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[] constant(0)
  a = f32[2,5]{1,0} pad(x, v), padding=0_0x1_1
  ROOT b = f32[3,5]{1,0} pad(a, v), padding=0_0_1x0_0
}",
        );
    }

    #[test]
    fn dynamic_slice_at_constants_is_a_clamped_slice() {
        // Start 9 in a dimension of 10 with size 4 clamps to 6, as dynamic-slice does.
        fires(
            "
HloModule m
ENTRY main {
  x = f32[10,5]{1,0} parameter(0)
  i = s32[] constant(9)
  j = s32[] constant(1)
  ds = f32[4,2]{1,0} dynamic-slice(x, i, j), dynamic_slice_sizes={4,2}
  ROOT n = f32[4,2]{1,0} negate(ds)
}",
            "
HloModule m
ENTRY main {
  x = f32[10,5]{1,0} parameter(0)
  i = s32[] constant(9)
  j = s32[] constant(1)
  slice = f32[4,2]{1,0} slice(x), slice={[6:10], [1:3]}
  ds = f32[4,2]{1,0} dynamic-slice(x, i, j), dynamic_slice_sizes={4,2}
  ROOT n = f32[4,2]{1,0} negate(slice)
}",
        );
    }

    #[test]
    fn dynamic_slice_at_variable_or_negative_starts_stays() {
        stays(
            "
HloModule m
ENTRY main {
  x = f32[10]{0} parameter(0)
  i = s32[] parameter(1)
  neg = s32[] constant(-1)
  a = f32[4]{0} dynamic-slice(x, i), dynamic_slice_sizes={4}
  b = f32[4]{0} dynamic-slice(x, neg), dynamic_slice_sizes={4}
  ROOT r = f32[4]{0} add(a, b)
}",
        );
    }

    #[test]
    fn dynamic_slice_of_everything_is_the_operand() {
        fires(
            "
HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  i = s32[] parameter(1)
  ds = f32[4]{0} dynamic-slice(x, i), dynamic_slice_sizes={4}
  ROOT n = f32[4]{0} negate(ds)
}",
            "
HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  i = s32[] parameter(1)
  ds = f32[4]{0} dynamic-slice(x, i), dynamic_slice_sizes={4}
  ROOT n = f32[4]{0} negate(x)
}",
        );
    }
}
