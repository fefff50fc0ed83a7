//! Tests of `compare.rs`.

use super::{fires, stays};

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
