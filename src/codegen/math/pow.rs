//! pow and cbrt as inline CLIF for f32, f64, f32x4 and f64x2. Both run an f64 algorithm (f32
//! lanes are promoted and rounded once at the end, see `with_f64`).
//!
//! pow: `x^y = e^(y·log|x|)`. The error of `log|x|` is multiplied by `y·log|x|` (up to ~745),
//! so log is computed as a double-double `H + L` (fdlibm's log with `f²/2` kept exact by a
//! two-product), `y·(H + L)` as a double-double again, and its low half is passed to exp as a
//! correction of the reduced argument. Signs, zeros, infinities and NaN follow C99 `pow`
//! (XLA's `pow` is `std::pow`): pow(x, ±0) = 1 and pow(1, y) = 1 even for NaN, a negative x
//! with a non-integer y is NaN, odd integer y keeps the sign of x.
//!
//! cbrt: fdlibm (musl cbrt.c): a bit-level first guess (exponent/3), a polynomial step to 23
//! bits, rounding to 21 bits, and one Newton step in f64. The integer `/3` is a multiply by
//! 0xAAAAAAAB and a shift, since there is no vector integer division.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};
use cranelift_frontend::FunctionBuilder;

use super::exp_log::{clamp, exp_clamped, log, log_reduce};
use super::{Kind, MathOptions, copysign, with_f64};

const LN2_HI: f64 = 6.93147180369123816490e-01;
const LN2_LO: f64 = 1.90821492927058770002e-10;

/// `x^y` with C99 special cases.
pub fn pow(b: &mut FunctionBuilder, o: &MathOptions, x: Value, y: Value) -> Value {
    let o = *o;
    // f32 results only need log|x| to ~2^-45: the plain f64 log is enough.
    let precise = Kind::of(b, x).is_f64;
    with_f64(b, &[x, y], &move |b, a| pow_f64(b, &o, a[0], a[1], precise))
}

fn pow_f64(b: &mut FunctionBuilder, o: &MathOptions, x: Value, y: Value, precise: bool) -> Value {
    let k = Kind::of(b, x);
    let ax = b.ins().fabs(x);
    let (h, l) = if precise {
        log_dd(b, o, k, ax)
    } else {
        let zero = k.f(b, 0.0);
        (log(b, o, ax), zero)
    };
    // y·(H + L) = P + p
    let (pp, pl) = two_prod(b, o, k, y, h);
    let yl = b.ins().fmul(y, l);
    let pl = b.ins().fadd(pl, yl);
    // Outside the exp range the low part is meaningless (and may be NaN from an overflowing
    // split); the result saturates to 0 or inf anyway.
    let pc = clamp(b, k, pp, -746.0, 710.0);
    let in_range = b.ins().fcmp(FloatCC::Equal, pc, pp);
    let zero = k.f(b, 0.0);
    let pl = k.select(b, in_range, pl, zero);
    let r = exp_clamped(b, o, k, pc, pl);

    // Integer tests on y without conversions: rint(|v|) = (|v| + 2^52) − 2^52 for |v| < 2^52.
    let ay = b.ins().fabs(y);
    let two52 = k.f(b, 2f64.powi(52));
    let ry = b.ins().fadd(ay, two52);
    let ry = b.ins().fsub(ry, two52);
    let ay_small = b.ins().fcmp(FloatCC::LessThan, ay, two52);
    let y_frac = b.ins().fcmp(FloatCC::NotEqual, ry, ay);
    let y_not_int = b.ins().band(ay_small, y_frac); // false for NaN and inf
    let half = k.f(b, 0.5);
    let hy = b.ins().fmul(ay, half);
    let rh = b.ins().fadd(hy, two52);
    let rh = b.ins().fsub(rh, two52);
    // y is odd when it is an integer and y/2 is not; every |y| ≥ 2^53 is even.
    let y_whole = b.ins().fcmp(FloatCC::Equal, ry, ay);
    let ay_big = b.ins().fcmp(FloatCC::GreaterThanOrEqual, ay, two52);
    let y_int = b.ins().bor(y_whole, ay_big);
    let hy_small = b.ins().fcmp(FloatCC::LessThan, hy, two52);
    let half_frac = b.ins().fcmp(FloatCC::NotEqual, rh, hy);
    let half_frac = b.ins().band(half_frac, hy_small);
    let y_odd = b.ins().band(y_int, half_frac);

    // Negative x: odd y negates, non-integer y is NaN (finite x only: pow(−inf, 0.5) = inf).
    let x_neg = k.sign_set(b, x);
    let neg = b.ins().band(x_neg, y_odd);
    let nr = b.ins().fneg(r);
    let r = k.select(b, neg, nr, r);
    let x_lt0 = k.fcmp(b, FloatCC::LessThan, x, 0.0);
    let x_fin = k.fcmp(b, FloatCC::GreaterThan, x, f64::NEG_INFINITY);
    let bad = b.ins().band(x_lt0, x_fin);
    let bad = b.ins().band(bad, y_not_int);
    let nan = k.f(b, f64::NAN);
    let r = k.select(b, bad, nan, r);

    // Results that are 1 whatever else: y = ±0, x = 1, and |x| = 1 with y = ±inf.
    let one = k.f(b, 1.0);
    let y_zero = k.fcmp(b, FloatCC::Equal, y, 0.0);
    let x_one = k.fcmp(b, FloatCC::Equal, x, 1.0);
    let ax_one = k.fcmp(b, FloatCC::Equal, ax, 1.0);
    let y_inf = k.fcmp(b, FloatCC::Equal, ay, f64::INFINITY);
    let unit = b.ins().band(ax_one, y_inf);
    let unit = b.ins().bor(unit, x_one);
    let unit = b.ins().bor(unit, y_zero);
    k.select(b, unit, one, r)
}

