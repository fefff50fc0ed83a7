//! sin, cos, tan and atan2 as inline CLIF for f32, f64, f32x4 and f64x2.
//!
//! All four run an f64 algorithm (f32 lanes are promoted, computed and rounded once, see
//! `with_f64`), so the f32 results are within about half an ULP.
//!
//! sin/cos/tan: `x = n·π/2 + r` with n rounded by the magic-number add and π/2 split in three
//! 33-bit parts plus a tail (fdlibm's `rem_pio2` "medium" path, musl): `n·part` is exact for
//! |n| < 2^20, i.e. |x| ≲ 1.6e6. The fdlibm kernels give sin r and cos r on |r| ≤ π/4; the
//! quadrant `n mod 4` swaps and negates them. Beyond 1.6e6 the reduction is not exact and
//! results are not meaningful (sin/cos are kept in [−1, 1]); XLA's libm calls do a
//! Payne–Hanek reduction there instead.
//!
//! atan2: the octant is reduced with |y|/|x| or |x|/|y| (whichever is ≤ 1), then to
//! |t| ≤ tan(π/8) with (t − 1)/(t + 1), where fdlibm's atan polynomial (11 coefficients)
//! applies; π/4, π/2 and π are added back with hi/lo constants. Zeros, infinities and signs
//! follow C99 `atan2`.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, Value, types};
use cranelift_frontend::FunctionBuilder;

use super::{Kind, MathOptions, copysign, with_f64};

const INV_PIO2: f64 = std::f64::consts::FRAC_2_PI;
const PIO2_1: f64 = 1.57079632673412561417e+00;
const PIO2_2: f64 = 6.07710050630396597660e-11;
const PIO2_3: f64 = 2.02226624871116645580e-21;
const PIO2_3T: f64 = 8.47842766036889956997e-32;

/// fdlibm `__sin` (musl k_sin.c): sin r = r + r³·(S1 + z·(S2 + …)), highest first.
const SIN_S: [f64; 6] = [
    1.58969099521155010221e-10,
    -2.50507602534068634195e-08,
    2.75573137070700676789e-06,
    -1.98412698298579493134e-04,
    8.33333333332248946124e-03,
    -1.66666666666666324348e-01,
];
/// fdlibm `__cos` (musl k_cos.c): cos r = 1 − z/2 + z²·(C1 + z·(C2 + …)), highest first.
const COS_C: [f64; 6] = [
    -1.13596475577881948265e-11,
    2.08757232129817482790e-09,
    -2.75573143513906633035e-07,
    2.48015872894767294178e-05,
    -1.38888888888741095749e-03,
    4.16666666666666019037e-02,
];

/// Sine; sin(±0) = ±0, sin(±inf) = NaN.
pub fn sin(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let o = *o;
    with_f64(b, &[x], &move |b, a| sin_cos_tan(b, &o, a[0], Which::Sin))
}

/// Cosine; cos(±inf) = NaN.
pub fn cos(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let o = *o;
    with_f64(b, &[x], &move |b, a| sin_cos_tan(b, &o, a[0], Which::Cos))
}

/// Tangent (as sin r / cos r of the reduced argument); tan(±0) = ±0, tan(±inf) = NaN.
pub fn tan(b: &mut FunctionBuilder, o: &MathOptions, x: Value) -> Value {
    let o = *o;
    with_f64(b, &[x], &move |b, a| sin_cos_tan(b, &o, a[0], Which::Tan))
}

#[derive(Clone, Copy, PartialEq)]
enum Which {
    Sin,
    Cos,
    Tan,
}

