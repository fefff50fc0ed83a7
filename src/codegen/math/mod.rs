//! The CLIF math library: exp, log, tanh, erf, sin, ... as inline straight-line code that works
//! on scalars (`f32`, `f64`) and vectors (`f32x4`, `f64x2`) alike. Cranelift has no
//! transcendental instructions, and a libcall per lane inside a vector loop spills every
//! vector register, so every function here is emitted inline with a `FunctionBuilder`
//! (a libcall would take scalars only). There are no libcalls and no trapping instructions:
//! special inputs are handled with compares and selects, never with branches.
//!
//! XLA: `xla/codegen/intrinsic/` (exp, log1p, tanh, erf, rsqrt) and
//! `xla/backends/cpu/codegen/polynomial_approximations.cc` (Cephes exp, Eigen/Cephes log).
//! The methods are the classic ones, chosen per function:
//!
//! | function | f32 | f64 |
//! |---|---|---|
//! | exp | Cephes: Cody–Waite reduction, degree-7 polynomial | fdlibm: Cody–Waite, rational `r·c/(2−c)` |
//! | expm1 | fdlibm kernel (Q1, Q2) + `2^n·p + (2^n − 1)` | same, Q1..Q5 |
//! | log | Eigen/Cephes: mantissa in [√½, √2), degree-8 polynomial | fdlibm `s = f/(2+f)`, Lg1..Lg7 |
//! | log1p | Kahan: `log(u)·x/(u−1)`, `u = 1+x` | same |
//! | tanh | Eigen's rational `x·P(x²)/Q(x²)` clamped at ±7.905 (XLA's) | `e/(e+2)` with `e = expm1(2·abs(x))` |
//! | logistic | `1/(1+exp(−x))` (XLA's expansion) | same |
//! | erf, sin, cos, tan, atan2, cbrt, pow | the f64 algorithm on promoted lanes, rounded once | fdlibm methods, branch-free |
//! | sqrt, rsqrt | the `sqrt` instruction, `1/sqrt` | same |
//!
//! The 2^n scale factor is written into the exponent bits (no int↔float conversion
//! instruction is needed: `n + 1.5·2^23` holds `n` in its low mantissa bits), and rounding
//! to an integer uses the same "magic number" add, so nothing here needs SSE4.1's `roundps`
//! (which would be a libcall on older x86) or the f64x2→i64x2 convert that x64 lacks.
//! Results that would be denormal are computed as denormals (XLA:CPU would flush them; the
//! tests accept either).
//!
//! Accuracy, measured by `tests/`: max ULP error over 20k–100k points per function and
//! type (specials, powers of 2 and 10, log-spaced magnitudes over the whole range, dense
//! ranges at the tricky points), scalar and vector bit-identical, with and without FMA.
//! References: f32 = the f64 std/`libm` function rounded once; f64 = std f64, which is itself
//! within ~1 ULP, so the f64 column includes the reference's own error. Denormal results are
//! compared after flushing both sides to zero.
//!
//! | function | f32 | f64 | tested domain |
//! |---|---|---|---|
//! | exp | 1 | 1 | everything; dense on [−750, 715] |
//! | expm1 | 1 | 2 | everything; dense near 0 and at the overflow threshold |
//! | log | 1 | 1 | everything incl. denormals; dense on [0.5, 2] |
//! | log1p | 2 | 2 | everything; dense near 0 and −1 |
//! | tanh | 5 (at the clamp) | 3 | everything; dense on [−25, 25] |
//! | logistic | 3 | 3 | everything; dense on [−750, 750] |
//! | erf | 0 | 1 | everything; dense on [−7, 7] and the interval edges |
//! | sin, cos | 0 | 2 | \|x\| ≤ 1.6e6, dense near multiples of π/2 |
//! | tan | 0 | 3 | \|x\| ≤ 1.6e6, dense near multiples of π/2 |
//! | atan2 | 0 | 2 | 310×310 grid incl. zeros, infinities, NaN |
//! | pow | 0 | 1 | 31k pairs incl. specials, negative x, \|y·log x\| up to 740 |
//! | cbrt | 0 | 1 | everything incl. denormals |
//! | sqrt | 0 | 0 | everything |
//! | rsqrt | 1 | 0 | everything |
//!
//! (0 for the f32 columns of the f64-backed functions means: correctly rounded on every test
//! point; the tests allow 1.) The exact helpers (`copysign`, `round_nearest_afz`, `max`, `min`,
//! `is_finite`) are checked bit for bit.
//!
//! sin/cos/tan reduce by π/2 with a three-part Cody–Waite constant in f64: exact up to
//! |x| ≈ 2^20·π/2 ≈ 1.6e6. Beyond that the reduction loses bits progressively and results
//! (kept in [−1, 1] for sin/cos) are not meaningful; XLA calls an accurate libm there.
//!
//! Cost: exp/log/tanh/logistic are 30–60 instructions per f32x4 (about 0.5–0.9 KB of x86-64
//! code with constants). The f64-backed f32 functions evaluate two f64x2 halves per f32x4, so
//! they cost about twice their f64x2 version (erf 4.5 KB, pow 3 KB, sin 1.5 KB per f32x4);
//! `tests/isa.rs` prints the sizes for every function and type.
//!
//! Every builder takes a value of type f32, f64, f32x4 or f64x2 and returns one of the same
//! type (binary ones take two of the same type); any other type is a bug in the caller and
//! panics. f16/bf16 are the caller's business (XLA upcasts them to f32).
//!
//! What this module is not: it does not choose between scalar and vector code, and it does not
//! know HLO; the elemental emitter (`codegen/elemental.rs`) calls these builders per op.

