//! Comparisons whose answer is known: `x == x` for integers, unsigned `x < 0`, and
//! `p == true` / `p != false` on predicates.
//!
//! `x == x => true` is for integers only: for floats `NaN == NaN` is false.
//!
//! XLA: `HandleCompare` in `algebraic_simplifier.cc` (xlac leaves out the rules that need
//! XLA's `IsNonNegative` analysis and the min/max and select-of-compare patterns).

use super::Rewrite;
use super::matchers::{is_all, operands, scalar_like};
use crate::ir::{ComparisonDirection, Computation, InstrId, Op, PrimitiveType};

/// `compare`: unsigned against 0, an integer against itself, a predicate against a constant.
pub fn simplify_compare(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    unsigned_against_zero(comp, id)
        .or_else(|| compare_self(comp, id))
        .or_else(|| predicate_against_constant(comp, id))
}

/// The direction and operands of a compare.
fn parts(
    comp: &Computation,
    id: InstrId,
) -> Option<(ComparisonDirection, InstrId, InstrId, PrimitiveType)> {
    let Op::Compare { direction, .. } = comp.instr(id).op else {
        return None;
    };
    let ops = operands(comp, id);
    let ty = comp.instr(ops[0]).shape.element_type()?;
    Some((direction, ops[0], ops[1], ty))
}

/// Replaces the compare with a broadcast constant `value`.
fn known(comp: &Computation, id: InstrId, value: bool, rule: &'static str) -> Option<Rewrite> {
    Rewrite::build(rule, scalar_like(&comp.instr(id).shape, value as i8)?)
}

/// x <u 0 => false, x >=u 0 => true, 0 >u x => false, 0 <=u x => true
fn unsigned_against_zero(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    use ComparisonDirection::*;
    let (direction, lhs, rhs, ty) = parts(comp, id)?;
    if !ty.is_unsigned_integral() {
        return None;
    }
    let rule = "unsigned x < 0 => false";
    match direction {
        Lt if is_all(comp, rhs, 0) => known(comp, id, false, rule),
        Ge if is_all(comp, rhs, 0) => known(comp, id, true, rule),
        Gt if is_all(comp, lhs, 0) => known(comp, id, false, rule),
        Le if is_all(comp, lhs, 0) => known(comp, id, true, rule),
        _ => None,
    }
}

/// compare(x, x) => EQ, GE, LE: true; NE, LT, GT: false (integers only: NaN != NaN)
fn compare_self(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    use ComparisonDirection::*;
    let (direction, lhs, rhs, ty) = parts(comp, id)?;
    if lhs != rhs || !ty.is_integral() {
        return None;
    }
    let value = matches!(direction, Eq | Ge | Le);
    known(comp, id, value, "compare(x, x) => constant")
}

/// ne(p, false) => p and eq(p, true) => p, for predicates
fn predicate_against_constant(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let (direction, lhs, rhs, ty) = parts(comp, id)?;
    if ty != PrimitiveType::Pred {
        return None;
    }
    let neutral = match direction {
        ComparisonDirection::Ne => 0,
        ComparisonDirection::Eq => 1,
        _ => return None,
    };
    let rule = "eq(p, true) => p";
    if is_all(comp, rhs, neutral) {
        return Rewrite::replace_with(comp, id, lhs, rule);
    }
    if is_all(comp, lhs, neutral) {
        return Rewrite::replace_with(comp, id, rhs, rule);
    }
    None
}
