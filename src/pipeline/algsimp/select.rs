//! Selects whose choice is known: `select(p, x, x) => x`, a constant predicate (scalar
//! or broadcast) choosing one branch, and `select(p, true, false) => p` (jax's `tril`
//! masks: `select_n` of pred constants).
//!
//! XLA: `HandleSelect` in `algebraic_simplifier.cc`.

use super::Rewrite;
use super::matchers::{is_all, operands};
use crate::ir::{Computation, InstrId};

/// `select`: both branches the same, or the predicate all true or all false.
pub fn simplify_select(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    select_same(comp, id)
        .or_else(|| select_true(comp, id))
        .or_else(|| select_false(comp, id))
        .or_else(|| select_predicate(comp, id))
}

/// select(p, true, false) => p (a pred select: `replace_with` checks that the shapes,
/// element type included, are the same)
fn select_predicate(comp: &Computation, select: InstrId) -> Option<Rewrite> {
    let ops = operands(comp, select);
    (is_all(comp, ops[1], 1) && is_all(comp, ops[2], 0))
        .then(|| Rewrite::replace_with(comp, select, ops[0], "select(p, true, false) => p"))?
}

/// select(p, x, x) => x
fn select_same(comp: &Computation, select: InstrId) -> Option<Rewrite> {
    let ops = operands(comp, select);
    (ops[1] == ops[2])
        .then(|| Rewrite::replace_with(comp, select, ops[1], "select(p, x, x) => x"))?
}

/// select(true, x, y) => x
fn select_true(comp: &Computation, select: InstrId) -> Option<Rewrite> {
    let ops = operands(comp, select);
    is_all(comp, ops[0], 1)
        .then(|| Rewrite::replace_with(comp, select, ops[1], "select(true, x, y) => x"))?
}

/// select(false, x, y) => y
fn select_false(comp: &Computation, select: InstrId) -> Option<Rewrite> {
    let ops = operands(comp, select);
    is_all(comp, ops[0], 0)
        .then(|| Rewrite::replace_with(comp, select, ops[2], "select(false, x, y) => y"))?
}
