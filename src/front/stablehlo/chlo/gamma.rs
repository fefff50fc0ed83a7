//! The gamma family: lgamma, digamma, zeta and polygamma.
//!
//! Mirrors `materializeLgamma`, `materializeDigamma`, `materializeZeta` and
//! `materializePolygamma` of openxla/stablehlo `stablehlo/transforms/ChloLegalizeToStablehlo.cpp`:
//! Lanczos' approximation (g = 7, n = 9) with Euler's reflection below 1/2, and Hurwitz zeta
//! by Euler-Maclaurin summation. f16 and bf16 are computed in f32 and rounded back.

// Coefficients keep the reference's digits, so they can be compared with its source.
#![allow(clippy::excessive_precision)]

use super::emit::Emitter;
use super::require_float;
use crate::ir::InstrId;
use crate::ir::Refusal;

/// Lanczos approximation parameters (g = 7, n = 9), shared by lgamma and digamma.
const LANCZOS_GAMMA: f64 = 7.0;
const LANCZOS_BASE: f64 = 0.99999999999980993227684700473478;
const LANCZOS_COEFFICIENTS: [f64; 8] = [
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
];

/// `chlo.lgamma`: log |Γ(x)|.
pub(super) fn lgamma(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float("lgamma", em, x)?;
    Ok(em.with_upcast(&[x], |em, a| lgamma_of(em, a[0])))
}

/// The reflection setup: `x < 0.5` and `z = x < 0.5 ? -x : x - 1`.
fn reflect(em: &mut Emitter<'_>, x: InstrId) -> (InstrId, InstrId) {
    let half = em.c(0.5, x);
    let need_to_reflect = em.lt(x, half);
    let neg_x = em.neg(x);
    let one = em.c(1.0, x);
    let x_minus_one = em.sub(x, one);
    let z = em.select(need_to_reflect, neg_x, x_minus_one);
    (need_to_reflect, z)
}

/// `t = z + g + 1/2` and `log(t) = log(g + 1/2) + log1p(z / (g + 1/2))`.
fn lanczos_t(em: &mut Emitter<'_>, x: InstrId, z: InstrId) -> (InstrId, InstrId) {
    let g_half = em.c(LANCZOS_GAMMA + 0.5, x);
    let t = em.add(g_half, z);
    let log_g_half = em.c((LANCZOS_GAMMA + 0.5).ln(), x);
    let ratio = em.div(z, g_half);
    let log1p = em.log1p(ratio);
    let log_t = em.add(log_g_half, log1p);
    (t, log_t)
}

/// lgamma for an f32 or f64 value (`materializeLgamma`).
pub(super) fn lgamma_of(em: &mut Emitter<'_>, x: InstrId) -> InstrId {
    let (need_to_reflect, z) = reflect(em, x);
    let half = em.c(0.5, x);
    let one = em.c(1.0, x);
    // a(z) = base + sum_k c_k / (z + k)
    let mut a = em.c(LANCZOS_BASE, x);
    for (i, &coefficient) in LANCZOS_COEFFICIENTS.iter().enumerate() {
        let c = em.c(coefficient, x);
        let k = em.c((i + 1) as f64, x);
        let zk = em.add(z, k);
        let q = em.div(c, zk);
        a = em.add(a, q);
    }
    let (t, log_t) = lanczos_t(em, x, z);
    // r = (z + 1/2 - t / log(t)) * log(t), which does not overflow where t * log(t) would.
    let t_over_log_t = em.div(t, log_t);
    let z_half = em.add(z, half);
    let sum = em.sub(z_half, t_over_log_t);
    let r = em.mul(sum, log_t);
    let log_a = em.log(a);
    let log_sqrt_2pi = em.c((2f64.ln() + std::f64::consts::PI.ln()) / 2.0, x);
    let partial = em.add(log_sqrt_2pi, r);
    let lgamma = em.add(partial, log_a);

    // Reflection: lgamma(x) = log(pi) - lgamma(1 - x) - log|sin(pi * frac(x))|, with frac
    // folded into [0, 0.5] for precision.
    let abs_x = em.abs(x);
    let floor = em.floor(abs_x);
    let abs_frac = em.sub(abs_x, floor);
    let reduce = em.lt(half, abs_frac);
    let one_minus = em.sub(one, abs_frac);
    let abs_frac = em.select(reduce, one_minus, abs_frac);
    let pi = em.c(std::f64::consts::PI, x);
    let pi_frac = em.mul(pi, abs_frac);
    let sin = em.sin(pi_frac);
    let reflection_denom = em.log(sin);
    let log_pi = em.c(std::f64::consts::PI.ln(), x);
    let diff = em.sub(log_pi, reflection_denom);
    let reflection = em.sub(diff, lgamma);
    // If the log of the sine is infinite it wins: the result is +inf, not nan.
    let finite = em.is_finite(reflection_denom);
    let neg_denom = em.neg(reflection_denom);
    let reflection = em.select(finite, reflection, neg_denom);
    let lgamma = em.select(need_to_reflect, reflection, lgamma);

    // lgamma(±inf) = +inf.
    let abs_x = em.abs(x);
    let inf = em.inf(false, x);
    let is_inf = em.eq(abs_x, inf);
    em.select(is_inf, inf, lgamma)
}

