//! Selects whose choice is known: `select(p, x, x) => x` and a constant predicate
//! (scalar or broadcast) choosing one branch.
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
    fn constant_predicates_choose_a_branch() {
        fires(
            "
HloModule m
ENTRY main {
  x = f32[3]{0} parameter(0)
  y = f32[3]{0} parameter(1)
  t = pred[] constant(true)
  bt = pred[3]{0} broadcast(t), dimensions={}
  f = pred[3]{0} constant({0, 0, 0})
  s1 = f32[3]{0} select(bt, x, y)
  s2 = f32[3]{0} select(f, x, y)
  ROOT r = f32[3]{0} subtract(s1, s2)
}",
            "
HloModule m
ENTRY main {
  x = f32[3]{0} parameter(0)
  y = f32[3]{0} parameter(1)
  t = pred[] constant(true)
  bt = pred[3]{0} broadcast(t), dimensions={}
  f = pred[3]{0} constant({0, 0, 0})
  s1 = f32[3]{0} select(bt, x, y)
  s2 = f32[3]{0} select(f, x, y)
  ROOT r = f32[3]{0} subtract(x, y)
}",
        );
    }

    #[test]
    fn same_branches() {
        fires(
            "
HloModule m
ENTRY main {
  p = pred[3]{0} parameter(0)
  x = s32[3]{0} parameter(1)
  s = s32[3]{0} select(p, x, x)
  ROOT n = s32[3]{0} negate(s)
}",
            "
HloModule m
ENTRY main {
  p = pred[3]{0} parameter(0)
  x = s32[3]{0} parameter(1)
  s = s32[3]{0} select(p, x, x)
  ROOT n = s32[3]{0} negate(x)
}",
        );
    }

    #[test]
    fn mixed_or_unknown_predicates_stay() {
        stays(
            "
HloModule m
ENTRY main {
  p = pred[3]{0} parameter(0)
  x = f32[3]{0} parameter(1)
  y = f32[3]{0} parameter(2)
  c = pred[3]{0} constant({1, 0, 1})
  s1 = f32[3]{0} select(c, x, y)
  s2 = f32[3]{0} select(p, x, y)
  ROOT r = f32[3]{0} add(s1, s2)
}",
        );
    }
}
