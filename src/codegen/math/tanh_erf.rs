//! tanh and erf as inline CLIF for f32, f64, f32x4 and f64x2.
//!
//! tanh, f32: XLA:CPU's (Eigen's) odd rational of degree 13/6 clamped at ±7.905: one divide
//! and about 20 instructions, max 5 ULP (at the clamp, where it returns ±1 a few ULP early).
//! It replaced the expm1 form below for f32 because the gelu and elementwise benchmarks
//! spent most of their time in tanh. tanh, f64: `tanh(|x|) = e/(e + 2)` with
//! `e = expm1(2|x|)`, then the sign of x, accurate near 0 (e ≈ 2|x|) and for large |x|
//! alike, with ~3 roundings on top of expm1's error.
//!
//! erf: fdlibm's four intervals (musl `erf.c`), made branch-free: every interval is
//! evaluated and selects pick the lane's answer. f32 runs the same f64 algorithm on promoted
//! lanes (`with_f64`), so both types get the fdlibm accuracy.
//! XLA: `xla/codegen/intrinsic/tanh.cc`, `erf.cc`.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::exp_log::{clamp, exp, expm1};
use super::{Kind, MathOptions, copysign, with_f64};

/// Eigen's float tanh (`generic_fast_tanh_float`, XLA:CPU's f32 tanh): `x·P(x²)/Q(x²)`
/// on x clamped to ±7.90531 (where it rounds to ±1), odd numerator of degree 13, even
/// denominator of degree 6, highest degree first; |x| < 0.0004 returns x.
pub(crate) const EIGEN_TANH_CLAMP: f64 = 7.90531110763549805;
pub(crate) const EIGEN_TANH_P: [f64; 7] = [
    -2.76076847742355e-16,
    2.00018790482477e-13,
    -8.60467152213735e-11,
    5.12229709037114e-08,
    1.48572235717979e-05,
    6.37261928875436e-04,
    4.89352455891786e-03,
];
pub(crate) const EIGEN_TANH_Q: [f64; 4] = [
    1.19825839466702e-06,
    1.18534705686654e-04,
    2.26843463243900e-03,
    4.89352518554385e-03,
];

/// Hyperbolic tangent; tanh(±0) = ±0, tanh(±inf) = ±1, NaN → NaN.
pub fn tanh(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    if !k.is_f64 {
        // f32: Eigen's rational, about a third of the instructions of the expm1 form
        // (one divide instead of two) and XLA's own results.
        let c = clamp(b, k, x, -EIGEN_TANH_CLAMP, EIGEN_TANH_CLAMP);
        let c2 = b.ins().fmul(c, c);
        let p = k.poly(b, o, c2, &EIGEN_TANH_P);
        let p = b.ins().fmul(c, p);
        let q = k.poly(b, o, c2, &EIGEN_TANH_Q);
        let t = b.ins().fdiv(p, q);
        let a = b.ins().fabs(x);
        let tiny_v = k.f(b, 0.0004);
        let tiny = b.ins().fcmp(FloatCC::LessThan, a, tiny_v);
        let t = k.select(b, tiny, x, t);
        // Beyond the clamp exactly ±1 (the rational's value there is a few ULP short with
        // FMA); NaN fails the compare and stays NaN.
        let clamp_v = k.f(b, EIGEN_TANH_CLAMP);
        let big = b.ins().fcmp(FloatCC::GreaterThanOrEqual, a, clamp_v);
        let one = k.f(b, 1.0);
        let one = copysign(b, one, x);
        return k.select(b, big, one, t);
    }
    let a = b.ins().fabs(x);
    // tanh rounds to 1 beyond 9 (f32) / 19.1 (f64); the clamp keeps expm1 finite.
    let cap = if k.is_f64 { 20.0 } else { 9.0 };
    let a = clamp(b, k, a, 0.0, cap);
    let a2 = b.ins().fadd(a, a);
    let e = expm1(b, o, a2);
    let two = k.f(b, 2.0);
    let d = b.ins().fadd(e, two);
    let t = b.ins().fdiv(e, d);
    copysign(b, t, x)
}

