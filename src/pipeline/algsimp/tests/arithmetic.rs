//! Tests of `arithmetic.rs`: identities of add, sub, mul, div, neg, not, and, or, xor,
//! min/max and pow, and the cases where XLA (and so xlac) must leave them alone.

use super::{fires, stays};
use crate::pipeline::algsimp::AlgebraicSimplifier;

#[test]
fn add_broadcast_zero_is_x() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  c = f32[] constant(0)
  z = f32[4]{0} broadcast(c), dimensions={}
  r = f32[4]{0} add(p0, z)
  ROOT e = f32[4]{0} exponential(r)
}",
        "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  c = f32[] constant(0)
  z = f32[4]{0} broadcast(c), dimensions={}
  r = f32[4]{0} add(p0, z)
  ROOT e = f32[4]{0} exponential(p0)
}",
    );
}

#[test]
fn zero_plus_x_is_x_for_integers() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = s32[3]{0} parameter(0)
  z = s32[3]{0} constant({0, 0, 0})
  a = s32[3]{0} add(z, p0)
  ROOT n = s32[3]{0} negate(a)
}",
        "
HloModule m
ENTRY main {
  p0 = s32[3]{0} parameter(0)
  z = s32[3]{0} constant({0, 0, 0})
  a = s32[3]{0} add(z, p0)
  ROOT n = s32[3]{0} negate(p0)
}",
    );
}

#[test]
fn add_nonzero_constant_stays() {
    stays(
        "
HloModule m
ENTRY main {
  p0 = f32[3]{0} parameter(0)
  c = f32[3]{0} constant({0, 1, 0})
  ROOT r = f32[3]{0} add(p0, c)
}",
    );
}

#[test]
fn add_that_broadcasts_shape_differs_stays() {
    // A layout change would change the result's layout: xlac keeps the add.
    stays(
        "
HloModule m
ENTRY main {
  p0 = f32[2,3]{0,1} parameter(0)
  c = f32[] constant(0)
  z = f32[2,3]{1,0} broadcast(c), dimensions={}
  ROOT r = f32[2,3]{1,0} add(p0, z)
}",
    );
}

#[test]
fn multiply_by_one_and_divide_by_one() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  one = f32[] constant(1)
  b = f32[4]{0} broadcast(one), dimensions={}
  m = f32[4]{0} multiply(b, p0)
  d = f32[4]{0} divide(m, b)
  ROOT n = f32[4]{0} negate(d)
}",
        "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  one = f32[] constant(1)
  b = f32[4]{0} broadcast(one), dimensions={}
  m = f32[4]{0} multiply(b, p0)
  d = f32[4]{0} divide(p0, b)
  ROOT n = f32[4]{0} negate(p0)
}",
    );
}

#[test]
fn one_divided_by_x_stays() {
    stays(
        "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  one = f32[] constant(1)
  b = f32[4]{0} broadcast(one), dimensions={}
  ROOT d = f32[4]{0} divide(b, p0)
}",
    );
}

#[test]
fn integer_times_zero_is_zero() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = s32[4]{0} parameter(0)
  c = s32[] constant(0)
  z = s32[4]{0} broadcast(c), dimensions={}
  m = s32[4]{0} multiply(p0, z)
  ROOT n = s32[4]{0} negate(m)
}",
        "
HloModule m
ENTRY main {
  p0 = s32[4]{0} parameter(0)
  c = s32[] constant(0)
  z = s32[4]{0} broadcast(c), dimensions={}
  m = s32[4]{0} multiply(p0, z)
  ROOT n = s32[4]{0} negate(z)
}",
    );
}

#[test]
fn float_times_zero_stays_because_of_nan() {
    stays(
        "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  c = f32[] constant(0)
  z = f32[4]{0} broadcast(c), dimensions={}
  ROOT m = f32[4]{0} multiply(p0, z)
}",
    );
}

#[test]
fn integer_x_minus_x_is_zero_float_stays() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = s32[4]{0} parameter(0)
  ROOT s = s32[4]{0} subtract(p0, p0)
}",
        "
HloModule m
ENTRY main {
  p0 = s32[4]{0} parameter(0)
  constant = s32[] constant(0)
  ROOT broadcast = s32[4]{0} broadcast(constant), dimensions={}
  s = s32[4]{0} subtract(p0, p0)
}",
    );
    stays(
        "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  ROOT s = f32[4]{0} subtract(p0, p0)
}",
    );
}

#[test]
fn subtract_zero_but_not_zero_minus_x() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = f64[] parameter(0)
  z = f64[] constant(0)
  s = f64[] subtract(p0, z)
  ROOT n = f64[] negate(s)
}",
        "
