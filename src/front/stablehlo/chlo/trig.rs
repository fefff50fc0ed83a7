//! Inverse trigonometric and hyperbolic functions: acos, asin, atan, acosh, asinh, atanh,
//! cosh, sinh, tan.
//!
//! Mirrors openxla/stablehlo `ChloDecompositionPatterns.td` (atan, atanh, tan),
//! `ChloDecompositionPatternsMath.td` (the real forms of asin, acos, acosh, asinh, generated
//! by the functional_algorithms tool) and `ChloLegalizeToStablehlo.cpp` (cosh, sinh).
//! The `.td` patterns compute in the operand's own type, f16 and bf16 included; cosh and
//! sinh compute f16/bf16 in f32. The complex forms of the inverse functions are in
//! `complex_trig.rs`.

use super::complex_trig;
use super::emit::Emitter;
use super::{require_float, require_float_or_complex};
use crate::ir::Refusal;
use crate::ir::{InstrId, Opcode};

/// `acos(x) = atan2(sqrt((1 - x)(1 + x)), x)`.
pub(super) fn acos(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    if em.ty(x).is_complex() {
        return complex_trig::acos(em, x);
    }
    require_float("acos", em, x)?;
    let s = sqrt_one_minus_square(em, x);
    Ok(em.atan2(s, x))
}

/// `sqrt((1 - x)(1 + x))`, which keeps its precision near |x| = 1 where `1 - x*x` does not.
fn sqrt_one_minus_square(em: &mut Emitter<'_>, x: InstrId) -> InstrId {
    let one = em.c(1.0, x);
    let a = em.sub(one, x);
    let b = em.add(one, x);
    let p = em.mul(a, b);
    em.sqrt(p)
}

/// `asin(x) = 2 atan2(x, 1 + sqrt((1 - x)(1 + x)))`.
pub(super) fn asin(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    if em.ty(x).is_complex() {
        return complex_trig::asin(em, x);
    }
    require_float("asin", em, x)?;
    let one = em.c(1.0, x);
    let s = sqrt_one_minus_square(em, x);
    let d = em.add(one, s);
    let ta = em.atan2(x, d);
    Ok(em.add(ta, ta))
}

/// `atan(x) = atan2(x, 1)`.
pub(super) fn atan(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    if em.ty(x).is_complex() {
        return Ok(complex_trig::atan(em, x));
    }
    require_float("atan", em, x)?;
    let one = em.c(1.0, x);
    Ok(em.atan2(x, one))
}

/// `acosh(x) = log(2) + log(x)` for x >= max/2 (where x^2 would overflow), else
/// `log1p(sqrt(x - 1) (sqrt(x + 1) + sqrt(x - 1)))`.
pub(super) fn acosh(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    if em.ty(x).is_complex() {
        return complex_trig::acosh(em, x);
    }
    require_float("acosh", em, x)?;
    let max = em.max_finite(x);
    let two = em.c(2.0, x);
    let half_max = em.div(max, two);
    let large = em.ge(x, half_max);
    let log_two = em.log(two);
    let log_x = em.log(x);
    let large_value = em.add(log_two, log_x);
    let one = em.c(1.0, x);
    let xm1 = em.sub(x, one);
    let sqrt_xm1 = em.sqrt(xm1);
    let xp1 = em.add(x, one);
    let sqrt_xp1 = em.sqrt(xp1);
    let sum = em.add(sqrt_xp1, sqrt_xm1);
    let product = em.mul(sqrt_xm1, sum);
    let small_value = em.log1p(product);
    Ok(em.select(large, large_value, small_value))
}

/// `asinh(x) = sign(x) * (log(2) + log|x|)` for |x| >= sqrt(max), else
/// `sign(x) * log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))`.
pub(super) fn asinh(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    if em.ty(x).is_complex() {
        return complex_trig::asinh(em, x);
    }
    require_float("asinh", em, x)?;
    let sign = em.sign(x);
    let ax = em.abs(x);
    let max = em.max_finite(x);
    let sqrt_max = em.sqrt(max);
    let large = em.ge(ax, sqrt_max);
    let two = em.c(2.0, x);
    let log_two = em.log(two);
    let log_ax = em.log(ax);
    let large_value = em.add(log_two, log_ax);
    let ax2 = em.mul(ax, ax);
    let one = em.c(1.0, x);
    let one_ax2 = em.add(one, ax2);
    let hypot = em.sqrt(one_ax2);
    let denom = em.add(one, hypot);
    let q = em.div(ax2, denom);
    let sum = em.add(ax, q);
    let small_value = em.log1p(sum);
    let magnitude = em.select(large, large_value, small_value);
    Ok(em.mul(sign, magnitude))
}

/// `atanh(x) = 0.5 (log1p(x) - log1p(-x))` for |x| <= 1, nan otherwise.
pub(super) fn atanh(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    if em.ty(x).is_complex() {
        return Ok(complex_trig::atanh(em, x));
    }
    require_float("atanh", em, x)?;
    let ax = em.abs(x);
    let one = em.c(1.0, x);
    let outside = em.gt(ax, one);
    let nan = em.c(f64::NAN, x);
    let a = em.log1p(x);
    let neg_x = em.neg(x);
    let b = em.log1p(neg_x);
    let d = em.sub(a, b);
    let half = em.c(0.5, x);
    let value = em.mul(d, half);
    Ok(em.select(outside, nan, value))
}

/// `e^(x + log(1/2)) ± e^(log(1/2) - x)`: `(e^x ± e^-x) / 2` without overflowing where
/// `e^x` is infinite but the half is not.
fn exp_pair(em: &mut Emitter<'_>, x: InstrId, subtract: bool) -> InstrId {
    let half = em.c(0.5, x);
    let log_half = em.log(half);
    let up = em.add(x, log_half);
    let exp_up = em.exp(up);
    let down = em.sub(log_half, x);
    let exp_down = em.exp(down);
    if subtract {
        em.sub(exp_up, exp_down)
    } else {
        em.add(exp_up, exp_down)
    }
}

/// `cosh(x) = e^(x + log(1/2)) + e^(log(1/2) - x)`.
pub(super) fn cosh(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float_or_complex("cosh", em, x)?;
    Ok(em.with_upcast(&[x], |em, a| exp_pair(em, a[0], false)))
}

/// `sinh(x)`: for |x| < 1, `(expm1(x) + expm1(x) / (expm1(x) + 1)) / 2`, which keeps the
/// first-order term that `e^x - e^-x` cancels; otherwise the overflow-safe exp pair.
/// Complex operands use the exp pair everywhere.
pub(super) fn sinh(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float_or_complex("sinh", em, x)?;
    if em.ty(x).is_complex() {
        return Ok(exp_pair(em, x, true));
    }
    Ok(em.with_upcast(&[x], |em, a| {
        let x = a[0];
        let large = exp_pair(em, x, true);
        let expm1 = em.unary(Opcode::Expm1, x);
        let one = em.c(1.0, x);
        let half = em.c(0.5, x);
        let expm1_plus_one = em.add(expm1, one);
        let ratio = em.div(expm1, expm1_plus_one);
        let sum = em.add(expm1, ratio);
        let small = em.mul(half, sum);
        let ax = em.abs(x);
        let lt_one = em.lt(ax, one);
        em.select(lt_one, small, large)
    }))
}

/// `chlo.tan` is the HLO `tan` op.
pub(super) fn tan(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float_or_complex("tan", em, x)?;
    Ok(em.unary(Opcode::Tan, x))
}
