//! exp, expm1, log, log1p and logistic as inline CLIF for f32, f64, f32x4 and f64x2.
//!
//! exp reduces `x = n·ln2 + r` with |r| ≤ ln2/2 (Cody–Waite: ln2 split in a short "hi" part
//! whose product with `n` is exact and a "lo" correction), approximates `e^r` and scales by
//! 2^n through the exponent bits. log splits `x = 2^e·m` with m in [√½, √2) and approximates
//! `log(m)` around 1. f32 uses the Cephes/Eigen polynomials that XLA:CPU inlines
//! (`polynomial_approximations.cc`); f64 uses the fdlibm rational forms (as musl/`libm`).
//! Specials are selects at the end: NaN → NaN, ±inf, log(0) = −inf, log(x<0) = NaN, and
//! overflow/underflow fall out of the final scaling (denormal results are kept, not flushed).
//!
//! Not here: the elemental emitter decides when to call these (XLA's `EmitExp`, `EmitLog`).

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::{Kind, MathOptions};

const LOG2_E: f64 = std::f64::consts::LOG2_E;
const F32_MIN_NORMAL: f64 = f32::MIN_POSITIVE as f64;

// fdlibm (musl `exp.c`, `log.c`, `expm1.c`): ln2 split so that n·LN2_HI is exact for |n| < 2^20.
const LN2_HI: f64 = 6.93147180369123816490e-01;
const LN2_LO: f64 = 1.90821492927058770002e-10;

/// Cephes expf: the f32 Cody–Waite split of ln2 and the polynomial for e^r − 1 − r.
pub(crate) const CEPHES_LN2_HI: f64 = 0.693359375;
pub(crate) const CEPHES_LN2_LO: f64 = -2.12194440e-4;
pub(crate) const CEPHES_EXP_P: [f64; 6] = [
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
];
/// fdlibm exp: the rational remainder `c = r − r²·P(r²)`.
const FDLIBM_EXP_P: [f64; 5] = [
    4.13813679705723846039e-08,
    -1.65339022054652515390e-06,
    6.61375632143793436117e-05,
    -2.77777777770155933842e-03,
    1.66666666666666019037e-01,
];

/// `e^x`. f32: Cephes (XLA:CPU's inlined expf); f64: fdlibm.
pub fn exp(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    // Past these bounds the result is 0 or +inf anyway; the clamp keeps n in range for ldexp.
    let (lo, hi) = if k.is_f64 {
        (-746.0, 710.0)
    } else {
        (-104.0, 89.0)
    };
    let xc = clamp(b, k, x, lo, hi);
    let zero = k.f(b, 0.0);
    exp_clamped(b, o, k, xc, zero)
}

/// e^(x + extra) for x already clamped to the exp range, where `extra` is a tiny correction
/// (the low part of a double-double argument, used by `pow`; 0 for `exp`).
pub(super) fn exp_clamped(
    b: &mut FunctionBuilder,
    o: &MathOptions,
    k: Kind,
    x: Value,
    extra: Value,
) -> Value {
    let log2e = k.f(b, LOG2_E);
    let t = b.ins().fmul(x, log2e);
    let (n, _) = k.round_magic(b, t);
    let y = if k.is_f64 {
        // hi = x − n·ln2_hi is exact; lo carries the rest. r = hi − lo.
        let c_hi = k.f(b, -LN2_HI);
        let hi = k.mul_add(b, o, n, c_hi, x);
        let c_lo = k.f(b, LN2_LO);
        let lo = b.ins().fmul(n, c_lo);
        let lo = b.ins().fsub(lo, extra);
        let r = b.ins().fsub(hi, lo);
        let rr = b.ins().fmul(r, r);
        let p = k.poly(b, o, rr, &FDLIBM_EXP_P);
        let rrp = b.ins().fmul(rr, p);
        let c = b.ins().fsub(r, rrp); // c = r − r²·P(r²)
        // e^r = 1 − ((lo − r·c/(2 − c)) − hi)
        let two = k.f(b, 2.0);
        let rc = b.ins().fmul(r, c);
        let den = b.ins().fsub(two, c);
        let q = b.ins().fdiv(rc, den);
        let u = b.ins().fsub(lo, q);
        let u = b.ins().fsub(u, hi);
        let one = k.f(b, 1.0);
        b.ins().fsub(one, u)
    } else {
        let c1 = k.f(b, -CEPHES_LN2_HI);
        let r = k.mul_add(b, o, n, c1, x);
        let c2 = k.f(b, -CEPHES_LN2_LO);
        let r = k.mul_add(b, o, n, c2, r);
        let r = b.ins().fadd(r, extra);
        let rr = b.ins().fmul(r, r);
        let p = k.poly(b, o, r, &CEPHES_EXP_P);
        // e^r = 1 + r + r²·P(r)
        let one = k.f(b, 1.0);
        let r1 = b.ins().fadd(r, one);
        k.mul_add(b, o, p, rr, r1)
    };
    k.ldexp(b, y, n)
}

