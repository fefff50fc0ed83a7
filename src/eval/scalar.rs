//! Typed scalar semantics of the elementwise ops: what `add`, `divide`, `shift-left`,
//! `maximum`, `power`, ... mean for one pair of elements of each element type.
//! XLA: the lambdas in `xla/hlo/evaluator/hlo_evaluator_typed_visitor.h`.
//!
//! Each `*_unary`/`*_binary` function maps an opcode to a plain function pointer for one
//! Rust type, so the array loops in `elementwise.rs` pick the function once and then run
//! it over a typed slice without boxing. `None` means "this op is not defined for this
//! type" (XLA's `UnsupportedTypeError`).
//!
//! Integer arithmetic wraps (two's complement), as XLA gets by computing in unsigned types.
//! `f16` and `bf16` are not handled here: `elementwise.rs` computes them in `f32` and rounds
//! back to nearest-even, as XLA's typed visitor does (`ElementwiseT = float`).

use num_complex::Complex;

use crate::ir::Opcode;

/// A binary IEEE float type (`f32`, `f64`) with the math XLA's evaluator calls from `<cmath>`.
pub trait Real:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Rem<Output = Self>
    + std::ops::Neg<Output = Self>
{
    /// 0.0
    const ZERO: Self;
    /// 1.0
    const ONE: Self;
    /// +inf
    const INFINITY: Self;
    /// `std::erf`.
    fn erf(self) -> Self;
    /// `std::copysign`.
    fn copysign(self, sign: Self) -> Self;
    /// `std::isnan`.
    fn is_nan(self) -> bool;
    /// `std::isfinite`.
    fn is_finite(self) -> bool;
    /// `std::pow`.
    fn pow(self, e: Self) -> Self;
    /// `std::atan2`.
    fn atan2(self, x: Self) -> Self;
    /// 1.0 for true, 0.0 for false (C++'s `bool` to float conversion).
    fn from_bool(b: bool) -> Self;
}

macro_rules! impl_real {
    ($t:ty, $erf:path) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const INFINITY: Self = <$t>::INFINITY;
            fn erf(self) -> Self {
                $erf(self)
            }
            fn copysign(self, sign: Self) -> Self {
                <$t>::copysign(self, sign)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn pow(self, e: Self) -> Self {
                <$t>::powf(self, e)
            }
            fn atan2(self, x: Self) -> Self {
                <$t>::atan2(self, x)
            }
            fn from_bool(b: bool) -> Self {
                if b { 1.0 } else { 0.0 }
            }
        }
    };
}
impl_real!(f32, libm::erff);
impl_real!(f64, libm::erf);

/// The float math of one unary opcode, for `f32` or `f64`.
pub fn real_unary<T: Real + RealMath>(op: Opcode) -> Option<fn(T) -> T> {
    use Opcode::*;
    Some(match op {
        Abs => T::abs,
        Negate => |x: T| -x,
        // NaN stays NaN; otherwise ±1 or ±0 with the sign of x (copysign keeps -0).
        Sign => |x: T| {
            if x.is_nan() {
                x
            } else {
                T::from_bool(x != T::ZERO).copysign(x)
            }
        },
        Floor => T::floor,
        Ceil => T::ceil,
        RoundNearestAfz => T::round,
        RoundNearestEven => T::round_ties_even,
        Sqrt => T::sqrt,
        Rsqrt => |x: T| T::ONE / x.sqrt(),
        Cbrt => T::cbrt,
        Exp => T::exp,
        Expm1 => T::exp_m1,
        Log => T::ln,
        Log1p => T::ln_1p,
        Logistic => |x: T| T::ONE / (T::ONE + (-x).exp()),
        Tanh => T::tanh,
        Sin => T::sin,
        Cos => T::cos,
        Tan => T::tan,
        Asin => T::asin,
        Acos => T::acos,
        Sinh => T::sinh,
        Cosh => T::cosh,
        Asinh => T::asinh,
        Acosh => T::acosh,
        Atanh => T::atanh,
        Erf => T::erf,
        Copy => |x: T| x,
        _ => return None,
    })
}