/// log(ax) as an unevaluated sum `H + L`, good to ~2^-64 relative (what `pow` needs: the error
/// is multiplied by |y·log x| ≤ 745), for ax ≥ 0; log(0) = −inf, log(inf) = inf, NaN → NaN.
///
/// With `ax = 2^e·(1 + f)` and `s = f/(2 + f)` (|s| ≤ 0.1716):
/// `log(1 + f) = 2s + (2/3)s³ + s·z²·Q(z)`, z = s², Q the atanh series from 2/5 on. The first
/// two terms are ≥ 1% of the result and are carried in double-double; the tail is ≤ 2^-12 of it.
fn log_dd(b: &mut FunctionBuilder, o: &MathOptions, k: Kind, ax: Value) -> (Value, Value) {
    let (e, f) = log_reduce(b, k, ax);
    // s = f/(2 + f) as s_hi + s_lo: the residual f − s_hi·(2 + f) is computed exactly.
    let two = k.f(b, 2.0);
    let (d_hi, d_lo) = fast_two_sum(b, two, f);
    let s_hi = b.ins().fdiv(f, d_hi);
    let (p, pe) = two_prod(b, o, k, s_hi, d_hi);
    let rr = b.ins().fsub(f, p);
    let rr = b.ins().fsub(rr, pe);
    let sd = b.ins().fmul(s_hi, d_lo);
    let rr = b.ins().fsub(rr, sd);
    let s_lo = b.ins().fdiv(rr, d_hi);
    // z = s² and s³ in double-double.
    let (z_hi, z_lo) = two_prod(b, o, k, s_hi, s_hi);
    let cross = b.ins().fmul(s_hi, s_lo);
    let cross = b.ins().fadd(cross, cross);
    let z_lo = b.ins().fadd(z_lo, cross);
    let (c_hi, c_lo) = dd_mul(b, o, k, (s_hi, s_lo), (z_hi, z_lo));
    let tt_hi = k.f(b, TWO_THIRDS_HI);
    let tt_lo = k.f(b, TWO_THIRDS_LO);
    let (q_hi, q_lo) = dd_mul(b, o, k, (c_hi, c_lo), (tt_hi, tt_lo));
    // tail = s·z²·Q(z)
    let qz = k.poly(b, o, z_hi, &ATANH_Q);
    let zz = b.ins().fmul(z_hi, z_hi);
    let tail = b.ins().fmul(zz, qz);
    let tail = b.ins().fmul(tail, s_hi);
    // 2s + (2/3)s³ + tail
    let s2_hi = b.ins().fadd(s_hi, s_hi);
    let s2_lo = b.ins().fadd(s_lo, s_lo);
    let (a_hi, a_lo) = dd_add(b, (s2_hi, s2_lo), (q_hi, q_lo));
    let a_lo = b.ins().fadd(a_lo, tail);
    // + e·ln2, with e·LN2_HI exact.
    let ln2_hi = k.f(b, LN2_HI);
    let kh = b.ins().fmul(e, ln2_hi);
    let ln2_lo = k.f(b, LN2_LO);
    let kl = b.ins().fmul(e, ln2_lo);
    let (hh, ll) = dd_add(b, (kh, kl), (a_hi, a_lo));
    // Specials: 0 → −inf, inf → inf, NaN → NaN, with L = 0.
    let zero = k.f(b, 0.0);
    let is_zero = k.fcmp(b, FloatCC::Equal, ax, 0.0);
    let ninf = k.f(b, f64::NEG_INFINITY);
    let hh = k.select(b, is_zero, ninf, hh);
    let is_inf = k.fcmp(b, FloatCC::Equal, ax, f64::INFINITY);
    let hh = k.select(b, is_inf, ax, hh);
    let is_nan = b.ins().fcmp(FloatCC::Unordered, ax, ax);
    let hh = k.select(b, is_nan, ax, hh);
    let special = b.ins().bor(is_zero, is_inf);
    let special = b.ins().bor(special, is_nan);
    let ll = k.select(b, special, zero, ll);
    (hh, ll)
}