// fdlibm expm1 kernel coefficients (musl `expm1.c`, `expm1f.c`).
const EXPM1_Q_F64: [f64; 5] = [
    -2.01099218183624371326e-07,
    4.00821782732936239552e-06,
    -7.93650757867487942473e-05,
    1.58730158725481460165e-03,
    -3.33333333333331316428e-02,
];
const EXPM1_Q_F32: [f64; 2] = [1.5807170421e-3, -3.3333212137e-2];
const EXPM1F_LN2_HI: f64 = 6.9313812256e-01;
const EXPM1F_LN2_LO: f64 = 9.0580006145e-06;

/// `e^x − 1`, accurate near 0. Reduces like exp, evaluates `p = expm1(r)` with the fdlibm
/// kernel, and rebuilds `2^n·p + (2^n − 1)`; for large n the −1 is dropped and the scale is
/// split so that 2^n cannot overflow early. expm1(±0) = ±0.
pub fn expm1(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    // Below lo the result rounds to −1; above hi it overflows.
    let (lo, hi) = if k.is_f64 {
        (-40.0, 710.0)
    } else {
        (-18.0, 89.0)
    };
    let xc = clamp(b, k, x, lo, hi);
    let log2e = k.f(b, LOG2_E);
    let t = b.ins().fmul(xc, log2e);
    let (n, _) = k.round_magic(b, t);
    let (ln2_hi, ln2_lo) = if k.is_f64 {
        (LN2_HI, LN2_LO)
    } else {
        (EXPM1F_LN2_HI, EXPM1F_LN2_LO)
    };
    let c_hi = k.f(b, -ln2_hi);
    let hi_part = k.mul_add(b, o, n, c_hi, xc);
    let c_lo = k.f(b, ln2_lo);
    let lo_part = b.ins().fmul(n, c_lo);
    let r = b.ins().fsub(hi_part, lo_part);
    let p = expm1_kernel(b, o, k, r);
    // Large n: compute 2^(n−s)·(p + 1)·2^s and drop the −1 (it is below half an ULP).
    let big = k.fcmp(b, FloatCC::GreaterThan, n, 64.0);
    let s = if k.is_f64 { 512.0 } else { 64.0 };
    let s_v = k.f(b, s);
    let zero = k.f(b, 0.0);
    let shift = k.select(b, big, s_v, zero);
    let n_small = b.ins().fsub(n, shift);
    let two_n = k.exp2i(b, n_small);
    let minus_one = k.f(b, -1.0);
    let m1 = k.select(b, big, zero, minus_one);
    let t1 = b.ins().fadd(two_n, m1);
    let y = k.mul_add(b, o, two_n, p, t1);
    let scale_big = k.f(b, s.exp2());
    let one = k.f(b, 1.0);
    let scale = k.select(b, big, scale_big, one);
    let y = b.ins().fmul(y, scale);
    // Keep the sign of zero.
    let is_zero = k.fcmp(b, FloatCC::Equal, x, 0.0);
    k.select(b, is_zero, x, y)
}