/// The float math of one binary opcode, for `f32` or `f64`.
pub fn real_binary<T: Real + RealMath>(op: Opcode) -> Option<fn(T, T) -> T> {
    use Opcode::*;
    Some(match op {
        Add => |a: T, b: T| a + b,
        Subtract => |a: T, b: T| a - b,
        Multiply => |a: T, b: T| a * b,
        Divide => |a: T, b: T| a / b,
        // Rust's `%` on floats is C's fmod, which is what XLA calls.
        Remainder => |a: T, b: T| a % b,
        Maximum => real_maximum,
        Minimum => real_minimum,
        // 1^x = 1 and x^0 = 1 even for NaN x (Kahan), then std::pow.
        Power => |a: T, b: T| {
            if a == T::ONE || b == T::ZERO {
                T::ONE
            } else {
                a.pow(b)
            }
        },
        Atan2 => T::atan2,
        _ => return None,
    })
}

/// XLA's evaluator `maximum`: NaN in either operand propagates (lhs first), otherwise
/// `std::max(a, b)`, which returns `a` when neither is less (so `max(-0, +0) = -0`).
pub fn real_maximum<T: Real>(a: T, b: T) -> T {
    if a.is_nan() {
        return a;
    }
    if b.is_nan() {
        return b;
    }
    if a < b { b } else { a }
}

/// XLA's evaluator `minimum`: NaN propagates, otherwise `std::min(a, b)` (`a` on ties).
pub fn real_minimum<T: Real>(a: T, b: T) -> T {
    if a.is_nan() {
        return a;
    }
    if b.is_nan() {
        return b;
    }
    if b < a { b } else { a }
}

/// XLA's `clamp(lo, x, hi)`: the first NaN among lo, x, hi, else `std::min(hi, std::max(x, lo))`.
pub fn real_clamp<T: Real>(lo: T, x: T, hi: T) -> T {
    for v in [lo, x, hi] {
        if v.is_nan() {
            return v;
        }
    }
    let m = if x < lo { lo } else { x };
    if m < hi { m } else { hi }
}

/// The `std` float methods `real_unary` names, as a trait so they can be used generically.
pub trait RealMath: Sized {
    /// `abs`
    fn abs(self) -> Self;
    /// `floor`
    fn floor(self) -> Self;
    /// `ceil`
    fn ceil(self) -> Self;
    /// `round` (half away from zero)
    fn round(self) -> Self;
    /// `round_ties_even`
    fn round_ties_even(self) -> Self;
    /// `sqrt`
    fn sqrt(self) -> Self;
    /// `cbrt`
    fn cbrt(self) -> Self;
    /// `exp`
    fn exp(self) -> Self;
    /// `exp_m1`
    fn exp_m1(self) -> Self;
    /// `ln`
    fn ln(self) -> Self;
    /// `ln_1p`
    fn ln_1p(self) -> Self;
    /// `tanh`
    fn tanh(self) -> Self;
    /// `sin`
    fn sin(self) -> Self;
    /// `cos`
    fn cos(self) -> Self;
    /// `tan`
    fn tan(self) -> Self;
    /// `asin`
    fn asin(self) -> Self;
    /// `acos`
    fn acos(self) -> Self;
    /// `sinh`
    fn sinh(self) -> Self;
    /// `cosh`
    fn cosh(self) -> Self;
    /// `asinh`
    fn asinh(self) -> Self;
    /// `acosh`
    fn acosh(self) -> Self;
    /// `atanh`
    fn atanh(self) -> Self;
}

macro_rules! impl_real_math {
    ($t:ty; $($f:ident),*) => {
        impl RealMath for $t {
            $( fn $f(self) -> Self { <$t>::$f(self) } )*
        }
    };
}
impl_real_math!(f32; abs, floor, ceil, round, round_ties_even, sqrt, cbrt, exp, exp_m1, ln, ln_1p,
    tanh, sin, cos, tan, asin, acos, sinh, cosh, asinh, acosh, atanh);
impl_real_math!(f64; abs, floor, ceil, round, round_ties_even, sqrt, cbrt, exp, exp_m1, ln, ln_1p,
    tanh, sin, cos, tan, asin, acos, sinh, cosh, asinh, acosh, atanh);

