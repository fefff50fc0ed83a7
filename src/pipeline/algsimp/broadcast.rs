//! Broadcast, reshape and transpose chains: `reshape(reshape(x)) => reshape(x)`,
//! `transpose(transpose(x)) => transpose(x)`, `broadcast(broadcast(x)) => broadcast(x)`,
//! no-op reshapes and transposes, and broadcasts that only move or relabel elements.
//!
//! Reshapes and transposes stay what they are. XLA replaces one with a `bitcast` when the
//! layouts make it free (`ReshapeIsBitcast`, `TransposeIsBitcast`), but only when it runs
//! layout-sensitive, after layout assignment. xlac's `algsimp` runs before layouts are
//! assigned, where every reshape of a row-major array is "a bitcast" only by accident of
//! the default layout, so it keeps them as reshapes for the layout pass to decide.
//!
//! XLA: `HandleBroadcast`, `HandleReshape`, `HandleTranspose` in `algebraic_simplifier.cc`.

use super::matchers::{array_shape, inverse_permutation, is_identity_permutation, operands};
use super::{NewInstr, Rewrite, Value};
use crate::ir::{Computation, InstrId, Op, Opcode};

/// `broadcast`: to a reshape or a transpose when no element repeats, through a reshape
/// that only adds 1-sized dims, of an iota, of a broadcast.
pub fn simplify_broadcast(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    broadcast_to_reshape(comp, id)
        .or_else(|| broadcast_to_transpose(comp, id))
        .or_else(|| broadcast_of_degenerate_reshape(comp, id))
        .or_else(|| broadcast_of_iota(comp, id))
        .or_else(|| broadcast_of_broadcast(comp, id))
}

/// The broadcast dimensions of a broadcast instruction.
fn broadcast_dims(comp: &Computation, id: InstrId) -> Option<&[usize]> {
    match &comp.instr(id).op {
        Op::Broadcast { dimensions } => Some(dimensions),
        _ => None,
    }
}

/// True if the broadcast keeps the element count: every new dimension has size 1.
fn keeps_element_count(comp: &Computation, id: InstrId) -> Option<bool> {
    let out = array_shape(comp, id)?;
    let operand = array_shape(comp, operands(comp, id)[0])?;
    Some(out.element_count() == operand.element_count())
}

/// broadcast(x) => reshape(x) when the dims are sorted and no element repeats
fn broadcast_to_reshape(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let dims = broadcast_dims(comp, id)?;
    if !dims.is_sorted() || !keeps_element_count(comp, id)? {
        return None;
    }
    let reshape = NewInstr::new(
        comp.instr(id).shape.clone(),
        Op::Plain(Opcode::Reshape),
        vec![Value::Old(operands(comp, id)[0])],
    );
    Rewrite::build("broadcast(x) => reshape(x)", vec![reshape])
}

/// broadcast(x) => transpose(x) when the ranks and element counts are equal
fn broadcast_to_transpose(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let dims = broadcast_dims(comp, id)?;
    let operand = operands(comp, id)[0];
    if array_shape(comp, id)?.rank() != array_shape(comp, operand)?.rank()
        || !keeps_element_count(comp, id)?
    {
        return None;
    }
    let transpose = NewInstr::new(
        comp.instr(id).shape.clone(),
        Op::Transpose {
            dimensions: inverse_permutation(dims),
        },
        vec![Value::Old(operand)],
    );
    Rewrite::build("broadcast(x) => transpose(x)", vec![transpose])
}

/// broadcast(reshape(x)) => broadcast(x) when the reshape only inserts 1-sized dims
fn broadcast_of_degenerate_reshape(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let dims = broadcast_dims(comp, id)?;
    let reshape = operands(comp, id)[0];
    if comp.instr(reshape).op != Op::Plain(Opcode::Reshape) {
        return None;
    }
    let x = operands(comp, reshape)[0];
    let inserted = inserted_degenerate_dims(
        &array_shape(comp, x)?.dims,
        &array_shape(comp, reshape)?.dims,
    )?;
    let new_dims = dims
        .iter()
        .enumerate()
        .filter(|(i, _)| !inserted.contains(i))
        .map(|(_, &d)| d)
        .collect();
    let broadcast = NewInstr::new(
        comp.instr(id).shape.clone(),
        Op::Broadcast {
            dimensions: new_dims,
        },
        vec![Value::Old(x)],
    );
    Rewrite::build("broadcast(reshape(x)) => broadcast(x)", vec![broadcast])
}

/// If reshaping `from` to `to` only inserts 1-sized dimensions, the positions in `to` of
/// the inserted ones (XLA's `ReshapeMerelyInsertsOrDeletes1SizedDimensions` with no
/// deleted dimensions). Walks both lists, matching equal sizes first, as XLA does.
pub(super) fn inserted_degenerate_dims(from: &[i64], to: &[i64]) -> Option<Vec<usize>> {
    let mut inserted = Vec::new();
    let mut i = 0;
    for (j, &size) in to.iter().enumerate() {
        if i < from.len() && from[i] == size {
            i += 1;
        } else if size == 1 {
            inserted.push(j);
        } else {
            return None;
        }
    }
    (i == from.len()).then_some(inserted)
}