/// fdlibm's expm1 on |r| ≤ ln2/2: `r − (r·e − hxs)` with `hxs = r²/2` and a rational `e`.
fn expm1_kernel(b: &mut FunctionBuilder, o: &MathOptions, k: Kind, r: Value) -> Value {
    let half = k.f(b, 0.5);
    let hfx = b.ins().fmul(r, half);
    let hxs = b.ins().fmul(r, hfx);
    let q: &[f64] = if k.is_f64 { &EXPM1_Q_F64 } else { &EXPM1_Q_F32 };
    let mut coeffs = q.to_vec();
    coeffs.push(1.0);
    let r1 = k.poly(b, o, hxs, &coeffs); // 1 + hxs·(Q1 + hxs·(Q2 + …))
    let three = k.f(b, 3.0);
    let r1h = b.ins().fmul(r1, hfx);
    let t = b.ins().fsub(three, r1h);
    let six = k.f(b, 6.0);
    let rt = b.ins().fmul(r, t);
    let den = b.ins().fsub(six, rt);
    let num = b.ins().fsub(r1, t);
    let q = b.ins().fdiv(num, den);
    let e = b.ins().fmul(hxs, q);
    let re = b.ins().fmul(r, e);
    let u = b.ins().fsub(re, hxs);
    b.ins().fsub(r, u)
}

/// Eigen/Cephes logf polynomial for log(1+f) − f + f²/2 over f³, f in [√½−1, √2−1).
const CEPHES_LOG_P: [f64; 9] = [
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
];
/// fdlibm log: R(z) = z·(Lg1 + z·(Lg2 + …)), z = s², s = f/(2+f).
const FDLIBM_LOG_LG: [f64; 7] = [
    1.479819860511658591e-01,
    1.531383769920937332e-01,
    1.818357216161805012e-01,
    2.222219843214978396e-01,
    2.857142874366239149e-01,
    3.999999999940941908e-01,
    6.666666666666735130e-01,
];

/// `x = 2^e · (1 + f)` with 1 + f in [√½, √2): returns `(e as float, f)`. Denormal inputs are
/// scaled up first so their exponent is right. Only meaningful for finite x > 0.
pub(super) fn log_reduce(b: &mut FunctionBuilder, k: Kind, x: Value) -> (Value, Value) {
    let (min_normal, up_bits) = if k.is_f64 {
        (f64::MIN_POSITIVE, 54.0)
    } else {
        (F32_MIN_NORMAL, 25.0)
    };
    let den = k.fcmp(b, FloatCC::LessThan, x, min_normal);
    let up = k.f(b, f64::exp2(up_bits));
    let xs = b.ins().fmul(x, up);
    let xs = k.select(b, den, xs, x);
    let e_adj_v = k.f(b, -up_bits);
    let zero = k.f(b, 0.0);
    let e_adj = k.select(b, den, e_adj_v, zero);
    // Exponent e0 with the mantissa put in [0.5, 1): x = 2^e0 · m.
    let bits = k.to_bits(b, xs);
    let mb = k.mantissa_bits();
    let sh = b.ins().iconst(cranelift_codegen::ir::types::I32, mb);
    let biased = b.ins().ushr(bits, sh);
    // e0 = biased − (bias − 1); as a float through the magic add (no int→float convert).
    let magic_f = 1.5 * k.two_pow_mantissa();
    let magic_bits = if k.is_f64 {
        magic_f.to_bits() as i64
    } else {
        (magic_f as f32).to_bits() as i64
    };
    let off = k.i(b, magic_bits - (k.bias() - 1));
    let e_bits = b.ins().iadd(biased, off);
    let e_f = k.bits_to_float(b, e_bits);
    let magic = k.f(b, magic_f);
    let e0 = b.ins().fsub(e_f, magic);
    let e0 = b.ins().fadd(e0, e_adj);
    let mant_mask = k.i(b, (1i64 << mb) - 1);
    let half_bits = k.i(b, (k.bias() - 1) << mb);
    let m = b.ins().band(bits, mant_mask);
    let m = b.ins().bor(m, half_bits);
    let m = k.bits_to_float(b, m);
    // m < √½: use 2m and e − 1 so that m lands in [√½, √2).
    let small = k.fcmp(b, FloatCC::LessThan, m, std::f64::consts::FRAC_1_SQRT_2);
    let m2 = b.ins().fadd(m, m);
    let m = k.select(b, small, m2, m);
    let one = k.f(b, 1.0);
    let e_m1 = b.ins().fsub(e0, one);
    let e = k.select(b, small, e_m1, e0);
    let f = b.ins().fsub(m, one);
    (e, f)
}