HloModule m
ENTRY main {
  p0 = f64[] parameter(0)
  z = f64[] constant(0)
  s = f64[] subtract(p0, z)
  ROOT n = f64[] negate(p0)
}",
    );
    stays(
        "
HloModule m
ENTRY main {
  p0 = f64[] parameter(0)
  z = f64[] constant(0)
  ROOT s = f64[] subtract(z, p0)
}",
    );
}

#[test]
fn double_negate_and_double_not() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = f32[2]{0} parameter(0)
  p1 = pred[2]{0} parameter(1)
  n1 = f32[2]{0} negate(p0)
  n2 = f32[2]{0} negate(n1)
  t1 = pred[2]{0} not(p1)
  t2 = pred[2]{0} not(t1)
  ROOT t = (f32[2]{0}, pred[2]{0}) tuple(n2, t2)
}",
        "
HloModule m
ENTRY main {
  p0 = f32[2]{0} parameter(0)
  p1 = pred[2]{0} parameter(1)
  n1 = f32[2]{0} negate(p0)
  n2 = f32[2]{0} negate(n1)
  t1 = pred[2]{0} not(p1)
  t2 = pred[2]{0} not(t1)
  ROOT t = (f32[2]{0}, pred[2]{0}) tuple(p0, p1)
}",
    );
}

#[test]
fn single_negate_stays() {
    stays(
        "
HloModule m
ENTRY main {
  p0 = f32[2]{0} parameter(0)
  n1 = f32[2]{0} abs(p0)
  ROOT n2 = f32[2]{0} negate(n1)
}",
    );
}

#[test]
fn and_or_with_pred_constants() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = pred[3]{0} parameter(0)
  t = pred[] constant(true)
  f = pred[] constant(false)
  bt = pred[3]{0} broadcast(t), dimensions={}
  bf = pred[3]{0} broadcast(f), dimensions={}
  a = pred[3]{0} and(bt, p0)
  o = pred[3]{0} or(p0, bf)
  a0 = pred[3]{0} and(p0, bf)
  o1 = pred[3]{0} or(bt, p0)
  ROOT r = (pred[3]{0}, pred[3]{0}, pred[3]{0}, pred[3]{0}) tuple(a, o, a0, o1)
}",
        "
HloModule m
ENTRY main {
  p0 = pred[3]{0} parameter(0)
  t = pred[] constant(true)
  f = pred[] constant(false)
  bt = pred[3]{0} broadcast(t), dimensions={}
  bf = pred[3]{0} broadcast(f), dimensions={}
  a = pred[3]{0} and(bt, p0)
  o = pred[3]{0} or(p0, bf)
  a0 = pred[3]{0} and(p0, bf)
  o1 = pred[3]{0} or(bt, p0)
  ROOT r = (pred[3]{0}, pred[3]{0}, pred[3]{0}, pred[3]{0}) tuple(p0, p0, bf, bt)
}",
    );
}

#[test]
fn integer_and_with_one_stays() {
    // `x & 1` keeps only the low bit: "true" is a pred-only identity.
    stays(
        "
HloModule m
ENTRY main {
  p0 = s32[3]{0} parameter(0)
  c = s32[] constant(1)
  b = s32[3]{0} broadcast(c), dimensions={}
  ROOT a = s32[3]{0} and(p0, b)
}",
    );
}

#[test]
fn xor_with_itself_and_with_zero() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = u8[3]{0} parameter(0)
  z = u8[3]{0} constant({0, 0, 0})
  x0 = u8[3]{0} xor(z, p0)
  ROOT xx = u8[3]{0} xor(x0, x0)
}",
        "
HloModule m
ENTRY main {
  p0 = u8[3]{0} parameter(0)
  z = u8[3]{0} constant({0, 0, 0})
  x0 = u8[3]{0} xor(z, p0)
  constant = u8[] constant(0)
  ROOT broadcast = u8[3]{0} broadcast(constant), dimensions={}
  xx = u8[3]{0} xor(p0, p0)
}",
    );
}

#[test]
fn max_of_itself_and_integer_identity() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = s32[3]{0} parameter(0)
  lo = s32[] constant(-2147483648)
  b = s32[3]{0} broadcast(lo), dimensions={}
  p1 = s32[3]{0} parameter(1)
  m1 = s32[3]{0} maximum(b, p0)
  m2 = s32[3]{0} minimum(p1, p1)
  ROOT r = s32[3]{0} add(m1, m2)
}",
        "
