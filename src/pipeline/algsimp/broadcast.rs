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
    let inner = broadcast_dims(comp, operands(comp, id)[0])?;
    let dimensions = compose(inner, outer)?;
    merge_with_operand(
        comp,
        id,
        Op::Broadcast { dimensions },
        "broadcast(broadcast(x)) => broadcast(x)",
    )
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
    merge_with_operand(
        comp,
        id,
        Op::Plain(Opcode::Reshape),
        "reshape(reshape(x)) => reshape(x)",
    )
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
    let inner = permutation(comp, operands(comp, id)[0])?;
    let dimensions = compose(outer, inner)?;
    merge_with_operand(
        comp,
        id,
        Op::Transpose { dimensions },
        "transpose(transpose(x)) => transpose(x)",
    )
}

/// `first` then `then`: element i is `then[first[i]]`; `None` where `first` points past
/// the end of `then`.
fn compose(first: &[usize], then: &[usize]) -> Option<Vec<usize>> {
    first.iter().map(|&d| then.get(d).copied()).collect()
}

/// `id` and its operand, merged into one instruction `op` of `id`'s shape on the
/// operand's operand.
fn merge_with_operand(
    comp: &Computation,
    id: InstrId,
    op: Op,
    rule: &'static str,
) -> Option<Rewrite> {
    let inner = operands(comp, id)[0];
    let merged = NewInstr::new(
        comp.instr(id).shape.clone(),
        op,
        vec![Value::Old(operands(comp, inner)[0])],
    );
    Rewrite::build(rule, vec![merged])
}