/// 2/3 = TWO_THIRDS_HI + TWO_THIRDS_LO.
const TWO_THIRDS_HI: f64 = 0.6666666666666666;
const TWO_THIRDS_LO: f64 = 3.700743415417188e-17;
/// atanh series 2/(2k+1) for k = 11 down to 2 (highest first): the truncation error is
/// below 2^-64 of log(1+f) for |s| ≤ 0.1716.
const ATANH_Q: [f64; 10] = [
    2.0 / 23.0,
    2.0 / 21.0,
    2.0 / 19.0,
    2.0 / 17.0,
    2.0 / 15.0,
    2.0 / 13.0,
    2.0 / 11.0,
    2.0 / 9.0,
    2.0 / 7.0,
    2.0 / 5.0,
];

/// Exact sum when |x| ≥ |y|: x + y = s + e (Dekker's fast two-sum).
fn fast_two_sum(b: &mut FunctionBuilder, x: Value, y: Value) -> (Value, Value) {
    let s = b.ins().fadd(x, y);
    let z = b.ins().fsub(s, x);
    let e = b.ins().fsub(y, z);
    (s, e)
}

/// Double-double sum, renormalized.
fn dd_add(b: &mut FunctionBuilder, x: (Value, Value), y: (Value, Value)) -> (Value, Value) {
    let (s, e) = two_sum(b, x.0, y.0);
    let lo = b.ins().fadd(x.1, y.1);
    let e = b.ins().fadd(e, lo);
    fast_two_sum(b, s, e)
}

/// Double-double product, renormalized (the lo·lo term is below 2^-100 and dropped).
fn dd_mul(
    b: &mut FunctionBuilder,
    o: &MathOptions,
    k: Kind,
    x: (Value, Value),
    y: (Value, Value),
) -> (Value, Value) {
    let (p, e) = two_prod(b, o, k, x.0, y.0);
    let a = b.ins().fmul(x.0, y.1);
    let c = b.ins().fmul(x.1, y.0);
    let ac = b.ins().fadd(a, c);
    let e = b.ins().fadd(e, ac);
    fast_two_sum(b, p, e)
}

/// Exact sum: a + b = s + e (Knuth's two-sum, no ordering needed).
fn two_sum(b: &mut FunctionBuilder, x: Value, y: Value) -> (Value, Value) {
    let s = b.ins().fadd(x, y);
    let bb = b.ins().fsub(s, x);
    let aa = b.ins().fsub(s, bb);
    let db = b.ins().fsub(y, bb);
    let da = b.ins().fsub(x, aa);
    let e = b.ins().fadd(da, db);
    (s, e)
}

/// Exact product: x·y = p + e. With FMA `e = fma(x, y, −p)`; without, Dekker's split.
fn two_prod(
    b: &mut FunctionBuilder,
    o: &MathOptions,
    k: Kind,
    x: Value,
    y: Value,
) -> (Value, Value) {
    let p = b.ins().fmul(x, y);
    if o.has_fma {
        let np = b.ins().fneg(p);
        let e = b.ins().fma(x, y, np);
        return (p, e);
    }
    let (xh, xl) = split(b, k, x);
    let (yh, yl) = split(b, k, y);
    let hh = b.ins().fmul(xh, yh);
    let e = b.ins().fsub(hh, p);
    let hl = b.ins().fmul(xh, yl);
    let e = b.ins().fadd(e, hl);
    let lh = b.ins().fmul(xl, yh);
    let e = b.ins().fadd(e, lh);
    let ll = b.ins().fmul(xl, yl);
    let e = b.ins().fadd(e, ll);
    (p, e)
}