HloModule m
ENTRY main {
  p0 = s32[3]{0} parameter(0)
  lo = s32[] constant(-2147483648)
  b = s32[3]{0} broadcast(lo), dimensions={}
  p1 = s32[3]{0} parameter(1)
  m1 = s32[3]{0} maximum(b, p0)
  m2 = s32[3]{0} minimum(p1, p1)
  ROOT r = s32[3]{0} add(p0, p1)
}",
    );
}

#[test]
fn float_max_with_minus_inf_and_integer_min_with_min_stay() {
    // XLA:CPU does not assume NaN-propagating min/max, so floats keep the max;
    // min(x, MIN) is MIN, not x.
    stays(
        "
HloModule m
ENTRY main {
  p0 = f32[3]{0} parameter(0)
  p1 = s32[3]{0} parameter(1)
  ninf = f32[] constant(-inf)
  b = f32[3]{0} broadcast(ninf), dimensions={}
  m = f32[3]{0} maximum(p0, b)
  lo = s32[] constant(-2147483648)
  bl = s32[3]{0} broadcast(lo), dimensions={}
  n = s32[3]{0} minimum(p1, bl)
  ROOT t = (f32[3]{0}, s32[3]{0}) tuple(m, n)
}",
    );
}

#[test]
fn power_of_zero_and_one() {
    fires(
        "
HloModule m
ENTRY main {
  p0 = f32[2]{0} parameter(0)
  one = f32[2]{0} constant({1, 1})
  zero = f32[2]{0} constant({0, 0})
  a = f32[2]{0} power(p0, one)
  ROOT b = f32[2]{0} power(a, zero)
}",
        "
HloModule m
ENTRY main {
  p0 = f32[2]{0} parameter(0)
  one = f32[2]{0} constant({1, 1})
  zero = f32[2]{0} constant({0, 0})
  a = f32[2]{0} power(p0, one)
  constant = f32[] constant(1)
  ROOT broadcast = f32[2]{0} broadcast(constant), dimensions={}
  b = f32[2]{0} power(p0, zero)
}",
    );
}

#[test]
fn divide_by_a_broadcast_row_sum_is_a_multiply_by_its_reciprocal() {
    // Two roundings instead of one: results move by at most an ULP or two.
    let two_ulps = crate::eval::compare::Tolerance {
        rtol: 2.5e-7,
        atol: 0.0,
    };
    crate::pipeline::testing::check_pass_with_tolerance(
        AlgebraicSimplifier::new(),
        "
HloModule m
ENTRY main {
  e = f32[4,8]{1,0} parameter(0)
  s = f32[4]{0} parameter(1)
  b = f32[4,8]{1,0} broadcast(s), dimensions={0}
  d = f32[4,8]{1,0} divide(e, b)
  ROOT n = f32[4,8]{1,0} negate(d)
}",
        "
HloModule m
ENTRY main {
  e = f32[4,8]{1,0} parameter(0)
  s = f32[4]{0} parameter(1)
  b = f32[4,8]{1,0} broadcast(s), dimensions={0}
  constant = f32[] constant(1)
  broadcast = f32[4]{0} broadcast(constant), dimensions={}
  divide = f32[4]{0} divide(broadcast, s)
  broadcast.1 = f32[4,8]{1,0} broadcast(divide), dimensions={0}
  multiply = f32[4,8]{1,0} multiply(e, broadcast.1)
  d = f32[4,8]{1,0} divide(e, b)
  ROOT n = f32[4,8]{1,0} negate(multiply)
}",
        two_ulps,
    );
}

#[test]
fn divide_by_a_broadcast_scalar_or_constant_or_of_integers_stays() {
    // Scalars and constants are XLA's other rules' business; integers divide exactly.
    stays(
        "
HloModule m
ENTRY main {
  e = f32[4,8]{1,0} parameter(0)
  s = f32[] parameter(1)
  b = f32[4,8]{1,0} broadcast(s), dimensions={}
  ROOT d = f32[4,8]{1,0} divide(e, b)
}",
    );
    stays(
        "
HloModule m
ENTRY main {
  e = f32[4,8]{1,0} parameter(0)
  s = f32[4]{0} constant({1, 2, 3, 4})
  b = f32[4,8]{1,0} broadcast(s), dimensions={0}
  ROOT d = f32[4,8]{1,0} divide(e, b)
}",
    );
    stays(
        "
HloModule m
ENTRY main {
  e = s32[4,8]{1,0} parameter(0)
  s = s32[4]{0} parameter(1)
  b = s32[4,8]{1,0} broadcast(s), dimensions={0}
  ROOT d = s32[4,8]{1,0} divide(e, b)
}",
    );
}