/// `chlo.digamma`: Γ'(x)/Γ(x).
pub(super) fn digamma(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float("digamma", em, x)?;
    Ok(em.with_upcast(&[x], |em, a| digamma_of(em, a[0])))
}

/// digamma for an f32 or f64 value (`materializeDigamma`).
fn digamma_of(em: &mut Emitter<'_>, x: InstrId) -> InstrId {
    let (need_to_reflect, z) = reflect(em, x);
    let zero = em.c(0.0, x);
    // a(z) as in lgamma, and a'(z) = -sum_k c_k / (z + k)^2.
    let mut a = em.c(LANCZOS_BASE, x);
    let mut a_prime = zero;
    for (i, &coefficient) in LANCZOS_COEFFICIENTS.iter().enumerate() {
        let c = em.c(coefficient, x);
        let k = em.c((i + 1) as f64, x);
        let zk = em.add(z, k);
        let zk2 = em.mul(zk, zk);
        let d = em.div(c, zk2);
        a_prime = em.sub(a_prime, d);
        let q = em.div(c, zk);
        a = em.add(a, q);
    }
    let (t, log_t) = lanczos_t(em, x, z);
    // digamma(z + 1) = log(t) + a'/a - g / t
    let ratio = em.div(a_prime, a);
    let g = em.c(LANCZOS_GAMMA, x);
    let g_over_t = em.div(g, t);
    let sum = em.add(log_t, ratio);
    let digamma = em.sub(sum, g_over_t);

    // Reflection: digamma(x) = digamma(1 - x) - pi cot(pi x), with x shifted into
    // [-0.5, 0.5] first so that pi * x keeps its precision.
    let half = em.c(0.5, x);
    let x_half = em.add(x, half);
    let floor = em.floor(x_half);
    let shift = em.abs(floor);
    let reduced = em.add(x, shift);
    let pi = em.c(std::f64::consts::PI, x);
    let pi_x = em.mul(pi, reduced);
    let cos = em.cos(pi_x);
    let sin = em.sin(pi_x);
    let pi_cos = em.mul(pi, cos);
    let cot = em.div(pi_cos, sin);
    let reflection = em.sub(digamma, cot);
    let digamma = em.select(need_to_reflect, reflection, digamma);

    // Poles at zero and the negative integers give nan.
    let le_zero = em.le(x, zero);
    let floor_x = em.floor(x);
    let is_int = em.eq(x, floor_x);
    let pole = em.and(le_zero, is_int);
    let nan = em.c(f64::NAN, x);
    em.select(pole, nan, digamma)
}

/// `chlo.zeta(x, q)`: the Hurwitz zeta function.
pub(super) fn zeta(em: &mut Emitter<'_>, x: InstrId, q: InstrId) -> Result<InstrId, Refusal> {
    require_float("zeta", em, x)?;
    Ok(em.with_upcast(&[x, q], |em, a| zeta_of(em, a[0], a[1])))
}