// Coefficients keep the digits their sources (fdlibm/musl, Cephes, Eigen) publish, so that
// they can be checked against those sources; the compiler rounds them to the nearest double.
#![allow(clippy::excessive_precision)]

mod exp_log;
mod pow;
mod tanh_erf;
mod trig;

#[cfg(test)]
mod tests;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    ConstantData, Endianness, InstBuilder, MemFlagsData, Type, Value, types,
};
use cranelift_frontend::FunctionBuilder;

/// The f32 exp and tanh coefficients, shared with the native block routines
/// (`codegen/block_math`), which must compute the same bits.
pub(crate) use exp_log::{CEPHES_EXP_P, CEPHES_LN2_HI, CEPHES_LN2_LO};
pub use exp_log::{exp, expm1, log, log1p, logistic};
pub use pow::{cbrt, pow};
pub(crate) use tanh_erf::{EIGEN_TANH_CLAMP, EIGEN_TANH_P, EIGEN_TANH_Q};
pub use tanh_erf::{erf, tanh};
pub use trig::{atan2, cos, sin, tan};

/// What the math library may assume about the target.
#[derive(Clone, Copy, Debug, Default)]
pub struct MathOptions {
    /// The ISA has a native fused multiply-add (`TargetIsa::has_native_fma()`). Without it
    /// Cranelift lowers `fma` to a libcall per lane, so polynomials use `fmul` + `fadd`.
    pub has_fma: bool,
}

/// `sqrt(x)`: the IEEE square root instruction (correctly rounded; sqrt(−0) = −0).
pub fn sqrt(b: &mut FunctionBuilder, _o: &MathOptions, x: Value) -> Value {
    b.ins().sqrt(x)
}

/// `rsqrt(x) = 1/sqrt(x)`: two correctly rounded operations (≤ 1 ULP). rsqrt(±0) = ±inf.
pub fn rsqrt(b: &mut FunctionBuilder, _o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    let s = b.ins().sqrt(x);
    let one = k.f(b, 1.0);
    b.ins().fdiv(one, s)
}

/// `copysign(mag, sign)`: the magnitude of `mag` with the sign bit of `sign`. Written with
/// integer masks because x64 has no vector `fcopysign` lowering.
pub fn copysign(b: &mut FunctionBuilder, mag: Value, sign: Value) -> Value {
    let k = Kind::of(b, mag);
    let m = k.to_bits(b, mag);
    let s = k.to_bits(b, sign);
    let abs_mask = k.i(b, (k.sign_bit() - 1) as i64);
    let sign_mask = k.i(b, k.sign_bit() as i64);
    let m = b.ins().band(m, abs_mask);
    let s = b.ins().band(s, sign_mask);
    let r = b.ins().bor(m, s);
    k.bits_to_float(b, r)
}