/// Natural logarithm. log(0) = −inf, log(x < 0) = NaN, log(+inf) = +inf, log(NaN) = NaN.
pub fn log(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    let (e, f) = log_reduce(b, k, x);
    let y = if k.is_f64 {
        // log(1+f) = f − hfsq + s·(hfsq + R(s²)) with s = f/(2+f), hfsq = f²/2.
        let two = k.f(b, 2.0);
        let den = b.ins().fadd(two, f);
        let s = b.ins().fdiv(f, den);
        let z = b.ins().fmul(s, s);
        let p = k.poly(b, o, z, &FDLIBM_LOG_LG);
        let r = b.ins().fmul(z, p);
        let half = k.f(b, 0.5);
        let hf = b.ins().fmul(f, half);
        let hfsq = b.ins().fmul(hf, f);
        let t = b.ins().fadd(hfsq, r);
        let st = b.ins().fmul(s, t);
        let lo = k.f(b, LN2_LO);
        let elo = k.mul_add(b, o, e, lo, st);
        let u = b.ins().fsub(elo, hfsq);
        let u = b.ins().fadd(u, f);
        let hi = k.f(b, LN2_HI);
        k.mul_add(b, o, e, hi, u)
    } else {
        // Eigen plog_float: f + (f³·P(f) − f²/2 + e·q1) + e·q2.
        let z = b.ins().fmul(f, f);
        let p = k.poly(b, o, f, &CEPHES_LOG_P);
        let f3 = b.ins().fmul(z, f);
        let y = b.ins().fmul(p, f3);
        let q1 = k.f(b, CEPHES_LN2_LO);
        let y = k.mul_add(b, o, e, q1, y);
        let half = k.f(b, -0.5);
        let y = k.mul_add(b, o, z, half, y);
        let y = b.ins().fadd(f, y);
        let q2 = k.f(b, CEPHES_LN2_HI);
        k.mul_add(b, o, e, q2, y)
    };
    log_specials(b, k, x, y)
}

/// The special cases shared by log and log1p's inner log.
fn log_specials(b: &mut FunctionBuilder, k: Kind, x: Value, y: Value) -> Value {
    let nan = k.f(b, f64::NAN);
    let ok = k.fcmp(b, FloatCC::GreaterThanOrEqual, x, 0.0); // false for x < 0 and NaN
    let y = k.select(b, ok, y, nan);
    let x_nan = b.ins().fcmp(FloatCC::Unordered, x, x);
    let y = k.select(b, x_nan, x, y);
    let is_zero = k.fcmp(b, FloatCC::Equal, x, 0.0);
    let ninf = k.f(b, f64::NEG_INFINITY);
    let y = k.select(b, is_zero, ninf, y);
    let is_inf = k.fcmp(b, FloatCC::Equal, x, f64::INFINITY);
    let inf = k.f(b, f64::INFINITY);
    k.select(b, is_inf, inf, y)
}

/// `log(1 + x)`, accurate near 0: Kahan's `log(u)·(x/(u − 1))` with `u = 1 + x` corrects the
/// rounding of u; `u == 1` returns x itself (so log1p(±0) = ±0). log1p(−1) = −inf.
pub fn log1p(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    let one = k.f(b, 1.0);
    let u = b.ins().fadd(one, x);
    let lu = log(b, o, u);
    let um1 = b.ins().fsub(u, one);
    let ratio = b.ins().fdiv(x, um1);
    let y = b.ins().fmul(lu, ratio);
    let u_is_one = k.fcmp(b, FloatCC::Equal, u, 1.0);
    let y = k.select(b, u_is_one, x, y);
    let is_inf = k.fcmp(b, FloatCC::Equal, x, f64::INFINITY);
    k.select(b, is_inf, x, y)
}

/// `logistic(x) = 1 / (1 + e^−x)`, XLA's expansion of HLO `logistic`.
pub fn logistic(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    let nx = b.ins().fneg(x);
    let e = exp(b, o, nx);
    let one = k.f(b, 1.0);
    let d = b.ins().fadd(one, e);
    b.ins().fdiv(one, d)
}

/// Clamps x into [lo, hi] with compare+select; NaN passes through unchanged.
pub(super) fn clamp(b: &mut FunctionBuilder, k: Kind, x: Value, lo: f64, hi: f64) -> Value {
    let hi_v = k.f(b, hi);
    let over = b.ins().fcmp(FloatCC::GreaterThan, x, hi_v);
    let x = k.select(b, over, hi_v, x);
    let lo_v = k.f(b, lo);
    let under = b.ins().fcmp(FloatCC::LessThan, x, lo_v);
    k.select(b, under, lo_v, x)
}
