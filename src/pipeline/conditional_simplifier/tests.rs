//! Tests of `conditional_simplifier.rs`.

use super::*;
use crate::pipeline::testing::{check_pass, check_unchanged};

const BRANCHES: &str = "
HloModule m
neg {
  a = f32[2]{0} parameter(0)
  ROOT n = f32[2]{0} negate(a)
}
exp {
  a = f32[2]{0} parameter(0)
  ROOT e = f32[2]{0} exponential(a)
}
abs {
  a = f32[2]{0} parameter(0)
  ROOT b = f32[2]{0} abs(a)
}";

fn module(entry: &str) -> String {
    format!("{BRANCHES}\nENTRY main {{\n{entry}\n}}")
}

#[test]
fn constant_true_takes_the_true_branch() {
    check_pass(
        ConditionalSimplifier,
        &module(
            "  x = f32[2]{0} parameter(0)
  y = f32[2]{0} parameter(1)
  p = pred[] constant(true)
  ROOT c = f32[2]{0} conditional(p, x, y), true_computation=neg, false_computation=exp",
        ),
        &module(
            "  x = f32[2]{0} parameter(0)
  y = f32[2]{0} parameter(1)
  ROOT n = f32[2]{0} negate(x)",
        ),
    );
}

#[test]
fn constant_false_takes_the_false_branch() {
    check_pass(
        ConditionalSimplifier,
        &module(
            "  x = f32[2]{0} parameter(0)
  y = f32[2]{0} parameter(1)
  p = pred[] constant(false)
  ROOT c = f32[2]{0} conditional(p, x, y), true_computation=neg, false_computation=exp",
        ),
        &module(
            "  x = f32[2]{0} parameter(0)
  y = f32[2]{0} parameter(1)
  ROOT e = f32[2]{0} exponential(y)",
        ),
    );
}

#[test]
fn constant_index_and_out_of_range_index_pick_branches() {
    check_pass(
        ConditionalSimplifier,
        &module(
            "  x = f32[2]{0} parameter(0)
  i1 = s32[] constant(1)
  i9 = s32[] constant(9)
  c1 = f32[2]{0} conditional(i1, x, x, x), branch_computations={neg, exp, abs}
  c9 = f32[2]{0} conditional(i9, x, x, x), branch_computations={neg, exp, abs}
  ROOT t = (f32[2]{0}, f32[2]{0}) tuple(c1, c9)",
        ),
        &module(
            "  x = f32[2]{0} parameter(0)
  e = f32[2]{0} exponential(x)
  b = f32[2]{0} abs(x)
  ROOT t = (f32[2]{0}, f32[2]{0}) tuple(e, b)",
        ),
    );
}

#[test]
fn a_single_branch_is_always_taken() {
    check_pass(
        ConditionalSimplifier,
        &module(
            "  x = f32[2]{0} parameter(0)
  i = s32[] parameter(1)
  ROOT c = f32[2]{0} conditional(i, x), branch_computations={abs}",
        ),
        &module(
            "  x = f32[2]{0} parameter(0)
  i = s32[] parameter(1)
  ROOT b = f32[2]{0} abs(x)",
        ),
    );
}

#[test]
fn keeps_runtime_selectors_and_side_effecting_branches() {
    check_unchanged(
        ConditionalSimplifier,
        &module(
            "  x = f32[2]{0} parameter(0)
  p = pred[] parameter(1)
  ROOT c = f32[2]{0} conditional(p, x, x), true_computation=neg, false_computation=exp",
        ),
    );
    check_unchanged(
        ConditionalSimplifier,
        "
HloModule m
rand {
  a = f32[] parameter(0)
  ROOT r = f32[] rng(a, a), distribution=rng_uniform
}
same {
  ROOT a = f32[] parameter(0)
}
ENTRY main {
  x = f32[] parameter(0)
  p = pred[] constant(true)
  ROOT c = f32[] conditional(p, x, x), true_computation=same, false_computation=rand
}",
    );
}