/// HLO `round-nearest-afz`: round to the nearest integer, ties away from zero (C `round`).
/// `(|x| + 2^p) − 2^p` rounds |x| to an integer (ties to even) with one add; ties that went
/// down are bumped up by one. |x| ≥ 2^p is already an integer; NaN and ±inf pass through.
pub fn round_nearest_afz(b: &mut FunctionBuilder, x: Value) -> Value {
    let k = Kind::of(b, x);
    let a = b.ins().fabs(x);
    let two_p = k.f(b, k.two_pow_mantissa());
    let t = b.ins().fadd(a, two_p);
    let r = b.ins().fsub(t, two_p);
    let diff = b.ins().fsub(a, r);
    let half = k.f(b, 0.5);
    let tie_down = b.ins().fcmp(FloatCC::Equal, diff, half);
    let one = k.f(b, 1.0);
    let r_up = b.ins().fadd(r, one);
    let r = k.select(b, tie_down, r_up, r);
    let big = b.ins().fcmp(FloatCC::GreaterThanOrEqual, a, two_p);
    let r = k.select(b, big, a, r);
    copysign(b, r, x)
}

/// XLA `maximum`: any NaN operand gives NaN; otherwise the larger, `a` on ties (so
/// max(−0, +0) = −0, like XLA's `(a >= b || isnan(a)) ? a : b`). Cheaper than `fmax` on x86.
pub fn max(b: &mut FunctionBuilder, x: Value, y: Value) -> Value {
    nan_aware_pick(b, x, y, FloatCC::GreaterThanOrEqual)
}

/// XLA `minimum`: any NaN operand gives NaN; otherwise the smaller, `a` on ties.
pub fn min(b: &mut FunctionBuilder, x: Value, y: Value) -> Value {
    nan_aware_pick(b, x, y, FloatCC::LessThanOrEqual)
}

fn nan_aware_pick(b: &mut FunctionBuilder, x: Value, y: Value, cc: FloatCC) -> Value {
    let k = Kind::of(b, x);
    let keep_x = b.ins().fcmp(cc, x, y); // false when either is NaN: gives y (NaN if y is)
    let r = k.select(b, keep_x, x, y);
    let x_nan = b.ins().fcmp(FloatCC::Unordered, x, x);
    k.select(b, x_nan, x, r)
}