fn sin_cos_tan(b: &mut FunctionBuilder, o: &MathOptions, x: Value, which: Which) -> Value {
    let k = Kind::of(b, x);
    // n = round(x·2/π); `bits & 3` is n mod 4.
    let inv = k.f(b, INV_PIO2);
    let t = b.ins().fmul(x, inv);
    let (n, nbits) = k.round_magic(b, t);
    // r = x − n·π/2 with π/2 = PIO2_1 + PIO2_2 + PIO2_3 + PIO2_3T (the first three products
    // are exact, and the subtractions too as long as they cancel).
    let mut r = x;
    for c in [PIO2_1, PIO2_2, PIO2_3, PIO2_3T] {
        let cv = k.f(b, -c);
        r = k.mul_add(b, o, n, cv, r);
    }
    // Out-of-range inputs (|x| ≳ 2^51) leave a large r; keep the kernels on something finite.
    let ra = b.ins().fabs(r);
    let wild = k.fcmp(b, FloatCC::GreaterThan, ra, 1.0);
    let zero = k.f(b, 0.0);
    let r = k.select(b, wild, zero, r);

    let z = b.ins().fmul(r, r);
    // sin r = r + (r·z)·(S1 + z·(S2 + …))
    let ps = k.poly(b, o, z, &SIN_S);
    let rz = b.ins().fmul(r, z);
    let s = k.mul_add(b, o, rz, ps, r);
    // cos r = w + (((1 − w) − z/2) + z·(z·C(z))), w = 1 − z/2 (fdlibm's rounding-aware form)
    let pc = k.poly(b, o, z, &COS_C);
    let zz = b.ins().fmul(z, z);
    let zr = b.ins().fmul(zz, pc);
    let half = k.f(b, 0.5);
    let hz = b.ins().fmul(z, half);
    let one = k.f(b, 1.0);
    let w = b.ins().fsub(one, hz);
    let u = b.ins().fsub(one, w);
    let u = b.ins().fsub(u, hz);
    let u = b.ins().fadd(u, zr);
    let c = b.ins().fadd(w, u);

    let q = match which {
        Which::Cos => {
            let one_i = k.i(b, 1);
            b.ins().iadd(nbits, one_i)
        }
        _ => nbits,
    };
    let one_i = k.i(b, 1);
    let odd_bits = b.ins().band(q, one_i);
    let zero_i = k.i(b, 0);
    let odd = b.ins().icmp(IntCC::NotEqual, odd_bits, zero_i);
    let res = match which {
        Which::Tan => {
            // tan = s/c in even quadrants, −c/s in odd ones.
            let num = k.select(b, odd, c, s);
            let den = k.select(b, odd, s, c);
            let t = b.ins().fdiv(num, den);
            let nt = b.ins().fneg(t);
            k.select(b, odd, nt, t)
        }
        _ => {
            // Quadrants 1 and 3 use the other kernel; quadrants 2 and 3 negate.
            let v = k.select(b, odd, c, s);
            let two_i = k.i(b, 2);
            let neg = b.ins().band(q, two_i);
            let sh = b.ins().iconst(types::I32, 62);
            let sign = b.ins().ishl(neg, sh);
            let vb = k.to_bits(b, v);
            let vb = b.ins().bxor(vb, sign);
            let v = k.bits_to_float(b, vb);
            // Keep |result| ≤ 1 even for inputs the reduction cannot handle.
            let lo = k.f(b, -1.0);
            let hi = k.f(b, 1.0);
            let over = b.ins().fcmp(FloatCC::GreaterThan, v, hi);
            let v = k.select(b, over, hi, v);
            let under = b.ins().fcmp(FloatCC::LessThan, v, lo);
            k.select(b, under, lo, v)
        }
    };
    if which == Which::Cos {
        res
    } else {
        // sin and tan are odd: keep ±0.
        let is_zero = k.fcmp(b, FloatCC::Equal, x, 0.0);
        k.select(b, is_zero, x, res)
    }
}

/// fdlibm atan (musl atan.c) on |t| < 7/16: t − t·(s1 + s2), highest first.
const AT_EVEN: [f64; 6] = [
    1.62858201153657823623e-02,
    4.97687799461593236017e-02,
    6.66107313738753120669e-02,
    9.09088713343650656196e-02,
    1.42857142725034663711e-01,
    3.33333333333329318027e-01,
];
const AT_ODD: [f64; 5] = [
    -3.65315727442169155270e-02,
    -5.83357013379057348645e-02,
    -7.69187620504482999495e-02,
    -1.11111104054623557880e-01,
    -1.99999999998764832476e-01,
];
// fdlibm's hi parts are the doubles nearest π/4, π/2, π: Rust's constants.
const PIO4_HI: f64 = std::f64::consts::FRAC_PI_4;
const PIO4_LO: f64 = 3.06161699786838301793e-17;
const PIO2_HI: f64 = std::f64::consts::FRAC_PI_2;
const PIO2_LO: f64 = 6.12323399573676603587e-17;
const PI_HI: f64 = std::f64::consts::PI;
const PI_LO: f64 = 1.2246467991473532e-16;
const TAN_PI_8: f64 = 0.41421356237309503;

