//! Identities of elementwise arithmetic and logic: `add(x, 0) => x`, `mul(x, 1) => x`,
//! `neg(neg(x)) => x`, `and(x, true) => x`, `max(x, x) => x`, `pow(x, 1) => x`.
//! The constant may be a scalar broadcast to the shape (`broadcast(constant(0))`).
//!
//! Floating point: XLA rewrites `x + 0`, `x - 0`, `x * 1`, `x / 1` for every type, and so
//! does xlac. They are exact except for the sign of a zero sum (`-0 + 0` is `+0` but the
//! rewrite keeps `-0`). Rules that would change NaN results (`x * 0 => 0`, `x - x => 0`)
//! are for integers only, as in XLA without fast math. XLA:CPU does not assume min/max
//! propagate NaN, so `max(x, -inf) => x` is for integers only (`max(x, MIN) => x`).
//!
//! XLA: `HandleAdd`, `HandleSubtract`, `HandleMultiply`, `HandleDivide`, `HandleNegate`,
//! `HandleNot`, `HandleAnd`, `HandleOr`, `HandleXor`, `HandleMaximum`, `HandleMinimum`,
//! `HandlePower` in `algebraic_simplifier.cc`.

use super::Rewrite;
use super::matchers::{Extreme, is_all, is_all_integer_extreme, operands, scalar_like};
use crate::ir::{Computation, InstrId, Op, Opcode, PrimitiveType};

/// The two operands of a binary instruction.
fn binary(comp: &Computation, id: InstrId) -> (InstrId, InstrId) {
    let ops = operands(comp, id);
    (ops[0], ops[1])
}

/// The element type of an instruction (pred for non-arrays, which never match).
fn element_type(comp: &Computation, id: InstrId) -> PrimitiveType {
    comp.instr(id)
        .shape
        .element_type()
        .unwrap_or(PrimitiveType::Pred)
}

/// `add`: `x + 0`, `0 + x`.
pub fn simplify_add(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    add_zero(comp, id).or_else(|| zero_add(comp, id))
}

/// add(x, 0) => x
fn add_zero(comp: &Computation, add: InstrId) -> Option<Rewrite> {
    let (x, zero) = binary(comp, add);
    is_all(comp, zero, 0).then(|| Rewrite::replace_with(comp, add, x, "add(x, 0) => x"))?
}

/// add(0, x) => x
fn zero_add(comp: &Computation, add: InstrId) -> Option<Rewrite> {
    let (zero, x) = binary(comp, add);
    is_all(comp, zero, 0).then(|| Rewrite::replace_with(comp, add, x, "add(0, x) => x"))?
}

/// `subtract`: `x - x` (integers), `x - 0`.
pub fn simplify_subtract(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    subtract_self(comp, id).or_else(|| subtract_zero(comp, id))
}

/// sub(x, x) => 0, integers only (for floats `inf - inf` is NaN)
fn subtract_self(comp: &Computation, sub: InstrId) -> Option<Rewrite> {
    let (x, y) = binary(comp, sub);
    if x != y || !element_type(comp, sub).is_integral() {
        return None;
    }
    Rewrite::build("sub(x, x) => 0", scalar_like(&comp.instr(sub).shape, 0)?)
}

/// sub(x, 0) => x
fn subtract_zero(comp: &Computation, sub: InstrId) -> Option<Rewrite> {
    let (x, zero) = binary(comp, sub);
    is_all(comp, zero, 0).then(|| Rewrite::replace_with(comp, sub, x, "sub(x, 0) => x"))?
}

/// `multiply`: `x * 1`, `1 * x`, `0 * x` and `x * 0` (integers).
pub fn simplify_multiply(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    multiply_one(comp, id)
        .or_else(|| one_multiply(comp, id))
        .or_else(|| multiply_zero(comp, id))
}

/// mul(x, 1) => x
fn multiply_one(comp: &Computation, mul: InstrId) -> Option<Rewrite> {
    let (x, one) = binary(comp, mul);
    is_all(comp, one, 1).then(|| Rewrite::replace_with(comp, mul, x, "mul(x, 1) => x"))?
}

/// mul(1, x) => x
fn one_multiply(comp: &Computation, mul: InstrId) -> Option<Rewrite> {
    let (one, x) = binary(comp, mul);
    is_all(comp, one, 1).then(|| Rewrite::replace_with(comp, mul, x, "mul(1, x) => x"))?
}

/// mul(0, x) => 0 and mul(x, 0) => 0, integers only (for floats `0 * inf` is NaN)
fn multiply_zero(comp: &Computation, mul: InstrId) -> Option<Rewrite> {
    if !element_type(comp, mul).is_integral() {
        return None;
    }
    let (lhs, rhs) = binary(comp, mul);
    [lhs, rhs]
        .into_iter()
        .filter(|&z| is_all(comp, z, 0))
        .find_map(|zero| Rewrite::replace_with(comp, mul, zero, "mul(x, 0) => 0"))
}

/// `divide`: `x / 1`.
pub fn simplify_divide(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    divide_one(comp, id)
}

/// div(x, 1) => x
fn divide_one(comp: &Computation, div: InstrId) -> Option<Rewrite> {
    let (x, one) = binary(comp, div);
    is_all(comp, one, 1).then(|| Rewrite::replace_with(comp, div, x, "div(x, 1) => x"))?
}

/// `negate`: `neg(neg(x))`.
pub fn simplify_negate(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    double_unary(comp, id, Opcode::Negate, "neg(neg(x)) => x")
}

/// `not`: `not(not(x))`.
pub fn simplify_not(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    double_unary(comp, id, Opcode::Not, "not(not(x)) => x")
}