/// `is-finite`: true for every value except ±inf and NaN. The result is a comparison result,
/// like `fcmp`: `i8` (0/1) for scalars, an all-ones/all-zeros lane mask (`i32x4`, `i64x2`)
/// for vectors.
pub fn is_finite(b: &mut FunctionBuilder, x: Value) -> Value {
    let k = Kind::of(b, x);
    let a = b.ins().fabs(x);
    let inf = k.f(b, f64::INFINITY);
    b.ins().fcmp(FloatCC::LessThan, a, inf)
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the function files.

/// The float type of a value and the matching integer type, with constant makers that splat
/// for vectors. Every builder starts with `Kind::of(b, x)`.
#[derive(Clone, Copy)]
pub(crate) struct Kind {
    /// `f32`, `f64`, `f32x4` or `f64x2`.
    pub ty: Type,
    /// `i32`, `i64`, `i32x4` or `i64x2`.
    pub ity: Type,
    /// True for `f64` and `f64x2`.
    pub is_f64: bool,
}

impl Kind {
    /// The kind of `x`. Panics on a non-float type: that is a bug in the caller, not bad input.
    pub fn of(b: &FunctionBuilder, x: Value) -> Kind {
        let ty = b.func.dfg.value_type(x);
        let (ity, is_f64) = match ty {
            types::F32 => (types::I32, false),
            types::F64 => (types::I64, true),
            types::F32X4 => (types::I32X4, false),
            types::F64X2 => (types::I64X2, true),
            _ => panic!("math library called on a {ty} value; expects f32, f64, f32x4 or f64x2"),
        };
        Kind { ty, ity, is_f64 }
    }

    /// True for `f32x4` and `f64x2`.
    pub fn is_vector(self) -> bool {
        self.ty.is_vector()
    }

    /// Number of explicit mantissa bits: 23 or 52.
    pub fn mantissa_bits(self) -> i64 {
        if self.is_f64 { 52 } else { 23 }
    }

    /// Exponent bias: 127 or 1023.
    pub fn bias(self) -> i64 {
        if self.is_f64 { 1023 } else { 127 }
    }

    /// The sign bit as an unsigned integer of the lane width.
    pub fn sign_bit(self) -> u64 {
        if self.is_f64 { 1 << 63 } else { 1 << 31 }
    }

    /// 2^23 or 2^52: from here on every float is an integer.
    pub fn two_pow_mantissa(self) -> f64 {
        (self.mantissa_bits() as f64).exp2()
    }

    /// A float constant of this kind (rounded to f32 for f32 kinds), splatted for vectors.
    pub fn f(self, b: &mut FunctionBuilder, v: f64) -> Value {
        let lane = if self.is_f64 {
            b.ins().f64const(v)
        } else {
            b.ins().f32const(v as f32)
        };
        if self.is_vector() {
            b.ins().splat(self.ty, lane)
        } else {
            lane
        }
    }

    /// An integer constant of the matching integer kind (two's complement, truncated to the
    /// lane width), splatted for vectors.
    pub fn i(self, b: &mut FunctionBuilder, v: i64) -> Value {
        let lane = if self.is_f64 {
            b.ins().iconst(types::I64, v)
        } else {
            b.ins().iconst(types::I32, (v as u64 & 0xffff_ffff) as i64)
        };
        if self.is_vector() {
            b.ins().splat(self.ity, lane)
        } else {
            lane
        }
    }

    /// Reinterprets float lanes as integer lanes.
    pub fn to_bits(self, b: &mut FunctionBuilder, x: Value) -> Value {
        b.ins().bitcast(self.ity, MemFlagsData::new(), x)
    }

    /// Reinterprets integer lanes as float lanes.
    pub fn bits_to_float(self, b: &mut FunctionBuilder, x: Value) -> Value {
        b.ins().bitcast(self.ty, MemFlagsData::new(), x)
    }

    /// Per-lane `cond ? t : f`. `cond` is an `fcmp`/`icmp` result of this kind (i8 for
    /// scalars, a lane mask for vectors); `t` and `f` are floats or integers of this kind.
    /// Vectors use `bitselect` (vector `select` needs a scalar condition).
    pub fn select(self, b: &mut FunctionBuilder, cond: Value, t: Value, f: Value) -> Value {
        if self.is_vector() {
            let vty = b.func.dfg.value_type(t);
            let mask = if b.func.dfg.value_type(cond) == vty {
                cond
            } else {
                b.ins().bitcast(vty, MemFlagsData::new(), cond)
            };
            b.ins().bitselect(mask, t, f)
        } else {
            b.ins().select(cond, t, f)
        }
    }

    /// `a*x + c`, fused only when the ISA has a native FMA.
    pub fn mul_add(
        self,
        b: &mut FunctionBuilder,
        o: &MathOptions,
        a: Value,
        x: Value,
        c: Value,
    ) -> Value {
        if o.has_fma {
            b.ins().fma(a, x, c)
        } else {
            let p = b.ins().fmul(a, x);
            b.ins().fadd(p, c)
        }
    }

    /// Horner evaluation of `coeffs[0]·x^(n−1) + … + coeffs[n−1]` (highest degree first).
    pub fn poly(self, b: &mut FunctionBuilder, o: &MathOptions, x: Value, coeffs: &[f64]) -> Value {
        let mut acc = self.f(b, coeffs[0]);
        for &c in &coeffs[1..] {
            let cv = self.f(b, c);
            acc = self.mul_add(b, o, acc, x, cv);
        }
        acc
    }

    /// Rounds `x` to the nearest integer (ties to even) with the magic-number add and
    /// returns `(n, bits)`: `n` as a float, and the integer bits of `x + 1.5·2^p` whose low
    /// bits hold `n` in two's complement (so `bits & 3` is `n mod 4`). Valid for
    /// |x| < 2^(p−1); larger inputs give a wrong but finite `n` (NaN stays NaN).
    pub fn round_magic(self, b: &mut FunctionBuilder, x: Value) -> (Value, Value) {
        let magic = self.f(b, 1.5 * self.two_pow_mantissa());
        let t = b.ins().fadd(x, magic);
        let n = b.ins().fsub(t, magic);
        let bits = self.to_bits(b, t);
        (n, bits)
    }

    /// 2^n for an integer-valued float `n` in the normal exponent range
    /// (−126..=127 for f32, −1022..=1023 for f64), built in the exponent bits.
    pub fn exp2i(self, b: &mut FunctionBuilder, n: Value) -> Value {
        let (_, bits) = self.round_magic(b, n);
        // (bits(n + 1.5·2^p) << p) keeps exactly the low bits of n, shifted into the exponent.
        let sh = b.ins().iconst(types::I32, self.mantissa_bits());
        let e = b.ins().ishl(bits, sh);
        let one = self.i(b, self.bias() << self.mantissa_bits());
        let e = b.ins().iadd(e, one);
        self.bits_to_float(b, e)
    }

    /// `x · 2^n` for integer-valued `n` with |n| up to about 2·bias: the factor is applied
    /// in two halves so that neither is out of range; the second multiply rounds once into
    /// the denormal range or overflows to ±inf, as a true `ldexp` would.
    pub fn ldexp(self, b: &mut FunctionBuilder, x: Value, n: Value) -> Value {
        let half = self.f(b, 0.5);
        let nh = b.ins().fmul(n, half);
        let (n1, _) = self.round_magic(b, nh);
        let n2 = b.ins().fsub(n, n1);
        let s1 = self.exp2i(b, n1);
        let s2 = self.exp2i(b, n2);
        let y = b.ins().fmul(x, s1);
        b.ins().fmul(y, s2)
    }

    /// `x <cc> c` for a float constant `c`: an `fcmp` result usable with [`Kind::select`].
    pub fn fcmp(self, b: &mut FunctionBuilder, cc: FloatCC, x: Value, c: f64) -> Value {
        let cv = self.f(b, c);
        b.ins().fcmp(cc, x, cv)
    }

    /// True when the sign bit of `x` is set (including −0 and negative NaNs).
    pub fn sign_set(self, b: &mut FunctionBuilder, x: Value) -> Value {
        let bits = self.to_bits(b, x);
        let zero = self.i(b, 0);
        b.ins().icmp(IntCC::SignedLessThan, bits, zero)
    }
}

/// Runs an f64 algorithm on `x`. f64/f64x2 values go straight in. f32 values are promoted
/// (exactly), computed in f64 and rounded once; an f32x4 is split into two f64x2 halves and
/// joined again. This gives the f32 versions of the "rare" functions (erf, trig, atan2, cbrt,
/// pow) sub-ULP accuracy for the price of two f64x2 evaluations per f32x4.
pub(crate) fn with_f64(
    b: &mut FunctionBuilder,
    args: &[Value],
    f: &dyn Fn(&mut FunctionBuilder, &[Value]) -> Value,
) -> Value {
    let ty = b.func.dfg.value_type(args[0]);
    match ty {
        types::F64 | types::F64X2 => f(b, args),
        types::F32 => {
            let wide: Vec<Value> = args
                .iter()
                .map(|&a| b.ins().fpromote(types::F64, a))
                .collect();
            let r = f(b, &wide);
            b.ins().fdemote(types::F32, r)
        }
        types::F32X4 => {
            let lo: Vec<Value> = args.iter().map(|&a| b.ins().fvpromote_low(a)).collect();
            let hi: Vec<Value> = args
                .iter()
                .map(|&a| {
                    // Move lanes 2,3 down to 0,1, then promote them.
                    let bytes: Vec<u8> = (8..16).chain(8..16).collect();
                    let moved = shuffle_f32x4(b, a, a, &bytes);
                    b.ins().fvpromote_low(moved)
                })
                .collect();
            let r_lo = f(b, &lo);
            let r_hi = f(b, &hi);
            let d_lo = b.ins().fvdemote(r_lo); // [r0, r1, 0, 0]
            let d_hi = b.ins().fvdemote(r_hi); // [r2, r3, 0, 0]
            let bytes: Vec<u8> = (0..8).chain(16..24).collect();
            shuffle_f32x4(b, d_lo, d_hi, &bytes)
        }
        _ => panic!("math library called on a {ty} value; expects f32, f64, f32x4 or f64x2"),
    }
}

/// Byte shuffle of two f32x4 values (Cranelift's `shuffle` works on i8x16).
fn shuffle_f32x4(b: &mut FunctionBuilder, x: Value, y: Value, bytes: &[u8]) -> Value {
    let le = MemFlagsData::new().with_endianness(Endianness::Little);
    let xb = b.ins().bitcast(types::I8X16, le, x);
    let yb = b.ins().bitcast(types::I8X16, le, y);
    let mask = b.func.dfg.immediates.push(ConstantData::from(bytes));
    let s = b.ins().shuffle(xb, yb, mask);
    b.ins().bitcast(types::F32X4, le, s)
}