/// `atan2(y, x)`: the angle of the point (x, y), in [−π, π], with C99's rules for zeros
/// (atan2(±0, −0) = ±π), infinities (atan2(±inf, −inf) = ±3π/4) and NaN.
pub fn atan2(b: &mut FunctionBuilder, o: &MathOptions, y: Value, x: Value) -> Value {
    let o = *o;
    with_f64(b, &[y, x], &move |b, a| atan2_f64(b, &o, a[0], a[1]))
}

fn atan2_f64(b: &mut FunctionBuilder, o: &MathOptions, y: Value, x: Value) -> Value {
    let k = Kind::of(b, x);
    let ax = b.ins().fabs(x);
    let ay = b.ins().fabs(y);
    // t = min/max ≤ 1. NaN in either operand makes t NaN (the compare is false).
    let swap = b.ins().fcmp(FloatCC::GreaterThan, ay, ax);
    let mx = k.select(b, swap, ay, ax);
    let mn = k.select(b, swap, ax, ay);
    let t = b.ins().fdiv(mn, mx);
    let zero = k.f(b, 0.0);
    let sum = b.ins().fadd(ax, ay); // 0 only when both are ±0 (NaN: false)
    let both_zero = k.fcmp(b, FloatCC::Equal, sum, 0.0);
    let t = k.select(b, both_zero, zero, t);
    let inf = k.f(b, f64::INFINITY);
    let x_inf = b.ins().fcmp(FloatCC::Equal, ax, inf);
    let y_inf = b.ins().fcmp(FloatCC::Equal, ay, inf);
    let both_inf = b.ins().band(x_inf, y_inf);
    let one = k.f(b, 1.0);
    let t = k.select(b, both_inf, one, t);

    // t > tan(π/8): atan t = π/4 + atan((t − 1)/(t + 1)).
    let big = k.fcmp(b, FloatCC::GreaterThan, t, TAN_PI_8);
    let tm = b.ins().fsub(t, one);
    let tp = b.ins().fadd(t, one);
    let tr = b.ins().fdiv(tm, tp);
    let t2 = k.select(b, big, tr, t);
    let z = b.ins().fmul(t2, t2);
    let w = b.ins().fmul(z, z);
    let pe = k.poly(b, o, w, &AT_EVEN);
    let s1 = b.ins().fmul(z, pe);
    let po = k.poly(b, o, w, &AT_ODD);
    let s2 = b.ins().fmul(w, po);
    let s = b.ins().fadd(s1, s2);
    let ts = b.ins().fmul(t2, s);
    let a = b.ins().fsub(t2, ts);
    let a = add_hi_lo(b, k, a, PIO4_HI, PIO4_LO, big, false);
    // |y| > |x|: π/2 − a. x negative (or −0): π − a.
    let a = add_hi_lo(b, k, a, PIO2_HI, PIO2_LO, swap, true);
    let x_neg = k.sign_set(b, x);
    let a = add_hi_lo(b, k, a, PI_HI, PI_LO, x_neg, true);
    copysign(b, a, y)
}

/// `cond ? (hi + lo) ± a : a`, computed as `hi + (lo ± a)` to keep the low bits.
fn add_hi_lo(
    b: &mut FunctionBuilder,
    k: Kind,
    a: Value,
    hi: f64,
    lo: f64,
    cond: Value,
    subtract: bool,
) -> Value {
    let hi_v = k.f(b, hi);
    let lo_v = k.f(b, lo);
    let inner = if subtract {
        b.ins().fsub(lo_v, a)
    } else {
        b.ins().fadd(lo_v, a)
    };
    let v = b.ins().fadd(hi_v, inner);
    k.select(b, cond, v, a)
}