/// broadcast(iota) => iota along the dimension the iota's dimension became
fn broadcast_of_iota(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let dims = broadcast_dims(comp, id)?;
    let operand = operands(comp, id)[0];
    let Op::Iota { dimension } = comp.instr(operand).op else {
        return None;
    };
    let iota = NewInstr::new(
        comp.instr(id).shape.clone(),
        Op::Iota {
            dimension: *dims.get(dimension)?,
        },
        vec![],
    );
    Rewrite::build("broadcast(iota) => iota", vec![iota])
}

/// broadcast(broadcast(x)) => broadcast(x) with the composed dimension map
fn broadcast_of_broadcast(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let outer = broadcast_dims(comp, id)?;
    let inner_id = operands(comp, id)[0];
    let inner = broadcast_dims(comp, inner_id)?;
    let dimensions = inner
        .iter()
        .map(|&d| outer.get(d).copied())
        .collect::<Option<_>>()?;
    let broadcast = NewInstr::new(
        comp.instr(id).shape.clone(),
        Op::Broadcast { dimensions },
        vec![Value::Old(operands(comp, inner_id)[0])],
    );
    Rewrite::build("broadcast(broadcast(x)) => broadcast(x)", vec![broadcast])
}

/// `reshape`: to nothing when the shape does not change, merged with a reshape operand.
pub fn simplify_reshape(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    reshape_noop(comp, id).or_else(|| reshape_of_reshape(comp, id))
}

/// reshape(x) => x when the shape is x's
fn reshape_noop(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    Rewrite::replace_with(comp, id, operands(comp, id)[0], "reshape(x) => x")
}

/// reshape(reshape(x)) => reshape(x)
fn reshape_of_reshape(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let inner = operands(comp, id)[0];
    if comp.instr(inner).op != Op::Plain(Opcode::Reshape) {
        return None;
    }
    let reshape = NewInstr::new(
        comp.instr(id).shape.clone(),
        Op::Plain(Opcode::Reshape),
        vec![Value::Old(operands(comp, inner)[0])],
    );
    Rewrite::build("reshape(reshape(x)) => reshape(x)", vec![reshape])
}

/// `transpose`: the identity permutation, a transpose of a transpose.
pub fn simplify_transpose(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    transpose_identity(comp, id).or_else(|| transpose_of_transpose(comp, id))
}

/// The permutation of a transpose instruction.
fn permutation(comp: &Computation, id: InstrId) -> Option<&[usize]> {
    match &comp.instr(id).op {
        Op::Transpose { dimensions } => Some(dimensions),
        _ => None,
    }
}

/// transpose(x, {0, 1, ..., n-1}) => x
fn transpose_identity(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    if !is_identity_permutation(permutation(comp, id)?) {
        return None;
    }
    Rewrite::replace_with(
        comp,
        id,
        operands(comp, id)[0],
        "transpose(x, identity) => x",
    )
}

/// transpose(transpose(x, p), q) => transpose(x, p∘q): result dim i is x's dim p[q[i]]
fn transpose_of_transpose(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let outer = permutation(comp, id)?;
    let inner_id = operands(comp, id)[0];
    let inner = permutation(comp, inner_id)?;
    let dimensions = outer
        .iter()
        .map(|&q| inner.get(q).copied())
        .collect::<Option<_>>()?;
    let transpose = NewInstr::new(
        comp.instr(id).shape.clone(),
        Op::Transpose { dimensions },
        vec![Value::Old(operands(comp, inner_id)[0])],
    );
    Rewrite::build("transpose(transpose(x)) => transpose(x)", vec![transpose])
}

#[cfg(test)]
mod tests {
    use super::inserted_degenerate_dims;
    use crate::pipeline::algsimp::AlgebraicSimplifier;
    use crate::pipeline::testing::{check_pass, check_unchanged};

    fn fires(before: &str, after: &str) {
        check_pass(AlgebraicSimplifier::new(), before, after);
    }

    fn stays(hlo: &str) {
        check_unchanged(AlgebraicSimplifier::new(), hlo);
    }

    #[test]
    fn degenerate_dims_inserted() {
        assert_eq!(inserted_degenerate_dims(&[32], &[1, 32]), Some(vec![0]));
        assert_eq!(
            inserted_degenerate_dims(&[2, 3], &[2, 1, 3, 1]),
            Some(vec![1, 3])
        );
        assert_eq!(inserted_degenerate_dims(&[1, 3], &[3]), None);
        assert_eq!(inserted_degenerate_dims(&[6], &[2, 3]), None);
    }

