//! Tests of `select.rs`.

use super::{fires, stays};

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

#[test]
fn pred_select_of_true_and_false_is_its_predicate() {
    // jax's `tril` mask: `select_n(ge, false, true)` printed as select(ge, true, false).
    fires(
        "
HloModule m
ENTRY main {
  i = s32[4,4]{1,0} iota(), iota_dimension=0
  j = s32[4,4]{1,0} iota(), iota_dimension=1
  ge = pred[4,4]{1,0} compare(i, j), direction=GE
  t = pred[] constant(true)
  bt = pred[4,4]{1,0} broadcast(t), dimensions={}
  f = pred[] constant(false)
  bf = pred[4,4]{1,0} broadcast(f), dimensions={}
  s = pred[4,4]{1,0} select(ge, bt, bf)
  ROOT n = pred[4,4]{1,0} not(s)
}",
        "
HloModule m
ENTRY main {
  i = s32[4,4]{1,0} iota(), iota_dimension=0
  j = s32[4,4]{1,0} iota(), iota_dimension=1
  ge = pred[4,4]{1,0} compare(i, j), direction=GE
  t = pred[] constant(true)
  bt = pred[4,4]{1,0} broadcast(t), dimensions={}
  f = pred[] constant(false)
  bf = pred[4,4]{1,0} broadcast(f), dimensions={}
  s = pred[4,4]{1,0} select(ge, bt, bf)
  ROOT n = pred[4,4]{1,0} not(ge)
}",
    );
    // The other way round, or on numbers (1 and 0 of s32), it stays.
    stays(
        "
HloModule m
ENTRY main {
  p = pred[4]{0} parameter(0)
  t = pred[] constant(true)
  bt = pred[4]{0} broadcast(t), dimensions={}
  f = pred[] constant(false)
  bf = pred[4]{0} broadcast(f), dimensions={}
  s = pred[4]{0} select(p, bf, bt)
  ROOT n = pred[4]{0} not(s)
}",
    );
    stays(
        "
HloModule m
ENTRY main {
  p = pred[4]{0} parameter(0)
  one = s32[] constant(1)
  b1 = s32[4]{0} broadcast(one), dimensions={}
  zero = s32[] constant(0)
  b0 = s32[4]{0} broadcast(zero), dimensions={}
  ROOT s = s32[4]{0} select(p, b1, b0)
}",
    );
}
