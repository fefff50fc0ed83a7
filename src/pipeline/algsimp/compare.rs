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
    fn integer_equal_to_itself_is_true() {
        fires(
            "
HloModule m
ENTRY main {
  p = s32[3]{0} parameter(0)
  ROOT c = pred[3]{0} compare(p, p), direction=GE
}",
            "
HloModule m
ENTRY main {
  p = s32[3]{0} parameter(0)
  constant = pred[] constant(true)
  ROOT broadcast = pred[3]{0} broadcast(constant), dimensions={}
  c = pred[3]{0} compare(p, p), direction=GE
}",
        );
    }

    #[test]
    fn integer_less_than_itself_is_false() {
        fires(
            "
HloModule m
ENTRY main {
  p = s64[] parameter(0)
  c = pred[] compare(p, p), direction=LT
  ROOT n = pred[] not(c)
}",
            "
HloModule m
ENTRY main {
  p = s64[] parameter(0)
  constant = pred[] constant(false)
  c = pred[] compare(p, p), direction=LT
  ROOT n = pred[] not(constant)
}",
        );
    }

    #[test]
    fn float_compared_with_itself_stays_because_of_nan() {
        stays(
            "
HloModule m
ENTRY main {
  p = f32[3]{0} parameter(0)
  ROOT c = pred[3]{0} compare(p, p), direction=EQ
}",
        );
    }

    #[test]
    fn unsigned_below_zero_is_false_signed_stays() {
        fires(
            "
HloModule m
ENTRY main {
  p = u32[2]{0} parameter(0)
  z = u32[2]{0} constant({0, 0})
  c = pred[2]{0} compare(p, z), direction=LT
  ROOT n = pred[2]{0} not(c)
}",
            "
HloModule m
ENTRY main {
  p = u32[2]{0} parameter(0)
  z = u32[2]{0} constant({0, 0})
  constant = pred[] constant(false)
  broadcast = pred[2]{0} broadcast(constant), dimensions={}
  c = pred[2]{0} compare(p, z), direction=LT
  ROOT n = pred[2]{0} not(broadcast)
}",
        );
        stays(
            "
HloModule m
ENTRY main {
  p = s32[2]{0} parameter(0)
  z = s32[2]{0} constant({0, 0})
  ROOT c = pred[2]{0} compare(p, z), direction=LT
}",
        );
    }

    #[test]
    fn predicate_equal_true_and_not_equal_false() {
        fires(
            "
HloModule m
ENTRY main {
  p = pred[2]{0} parameter(0)
  t = pred[2]{0} constant({1, 1})
  f = pred[] constant(false)
  bf = pred[2]{0} broadcast(f), dimensions={}
  a = pred[2]{0} compare(p, t), direction=EQ
  b = pred[2]{0} compare(bf, p), direction=NE
  ROOT r = pred[2]{0} and(a, b)
}",
            "
HloModule m
ENTRY main {
  p = pred[2]{0} parameter(0)
  t = pred[2]{0} constant({1, 1})
  f = pred[] constant(false)
  bf = pred[2]{0} broadcast(f), dimensions={}
  a = pred[2]{0} compare(p, t), direction=EQ
  b = pred[2]{0} compare(bf, p), direction=NE
  ROOT r = pred[2]{0} and(p, p)
}",
        );
    }

    #[test]
    fn predicate_equal_false_stays() {
        stays(
            "
HloModule m
ENTRY main {
  p = pred[2]{0} parameter(0)
  f = pred[2]{0} constant({0, 0})
  ROOT a = pred[2]{0} compare(p, f), direction=EQ
}",
        );
    }
}