// fdlibm erf coefficients (musl erf.c). Highest degree first, as `Kind::poly` wants them.
const ERX: f64 = 8.45062911510467529297e-01;
/// |x| < 0.84375: erf(x) = x + x·PP(z)/QQ(z), z = x².
const PP: [f64; 5] = [
    -2.37630166566501626084e-05,
    -5.77027029648944159157e-03,
    -2.84817495755985104766e-02,
    -3.25042107247001499370e-01,
    1.28379167095512558561e-01,
];
const QQ: [f64; 6] = [
    -3.96022827877536812320e-06,
    1.32494738004321644526e-04,
    5.08130628187576562776e-03,
    6.50222499887672944485e-02,
    3.97917223959155352819e-01,
    1.0,
];
/// 0.84375 ≤ |x| < 1.25: erf(x) = erx + PA(s)/QA(s), s = |x| − 1.
const PA: [f64; 7] = [
    -2.16637559486879084300e-03,
    3.54783043256182359371e-02,
    -1.10894694282396677476e-01,
    3.18346619901161753674e-01,
    -3.72207876035701323847e-01,
    4.14856118683748331666e-01,
    -2.36211856075265944077e-03,
];
const QA: [f64; 7] = [
    1.19844998467991074170e-02,
    1.36370839120290507362e-02,
    1.26171219808761642112e-01,
    7.18286544141962662868e-02,
    5.40397917702171048937e-01,
    1.06420880400844228286e-01,
    1.0,
];
/// 1.25 ≤ |x| < 1/0.35: erfc(x) = exp(−x² − 0.5625 + RA(s)/SA(s))/|x|, s = 1/x².
const RA: [f64; 8] = [
    -9.81432934416914548592e+00,
    -8.12874355063065934246e+01,
    -1.84605092906711035994e+02,
    -1.62396669462573470355e+02,
    -6.23753324503260060396e+01,
    -1.05586262253232909814e+01,
    -6.93858572707181764372e-01,
    -9.86494403484714822705e-03,
];
const SA: [f64; 9] = [
    -6.04244152148580987438e-02,
    6.57024977031928170135e+00,
    1.08635005541779435134e+02,
    4.29008140027567833386e+02,
    6.45387271733267880336e+02,
    4.34565877475229228821e+02,
    1.37657754143519042600e+02,
    1.96512716674392571292e+01,
    1.0,
];
/// 1/0.35 ≤ |x| < 6: the same form with RB/SB (padded with a leading 0 to RA/SA's degree).
const RB: [f64; 8] = [
    0.0,
    -4.83519191608651397019e+02,
    -1.02509513161107724954e+03,
    -6.37566443368389627722e+02,
    -1.60636384855821916062e+02,
    -1.77579549177547519889e+01,
    -7.99283237680523006574e-01,
    -9.86494292470009928597e-03,
];
const SB: [f64; 9] = [
    0.0,
    -2.24409524465858183362e+01,
    4.74528541206955367215e+02,
    2.55305040643316442583e+03,
    3.19985821950859553908e+03,
    1.53672958608443695994e+03,
    3.25792512996573918826e+02,
    3.03380607434824582924e+01,
    1.0,
];

/// The error function; erf(±0) = ±0, erf(±inf) = ±1, NaN → NaN.
pub fn erf(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let o = *o;
    with_f64(b, &[x], &move |b, a| erf_f64(b, &o, a[0]))
}

fn erf_f64(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    let a = b.ins().fabs(x);
    let one = k.f(b, 1.0);

    // |x| < 0.84375: x + x·P/Q (keeps the sign and −0).
    let z = b.ins().fmul(x, x);
    let p = k.poly(b, o, z, &PP);
    let q = k.poly(b, o, z, &QQ);
    let y = b.ins().fdiv(p, q);
    let small = k.mul_add(b, o, x, y, x);

    // 0.84375 ≤ |x| < 1.25: erx + P/Q of s = |x| − 1.
    let s = b.ins().fsub(a, one);
    let p = k.poly(b, o, s, &PA);
    let q = k.poly(b, o, s, &QA);
    let pq = b.ins().fdiv(p, q);
    let erx = k.f(b, ERX);
    let mid = b.ins().fadd(erx, pq);

    // 1.25 ≤ |x| < 6: 1 − exp(−z² − 0.5625 + (z − a)(z + a) + R/S)/a, where z is a with its
    // low 32 bits cleared so that z² is exact. Coefficients switch at 1/0.35 per lane.
    let ac = clamp(b, k, a, 1.0, 6.0);
    let acc = b.ins().fmul(ac, ac);
    let s = b.ins().fdiv(one, acc);
    let near = k.fcmp(b, FloatCC::LessThan, ac, 1.0 / 0.35);
    let r = select_poly(b, o, k, s, near, &RA, &RB);
    let sv = select_poly(b, o, k, s, near, &SA, &SB);
    let rs = b.ins().fdiv(r, sv);
    let bits = k.to_bits(b, ac);
    let hi_mask = k.i(b, -1i64 << 32);
    let zb = b.ins().band(bits, hi_mask);
    let zz = k.bits_to_float(b, zb);
    let zsq = b.ins().fmul(zz, zz);
    let d1 = b.ins().fsub(zz, ac);
    let d2 = b.ins().fadd(zz, ac);
    let d = b.ins().fmul(d1, d2);
    let c0 = k.f(b, -0.5625);
    let arg = b.ins().fsub(c0, zsq);
    let corr = b.ins().fadd(d, rs);
    let arg = b.ins().fadd(arg, corr);
    let e = exp(b, o, arg);
    let erfc = b.ins().fdiv(e, ac);
    let tail = b.ins().fsub(one, erfc);

    // Pick the interval; |x| ≥ 6 (and inf) gives 1. NaN falls through to `small` (NaN).
    let lt_125 = k.fcmp(b, FloatCC::LessThan, a, 1.25);
    let r = k.select(b, lt_125, mid, tail);
    let ge6 = k.fcmp(b, FloatCC::GreaterThanOrEqual, a, 6.0);
    let r = k.select(b, ge6, one, r);
    let r = copysign(b, r, x);
    let is_small = k.fcmp(b, FloatCC::GreaterThanOrEqual, a, 0.84375);
    k.select(b, is_small, r, small)
}

/// Horner with per-lane coefficients: `cond ? ca : cb` picked for each term.
fn select_poly(
    b: &mut FunctionBuilder,
    o: &MathOptions,
    k: Kind,
    x: Value,
    cond: Value,
    ca: &[f64],
    cb: &[f64],
) -> Value {
    let coeff = |b: &mut FunctionBuilder, i: usize| {
        let va = k.f(b, ca[i]);
        let vb = k.f(b, cb[i]);
        k.select(b, cond, va, vb)
    };
    let mut acc = coeff(b, 0);
    for i in 1..ca.len() {
        let c = coeff(b, i);
        acc = k.mul_add(b, o, acc, x, c);
    }
    acc
}