/// A fixed-width integer type with XLA's wrapping semantics.
pub trait Int: Copy + Ord + Eq + Default + std::fmt::Debug {
    /// Width in bits.
    const BITS: u32;
    /// Smallest value.
    const MIN: Self;
    /// Largest value.
    const MAX: Self;
    /// True for `s8`..`s64`.
    const SIGNED: bool;
    /// The value 0.
    const ZERO: Self;
    /// The value 1.
    const ONE: Self;
    /// The bit pattern, zero-extended to 64 bits.
    fn to_bits(self) -> u64;
    /// The value with this bit pattern (low `BITS` bits of `bits`).
    fn from_bits(bits: u64) -> Self;
    /// The value sign- or zero-extended to `i64` (u64 above `i64::MAX` wraps).
    fn to_i64(self) -> i64;
    /// Two's-complement `a + b`.
    fn wrapping_add(self, b: Self) -> Self;
    /// Two's-complement `a - b`.
    fn wrapping_sub(self, b: Self) -> Self;
    /// Two's-complement `a * b`.
    fn wrapping_mul(self, b: Self) -> Self;
    /// Division that never traps (the caller handles 0 and MIN / -1 first).
    fn wrapping_div(self, b: Self) -> Self;
    /// Remainder that never traps.
    fn wrapping_rem(self, b: Self) -> Self;
    /// Two's-complement negation.
    fn wrapping_neg(self) -> Self;
    /// `|a|`, with `|MIN| = MIN`.
    fn wrapping_abs(self) -> Self;
}

macro_rules! impl_int {
    ($($t:ty => $signed:expr;)*) => {$(
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            const SIGNED: bool = $signed;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            fn to_bits(self) -> u64 {
                // Widen through the same-width unsigned type so the pattern is zero-extended.
                (self as u64) & (u64::MAX >> (64 - <$t>::BITS))
            }
            fn from_bits(bits: u64) -> Self {
                bits as $t
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn wrapping_add(self, b: Self) -> Self { <$t>::wrapping_add(self, b) }
            fn wrapping_sub(self, b: Self) -> Self { <$t>::wrapping_sub(self, b) }
            fn wrapping_mul(self, b: Self) -> Self { <$t>::wrapping_mul(self, b) }
            fn wrapping_div(self, b: Self) -> Self { <$t>::wrapping_div(self, b) }
            fn wrapping_rem(self, b: Self) -> Self { <$t>::wrapping_rem(self, b) }
            fn wrapping_neg(self) -> Self { <$t>::wrapping_neg(self) }
            fn wrapping_abs(self) -> Self {
                if self < 0 as $t { <$t>::wrapping_neg(self) } else { self }
            }
        }
    )*};
}
impl_int! {
    i8 => true; i16 => true; i32 => true; i64 => true;
    u8 => false; u16 => false; u32 => false; u64 => false;
}

/// The integer math of one unary opcode.
pub fn int_unary<T: Int>(op: Opcode) -> Option<fn(T) -> T> {
    use Opcode::*;
    Some(match op {
        Abs => T::wrapping_abs,
        Negate => T::wrapping_neg,
        // (0 < x) - (x < 0)
        Sign => |x: T| match x.cmp(&T::ZERO) {
            std::cmp::Ordering::Greater => T::ONE,
            std::cmp::Ordering::Equal => T::ZERO,
            std::cmp::Ordering::Less => T::ONE.wrapping_neg(),
        },
        Not => |x: T| T::from_bits(!x.to_bits()),
        PopulationCount => |x: T| T::from_bits(u64::from(x.to_bits().count_ones())),
        // Leading zeros of the bit pattern at the type's own width. (XLA's evaluator computes
        // narrow signed types in int64 and gets nonsense for negative inputs; the HLO spec,
        // XLA:CPU's LLVM `ctlz` and this take the bit-pattern meaning.)
        Clz => |x: T| T::from_bits(u64::from(x.to_bits().leading_zeros() - (64 - T::BITS))),
        Copy => |x: T| x,
        _ => return None,
    })
}

/// The integer math of one binary opcode.
pub fn int_binary<T: Int>(op: Opcode) -> Option<fn(T, T) -> T> {
    use Opcode::*;
    Some(match op {
        Add => T::wrapping_add,
        Subtract => T::wrapping_sub,
        Multiply => T::wrapping_mul,
        Divide => int_divide,
        Remainder => int_remainder,
        Maximum => |a: T, b: T| a.max(b),
        Minimum => |a: T, b: T| a.min(b),
        Power => int_power,
        And => |a: T, b: T| T::from_bits(a.to_bits() & b.to_bits()),
        Or => |a: T, b: T| T::from_bits(a.to_bits() | b.to_bits()),
        Xor => |a: T, b: T| T::from_bits(a.to_bits() ^ b.to_bits()),
        ShiftLeft => |a: T, b: T| match shift_amount(b) {
            Some(n) => T::from_bits(a.to_bits() << n),
            None => T::ZERO,
        },
        ShiftRightLogical => |a: T, b: T| match shift_amount(b) {
            Some(n) => T::from_bits(a.to_bits() >> n),
            None => T::ZERO,
        },
        // Sign fill from the top bit of the pattern, for unsigned types too (XLA casts to
        // the same-width signed type first).
        ShiftRightArithmetic => |a: T, b: T| {
            let signed = sign_extend(a.to_bits(), T::BITS);
            match shift_amount(b) {
                Some(n) => T::from_bits((signed >> n) as u64),
                None => T::from_bits(if signed < 0 { u64::MAX } else { 0 }),
            }
        },
        _ => return None,
    })
}