/// Veltkamp split of an f64 into two 26-bit halves: x = hi + lo.
fn split(b: &mut FunctionBuilder, k: Kind, x: Value) -> (Value, Value) {
    let c = k.f(b, 134217729.0); // 2^27 + 1
    let t = b.ins().fmul(c, x);
    let d = b.ins().fsub(t, x);
    let hi = b.ins().fsub(t, d);
    let lo = b.ins().fsub(x, hi);
    (hi, lo)
}

// musl cbrt.c
const CBRT_B1: i64 = 715094163; // (1023 − 1023/3 − 0.03306235651)·2^20
const CBRT_B2: i64 = 696219795; // (1023 − 1023/3 − 54/3 − 0.03306235651)·2^20
const CBRT_P: [f64; 5] = [
    0.145996192886612446982,
    -0.758397934778766047437,
    1.621429720105354466140,
    -1.88497979543377169875,
    1.87595182427177009643,
];

/// Cube root; cbrt(±0) = ±0, cbrt(±inf) = ±inf, NaN → NaN, cbrt(−8) = −2.
pub fn cbrt(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let o = *o;
    with_f64(b, &[x], &move |b, a| cbrt_f64(b, &o, a[0]))
}

fn cbrt_f64(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    let ax = b.ins().fabs(x);
    // Denormals: take the exponent of ax·2^54 (B2 accounts for the 54/3).
    let den = k.fcmp(b, FloatCC::LessThan, ax, f64::MIN_POSITIVE);
    let up = k.f(b, 2f64.powi(54));
    let axs = b.ins().fmul(ax, up);
    let axs = k.select(b, den, axs, ax);
    let bits = k.to_bits(b, axs);
    let sh32 = b.ins().iconst(types::I32, 32);
    let hx = b.ins().ushr(bits, sh32);
    // hx/3 = (hx·0xAAAAAAAB) >> 33 for hx < 2^32 (the product fits in 64 bits).
    let m3 = k.i(b, 0xAAAA_AAAB);
    let prod = b.ins().imul(hx, m3);
    let sh33 = b.ins().iconst(types::I32, 33);
    let q = b.ins().ushr(prod, sh33);
    let b1 = k.i(b, CBRT_B1);
    let b2 = k.i(b, CBRT_B2);
    let bias = k.select(b, den, b2, b1);
    let hx3 = b.ins().iadd(q, bias);
    let tb = b.ins().ishl(hx3, sh32);
    let t = k.bits_to_float(b, tb);
    // Polynomial step to ~23 bits: t·P(r), r = t³/x.
    let tt = b.ins().fmul(t, t);
    let tx = b.ins().fdiv(t, ax);
    let r = b.ins().fmul(tt, tx);
    let p_lo = k.poly(b, o, r, &CBRT_P[2..]); // P0 + r·(P1 + r·P2)
    let p_hi = k.poly(b, o, r, &CBRT_P[..2]); // P3 + r·P4
    let rr = b.ins().fmul(r, r);
    let r3 = b.ins().fmul(rr, r);
    let p = k.mul_add(b, o, r3, p_hi, p_lo);
    let t = b.ins().fmul(t, p);
    // Round t to 21 bits (away from zero) so that t·t is exact.
    let tb = k.to_bits(b, t);
    let rnd = k.i(b, 0x8000_0000);
    let tb = b.ins().iadd(tb, rnd);
    let mask = k.i(b, 0xffff_ffff_c000_0000u64 as i64);
    let tb = b.ins().band(tb, mask);
    let t = k.bits_to_float(b, tb);
    // One Newton step: t += t·(x/t² − t)/(2t + x/t²).
    let s = b.ins().fmul(t, t);
    let r = b.ins().fdiv(ax, s);
    let w = b.ins().fadd(t, t);
    let num = b.ins().fsub(r, t);
    let den2 = b.ins().fadd(w, r);
    let r = b.ins().fdiv(num, den2);
    let t = k.mul_add(b, o, t, r, t);
    let res = copysign(b, t, x);
    // ±0, ±inf and NaN are their own cube roots.
    let is_zero = k.fcmp(b, FloatCC::Equal, x, 0.0);
    let res = k.select(b, is_zero, x, res);
    let fin = super::is_finite(b, x);
    k.select(b, fin, res, x)
}