    #[test]
    fn jax_bias_broadcast_chain() {
        // JAX's broadcast_in_dim of a bias: reshape to [1,32], a broadcast that keeps the
        // element count (=> reshape), reshape back, broadcast to [8,32].
        fires(
            "
HloModule m
ENTRY main {
  b = f32[32]{0} parameter(0)
  r1 = f32[1,32]{1,0} reshape(b)
  bc = f32[1,32]{1,0} broadcast(r1), dimensions={0,1}
  r2 = f32[32]{0} reshape(bc)
  ROOT out = f32[8,32]{1,0} broadcast(r2), dimensions={1}
}",
            "
HloModule m
ENTRY main {
  b = f32[32]{0} parameter(0)
  r1 = f32[1,32]{1,0} reshape(b)
  reshape = f32[1,32]{1,0} reshape(r1)
  bc = f32[1,32]{1,0} broadcast(r1), dimensions={0,1}
  reshape.1 = f32[32]{0} reshape(r1)
  r2 = f32[32]{0} reshape(reshape)
  ROOT out = f32[8,32]{1,0} broadcast(reshape.1), dimensions={1}
}",
        );
    }

    #[test]
    fn broadcast_that_repeats_elements_stays() {
        stays(
            "
HloModule m
ENTRY main {
  p = f32[3]{0} parameter(0)
  ROOT b = f32[2,3]{1,0} broadcast(p), dimensions={1}
}",
        );
    }

    #[test]
    fn unsorted_same_rank_broadcast_is_transpose() {
        fires(
            "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  ROOT b = f32[3,2]{1,0} broadcast(p), dimensions={1,0}
}",
            "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  ROOT transpose = f32[3,2]{1,0} transpose(p), dimensions={1,0}
  b = f32[3,2]{1,0} broadcast(p), dimensions={1,0}
}",
        );
    }

    #[test]
    fn broadcast_of_broadcast_and_of_iota() {
        fires(
            "
HloModule m
ENTRY main {
  p = f32[3]{0} parameter(0)
  b1 = f32[2,3]{1,0} broadcast(p), dimensions={1}
  b2 = f32[2,4,3]{2,1,0} broadcast(b1), dimensions={0,2}
  i = s32[4]{0} iota(), iota_dimension=0
  bi = s32[4,5]{1,0} broadcast(i), dimensions={0}
  ROOT t = (f32[2,4,3]{2,1,0}, s32[4,5]{1,0}) tuple(b2, bi)
}",
            "
HloModule m
ENTRY main {
  p = f32[3]{0} parameter(0)
  b1 = f32[2,3]{1,0} broadcast(p), dimensions={1}
  broadcast = f32[2,4,3]{2,1,0} broadcast(p), dimensions={2}
  b2 = f32[2,4,3]{2,1,0} broadcast(b1), dimensions={0,2}
  i = s32[4]{0} iota(), iota_dimension=0
  iota = s32[4,5]{1,0} iota(), iota_dimension=0
  bi = s32[4,5]{1,0} broadcast(i), dimensions={0}
  ROOT t = (f32[2,4,3]{2,1,0}, s32[4,5]{1,0}) tuple(broadcast, iota)
}",
        );
    }

    #[test]
    fn broadcast_of_reshape_that_deletes_dims_stays() {
        stays(
            "
HloModule m
ENTRY main {
  p = f32[1,3]{1,0} parameter(0)
  r = f32[3]{0} reshape(p)
  ROOT b = f32[2,3]{1,0} broadcast(r), dimensions={1}
}",
        );
    }

    #[test]
    fn reshape_chains() {
        fires(
            "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  r1 = f32[6]{0} reshape(p)
  r2 = f32[3,2]{1,0} reshape(r1)
  same = f32[3,2]{1,0} reshape(r2)
  ROOT n = f32[3,2]{1,0} negate(same)
}",
            "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  r1 = f32[6]{0} reshape(p)
  reshape = f32[3,2]{1,0} reshape(p)
  r2 = f32[3,2]{1,0} reshape(r1)
  same = f32[3,2]{1,0} reshape(reshape)
  ROOT n = f32[3,2]{1,0} negate(reshape)
}",
        );
    }

    #[test]
    fn reshape_that_changes_layout_stays() {
        stays(
            "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  ROOT r = f32[2,3]{0,1} reshape(p)
}",
        );
    }

    #[test]
    fn transpose_chains_and_identity() {
        fires(
            "
HloModule m
ENTRY main {
  p = f32[2,3,4]{2,1,0} parameter(0)
  t1 = f32[3,4,2]{2,1,0} transpose(p), dimensions={1,2,0}
  t2 = f32[4,2,3]{2,1,0} transpose(t1), dimensions={1,2,0}
  id = f32[4,2,3]{2,1,0} transpose(t2), dimensions={0,1,2}
  ROOT n = f32[4,2,3]{2,1,0} negate(id)
}",
            "
HloModule m
ENTRY main {
  p = f32[2,3,4]{2,1,0} parameter(0)
  t1 = f32[3,4,2]{2,1,0} transpose(p), dimensions={1,2,0}
  transpose = f32[4,2,3]{2,1,0} transpose(p), dimensions={2,0,1}
  t2 = f32[4,2,3]{2,1,0} transpose(t1), dimensions={1,2,0}
  id = f32[4,2,3]{2,1,0} transpose(transpose), dimensions={0,1,2}
  ROOT n = f32[4,2,3]{2,1,0} negate(transpose)
}",
        );
    }

    #[test]
    fn real_transpose_stays() {
        stays(
            "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  ROOT t = f32[3,2]{1,0} transpose(p), dimensions={1,0}
}",
        );
    }
}