/// The shift amount `b` read as an unsigned number of the same width, or `None` when it is
/// at least the bit width (XLA's `IsShiftOutOfBounds`: such shifts give 0 or the sign fill).
fn shift_amount<T: Int>(b: T) -> Option<u32> {
    let n = b.to_bits();
    if n >= u64::from(T::BITS) {
        None
    } else {
        Some(n as u32)
    }
}

/// The low `bits` bits of `pattern` as a signed 64-bit value.
fn sign_extend(pattern: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((pattern << shift) as i64) >> shift
}

/// XLA integer divide: x/0 is -1 (signed) or all ones (unsigned); MIN / -1 is MIN.
pub fn int_divide<T: Int>(a: T, b: T) -> T {
    if b == T::ZERO {
        return if T::SIGNED {
            T::ONE.wrapping_neg()
        } else {
            T::MAX
        };
    }
    // wrapping_div gives MIN for MIN / -1, which is XLA's answer.
    a.wrapping_div(b)
}

/// XLA integer remainder: x % 0 is x; MIN % -1 is 0; otherwise C's truncated `%`.
pub fn int_remainder<T: Int>(a: T, b: T) -> T {
    if b == T::ZERO {
        return a;
    }
    a.wrapping_rem(b)
}

/// XLA integer power: x^0 = 1 and 1^x = 1; a negative exponent gives 0 (1 for base 1);
/// otherwise wrapping binary exponentiation. XLA passes the exponent to `IPow` as a C `int`,
/// so exponents are truncated to 32 bits and a negative result of that truncation gives 1.
pub fn int_power<T: Int>(a: T, b: T) -> T {
    if a == T::ONE || b == T::ZERO {
        return T::ONE;
    }
    if T::SIGNED && b < T::ZERO {
        return T::ZERO;
    }
    let mut exponent = b.to_i64() as i32;
    let mut base = a;
    let mut result = T::ONE;
    while exponent > 0 {
        if exponent & 1 != 0 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exponent >>= 1;
    }
    result
}

/// `pred` unary ops: `not` is logical; `copy` copies.
pub fn pred_unary(op: Opcode) -> Option<fn(bool) -> bool> {
    match op {
        Opcode::Not => Some(|x: bool| !x),
        Opcode::Copy => Some(|x: bool| x),
        _ => None,
    }
}

/// `pred` binary ops, as XLA computes them on C++ `bool` (promoted to unsigned int and
/// converted back with `!= 0`).
pub fn pred_binary(op: Opcode) -> Option<fn(bool, bool) -> bool> {
    use Opcode::*;
    Some(match op {
        And | Multiply | Minimum => |a: bool, b: bool| a & b,
        Or | Add | Maximum => |a: bool, b: bool| a | b,
        Xor | Subtract => |a: bool, b: bool| a ^ b,
        // bool is unsigned in C++: x/0 gives the maximum (true), x/1 = x.
        Divide => |a: bool, b: bool| if b { a } else { true },
        // x % 0 = x, x % 1 = 0.
        Remainder => |a: bool, b: bool| if b { false } else { a },
        Power => |a: bool, b: bool| a || !b,
        _ => return None,
    })
}