/// neg(neg(x)) => x and not(not(x)) => x: an involution applied twice.
fn double_unary(
    comp: &Computation,
    outer: InstrId,
    opcode: Opcode,
    rule: &'static str,
) -> Option<Rewrite> {
    let inner = operands(comp, outer)[0];
    if comp.instr(inner).op != Op::Plain(opcode) {
        return None;
    }
    Rewrite::replace_with(comp, outer, operands(comp, inner)[0], rule)
}

/// `and`: `x & true` (pred), `x & 0 => 0` (any type).
pub fn simplify_and(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    and_true(comp, id).or_else(|| and_false(comp, id))
}

/// and(x, true) => x, pred only
fn and_true(comp: &Computation, and: InstrId) -> Option<Rewrite> {
    if element_type(comp, and) != PrimitiveType::Pred {
        return None;
    }
    let (lhs, rhs) = binary(comp, and);
    [(lhs, rhs), (rhs, lhs)]
        .into_iter()
        .filter(|&(_, t)| is_all(comp, t, 1))
        .find_map(|(x, _)| Rewrite::replace_with(comp, and, x, "and(x, true) => x"))
}

/// and(x, false) => false, and for integers and(x, 0) => 0
fn and_false(comp: &Computation, and: InstrId) -> Option<Rewrite> {
    let (lhs, rhs) = binary(comp, and);
    [rhs, lhs]
        .into_iter()
        .filter(|&z| is_all(comp, z, 0))
        .find_map(|zero| Rewrite::replace_with(comp, and, zero, "and(x, false) => false"))
}

/// `or`: `x | true => true` (pred), `x | 0 => x` (any type).
pub fn simplify_or(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    or_true(comp, id).or_else(|| or_false(comp, id))
}

/// or(x, true) => true, pred only
fn or_true(comp: &Computation, or: InstrId) -> Option<Rewrite> {
    if element_type(comp, or) != PrimitiveType::Pred {
        return None;
    }
    let (lhs, rhs) = binary(comp, or);
    [rhs, lhs]
        .into_iter()
        .filter(|&t| is_all(comp, t, 1))
        .find_map(|t| Rewrite::replace_with(comp, or, t, "or(x, true) => true"))
}

/// or(x, false) => x, and for integers or(x, 0) => x
fn or_false(comp: &Computation, or: InstrId) -> Option<Rewrite> {
    let (lhs, rhs) = binary(comp, or);
    [(lhs, rhs), (rhs, lhs)]
        .into_iter()
        .filter(|&(_, z)| is_all(comp, z, 0))
        .find_map(|(x, _)| Rewrite::replace_with(comp, or, x, "or(x, false) => x"))
}

/// `xor`: `x ^ x`, `x ^ 0`.
pub fn simplify_xor(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    xor_self(comp, id).or_else(|| xor_zero(comp, id))
}

/// xor(x, x) => 0
fn xor_self(comp: &Computation, xor: InstrId) -> Option<Rewrite> {
    let (x, y) = binary(comp, xor);
    if x != y {
        return None;
    }
    Rewrite::build("xor(x, x) => 0", scalar_like(&comp.instr(xor).shape, 0)?)
}

/// xor(x, 0) => x
fn xor_zero(comp: &Computation, xor: InstrId) -> Option<Rewrite> {
    let (lhs, rhs) = binary(comp, xor);
    [(lhs, rhs), (rhs, lhs)]
        .into_iter()
        .filter(|&(_, z)| is_all(comp, z, 0))
        .find_map(|(x, _)| Rewrite::replace_with(comp, xor, x, "xor(x, 0) => x"))
}

/// `maximum`/`minimum`: `max(x, x)`, and the integer identity element.
pub fn simplify_min_max(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    min_max_self(comp, id).or_else(|| min_max_identity(comp, id))
}

/// max(x, x) => x and min(x, x) => x (NaN in, the same NaN out)
fn min_max_self(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let (x, y) = binary(comp, id);
    (x == y).then(|| Rewrite::replace_with(comp, id, x, "max(x, x) => x"))?
}

/// max(x, MIN) => x and min(x, MAX) => x, integers only
fn min_max_identity(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    if !element_type(comp, id).is_integral() {
        return None;
    }
    let identity = match comp.instr(id).opcode() {
        Opcode::Maximum => Extreme::Min,
        _ => Extreme::Max,
    };
    let (lhs, rhs) = binary(comp, id);
    [(lhs, rhs), (rhs, lhs)]
        .into_iter()
        .filter(|&(_, e)| is_all_integer_extreme(comp, e, identity))
        .find_map(|(x, _)| Rewrite::replace_with(comp, id, x, "max(x, MIN) => x"))
}

/// `power`: `pow(x, 0)`, `pow(x, 1)`.
pub fn simplify_power(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    power_zero(comp, id).or_else(|| power_one(comp, id))
}

/// pow(x, 0) => 1 (IEEE `pow(NaN, 0)` is 1 too)
fn power_zero(comp: &Computation, pow: InstrId) -> Option<Rewrite> {
    let (_, zero) = binary(comp, pow);
    if !is_all(comp, zero, 0) {
        return None;
    }
    Rewrite::build("pow(x, 0) => 1", scalar_like(&comp.instr(pow).shape, 1)?)
}

/// pow(x, 1) => x
fn power_one(comp: &Computation, pow: InstrId) -> Option<Rewrite> {
    let (x, one) = binary(comp, pow);
    is_all(comp, one, 1).then(|| Rewrite::replace_with(comp, pow, x, "pow(x, 1) => x"))?
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
}