/// Hurwitz zeta by Euler-Maclaurin summation (`materializeZeta`, after Johansson 2015):
/// nine terms of the series, then a 12-term correction.
fn zeta_of(em: &mut Emitter<'_>, x: InstrId, q: InstrId) -> InstrId {
    const TERMS: usize = 12;
    const ITERS: usize = 9;
    const TWO_TERMS_MINUS_ONE: f64 = (2 * TERMS - 1) as f64;
    const COEFFICIENTS: [f64; TERMS] = [
        -7.1661652561756670113e18,
        1.8152105401943546773e17,
        -4.5979787224074726105e15,
        1.1646782814350067249e14,
        -2.950130727918164224e12,
        7.47242496e10,
        -1.8924375803183791606e9,
        47900160.0,
        -1209600.0,
        30240.0,
        -720.0,
        12.0,
    ];
    let zero = em.c(0.0, q);
    let one = em.c(1.0, q);
    let neg_x = em.neg(x);
    let mut acc = q;
    let mut power_sum = em.pow(q, neg_x);
    for _ in 0..ITERS {
        acc = em.add(acc, one);
        let term = em.pow(acc, neg_x);
        power_sum = em.add(power_sum, term);
    }
    acc = em.add(acc, one);
    let q_neg_power = em.pow(acc, neg_x);
    let one_x = em.c(1.0, x);
    let num = em.mul(q_neg_power, acc);
    let x_minus_one = em.sub(x, one_x);
    let correction = em.div(num, x_minus_one);
    // 1 / acc^2, written as a division as the reference does (rsqrt rounds differently).
    let acc2 = em.mul(acc, acc);
    let inv_acc2 = em.div(one, acc2);
    let mut horner_sum = zero;
    for (i, &coefficient) in COEFFICIENTS.iter().take(TERMS - 1).enumerate() {
        let l = em.c(TWO_TERMS_MINUS_ONE - 1.0 - 2.0 * i as f64, x);
        let r = em.c(TWO_TERMS_MINUS_ONE - 2.0 - 2.0 * i as f64, x);
        let fl = em.add(x, l);
        let fr = em.add(x, r);
        let product = em.mul(fl, fr);
        let k = em.c(1.0 / coefficient, acc);
        let s = em.add(horner_sum, k);
        let scaled = em.mul(inv_acc2, s);
        horner_sum = em.mul(product, scaled);
    }
    let half = em.c(0.5, q_neg_power);
    let x_over_acc = em.div(x, acc);
    let last = em.c(1.0 / COEFFICIENTS[TERMS - 1], acc);
    let inner = em.add(last, horner_sum);
    let inner = em.mul(x_over_acc, inner);
    let inner = em.add(half, inner);
    let tail = em.mul(q_neg_power, inner);
    let partial = em.add(power_sum, correction);
    let accurate = em.add(partial, tail);

    // Keep the plain series when the correction cannot matter.
    let abs_neg_power = em.abs(q_neg_power);
    let abs_power_sum = em.abs(power_sum);
    let tiny = em.smallest_subnormal(acc);
    let threshold = em.mul(abs_power_sum, tiny);
    let negligible = em.lt(abs_neg_power, threshold);
    let output = em.select(negligible, power_sum, accurate);

    // Domain: nan for x < 1; nan for q <= 0 unless x is an integer; at the poles
    // (integer q <= 0) +inf for even integer x, nan otherwise; +inf at x = 1.
    let nan = em.c(f64::NAN, x);
    let x_lt_one = em.lt(x, one_x);
    let output = em.select(x_lt_one, nan, output);
    let q_le_zero = em.le(q, zero);
    let floor_x = em.floor(x);
    let x_not_int = em.ne(x, floor_x);
    let domain_error = em.and(q_le_zero, x_not_int);
    let output = em.select(domain_error, nan, output);
    let inf = em.inf(false, x);
    let floor_q = em.floor(q);
    let q_is_int = em.eq(q, floor_q);
    let at_pole = em.and(q_le_zero, q_is_int);
    let two = em.c(2.0, x);
    let x_is_int = em.eq(x, floor_x);
    let x_rem_two = em.rem(x, two);
    let x_is_even = em.eq(x_rem_two, zero);
    let x_is_even_int = em.and(x_is_int, x_is_even);
    let pole_value = em.select(x_is_even_int, inf, nan);
    let output = em.select(at_pole, pole_value, output);
    let x_is_one = em.eq(x, one);
    em.select(x_is_one, inf, output)
}

/// `chlo.polygamma(n, x)`: the n-th derivative of digamma.
pub(super) fn polygamma(em: &mut Emitter<'_>, n: InstrId, x: InstrId) -> Result<InstrId, Refusal> {
    require_float("polygamma", em, x)?;
    Ok(em.with_upcast(&[n, x], |em, a| polygamma_of(em, a[0], a[1])))
}

/// `(-1)^(n+1) n! zeta(n + 1, x)` for natural n > 0, digamma for n = 0, nan otherwise.
fn polygamma_of(em: &mut Emitter<'_>, n: InstrId, x: InstrId) -> InstrId {
    let one = em.c(1.0, x);
    let two = em.c(2.0, x);
    let n_rem_two = em.rem(n, two);
    let twice = em.mul(two, n_rem_two);
    let sign = em.sub(twice, one);
    let n_plus_one = em.add(n, one);
    let lgamma = lgamma_of(em, n_plus_one);
    let factorial = em.exp(lgamma);
    let zeta = zeta_of(em, n_plus_one, x);
    let signed = em.mul(sign, factorial);
    let result = em.mul(signed, zeta);
    let zero = em.c(0.0, x);
    let n_is_zero = em.eq(n, zero);
    let digamma = digamma_of(em, x);
    let result = em.select(n_is_zero, digamma, result);
    let floor_n = em.floor(n);
    let non_int = em.ne(n, floor_n);
    let negative = em.lt(n, zero);
    let non_natural = em.or(non_int, negative);
    let nan = em.c(f64::NAN, x);
    em.select(non_natural, nan, result)
}