macro_rules! complex_ops {
    ($unary:ident, $binary:ident, $t:ty) => {
        /// Complex unary ops (`abs`, `real`, `imag` change the type and live in
        /// `elementwise.rs`).
        pub fn $unary(op: Opcode) -> Option<fn(Complex<$t>) -> Complex<$t>> {
            type Cx = num_complex::Complex<$t>;
            use Opcode::*;
            Some(match op {
                Negate => |x: Cx| -x,
                // x / |x|, and 0 for 0.
                Sign => |x: Cx| {
                    let r = x.norm();
                    if r == 0.0 { Cx::new(0.0, 0.0) } else { x / r }
                },
                Exp => |x: Cx| x.exp(),
                Log => |x: Cx| x.ln(),
                Sqrt => |x: Cx| x.sqrt(),
                Rsqrt => |x: Cx| Cx::new(1.0, 0.0) / x.sqrt(),
                Tanh => |x: Cx| x.tanh(),
                Sin => |x: Cx| x.sin(),
                Cos => |x: Cx| x.cos(),
                // (sin 2a + i sinh 2b) / (cos 2a + cosh 2b), as XLA:CPU's result is.
                Tan => |x: Cx| x.tan(),
                // The StableHLO reference: 1 / (1 + e^-x), log(1 + x), e^x - 1.
                Logistic => |x: Cx| Cx::new(1.0, 0.0) / (Cx::new(1.0, 0.0) + (-x).exp()),
                Log1p => |x: Cx| (x + Cx::new(1.0, 0.0)).ln(),
                Expm1 => |x: Cx| x.exp() - Cx::new(1.0, 0.0),
                // The principal cube root, as the StableHLO spec defines it.
                Cbrt => |x: Cx| x.cbrt(),
                Copy => |x: Cx| x,
                _ => return None,
            })
        }

        /// Complex binary ops.
        pub fn $binary(op: Opcode) -> Option<fn(Complex<$t>, Complex<$t>) -> Complex<$t>> {
            type Cx = num_complex::Complex<$t>;
            use Opcode::*;
            Some(match op {
                Add => |a: Cx, b: Cx| a + b,
                Subtract => |a: Cx, b: Cx| a - b,
                Multiply => |a: Cx, b: Cx| a * b,
                Divide => |a: Cx, b: Cx| a / b,
                // The StableHLO spec: atan2(y, x) = -i * log((x + i*y) / sqrt(x^2 + y^2)).
                Atan2 => |y: Cx, x: Cx| {
                    let i = Cx::new(0.0, 1.0);
                    -i * ((x + i * y) / (x * x + y * y).sqrt()).ln()
                },
                // Lexicographic on (re, im), as the StableHLO spec orders complex numbers;
                // `a` on ties.
                Maximum => |a: Cx, b: Cx| {
                    if (a.re, a.im) < (b.re, b.im) { b } else { a }
                },
                Minimum => |a: Cx, b: Cx| {
                    if (b.re, b.im) < (a.re, a.im) { b } else { a }
                },
                Power => |a: Cx, b: Cx| {
                    let one = Cx::new(1.0, 0.0);
                    let zero = Cx::new(0.0, 0.0);
                    if a == one || b == zero {
                        return one;
                    }
                    // inf^(r + 0i) is inf for r > 0 and 0 for r < 0 (XLA's special case).
                    let a_is_pos_inf = a.im == 0.0 && a.re == <$t>::INFINITY;
                    if a_is_pos_inf && b.im == 0.0 && b.re > 0.0 {
                        return a;
                    }
                    if a_is_pos_inf && b.im == 0.0 && b.re < 0.0 {
                        return zero;
                    }
                    a.powc(b)
                },
                _ => return None,
            })
        }
    };
}
complex_ops!(c64_unary, c64_binary, f32);
complex_ops!(c128_unary, c128_binary, f64);

/// `f32` to `bf16` as Eigen's `bfloat16(float)` does: round to nearest even, and any NaN
/// becomes the canonical quiet NaN with the input's sign (`0x7fc0` / `0xffc0`).
pub fn to_bf16(x: f32) -> half::bf16 {
    if x.is_nan() {
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        return half::bf16::from_bits(sign | 0x7fc0);
    }
    half::bf16::from_f32(x)
}

/// `f32` to `f16` as Eigen's `half(float)` does: round to nearest even, overflow to inf,
/// and any NaN becomes the quiet NaN `0x7e00` with the input's sign.
pub fn to_f16(x: f32) -> half::f16 {
    if x.is_nan() {
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        return half::f16::from_bits(sign | 0x7e00);
    }
    half::f16::from_f32(x)
}

/// Maps a float's bit pattern to a signed integer whose order is XLA's total order:
/// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. Negative patterns get their magnitude
/// bits flipped so larger magnitudes sort lower. `bits` is the type's width.
pub fn total_order_key(pattern: u64, bits: u32) -> i64 {
    let signed = sign_extend(pattern, bits);
    if signed < 0 {
        signed ^ (i64::MAX >> (64 - bits))
    } else {
        signed
    }
}

#[cfg(test)]
mod tests;
