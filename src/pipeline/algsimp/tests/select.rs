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
