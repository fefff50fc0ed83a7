//! The Rust functions generated kernels call, and the table that registers each one with the
//! JIT by name. Registration is explicit for every symbol, including the ones Cranelift
//! itself emits calls to (`floorf`, `fmaf`, `memcpy`, ...): `dlsym` does not find libm
//! functions in a Rust binary, so each is registered with the JIT by address.
//!
//! Transcendentals are libcalls until the inline CLIF math library (`codegen::math`) takes
//! over the hot ones; each computes exactly what the reference interpreter computes (Rust's
//! `std` float methods, libm's `erf`), so compiled and interpreted results agree bit for bit.
//! What this is not: a math library. XLA: the `__xla_cpu_runtime_*` symbols of
//! `xla/service/cpu/runtime_symbol_generator.cc`.

use cranelift_codegen::ir::{AbiParam, Signature, Type, types};
use cranelift_codegen::isa::CallConv;

/// The shape of a libcall's signature.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LibSig {
    /// `f32 -> f32`
    F32Unary,
    /// `f64 -> f64`
    F64Unary,
    /// `(f32, f32) -> f32`
    F32Binary,
    /// `(f64, f64) -> f64`
    F64Binary,
    /// `(f32, f32, f32) -> f32`
    F32Ternary,
    /// `(f64, f64, f64) -> f64`
    F64Ternary,
    /// `(i64, i64) -> i64`
    I64Binary,
    /// `(f32, i32, i32) -> f32` (reduce-precision)
    F32IntInt,
    /// `(f64, i32, i32) -> f64`
    F64IntInt,
    /// `i32 -> f32` (f16 bits to f32)
    I32ToF32,
    /// `f32 -> i32` (f32 to f16 bits)
    F32ToI32,
    /// `(ptr, ptr, ptr) -> ptr` (memcpy, memmove)
    PtrPtrPtr,
    /// `(ptr, i32, ptr) -> ptr` (memset)
    PtrIntPtr,
    /// `(ptr, ptr, ptr) -> i32` (memcmp)
    PtrPtrPtrToInt,
    /// `(ptr, i64, ptr, i64) -> ()` (the in-place block math routines of
    /// `codegen::block_math`: row, length, prefetch queue, lines to prefetch)
    BlockRoutine,
}

impl LibSig {
    /// The Cranelift signature with the host's calling convention.
    pub fn signature(self, call_conv: CallConv) -> Signature {
        use types::{F32, F64, I32, I64};
        let (params, ret): (&[Type], Type) = match self {
            LibSig::F32Unary => (&[F32], F32),
            LibSig::F64Unary => (&[F64], F64),
            LibSig::F32Binary => (&[F32, F32], F32),
            LibSig::F64Binary => (&[F64, F64], F64),
            LibSig::F32Ternary => (&[F32, F32, F32], F32),
            LibSig::F64Ternary => (&[F64, F64, F64], F64),
            LibSig::I64Binary => (&[I64, I64], I64),
            LibSig::F32IntInt => (&[F32, I32, I32], F32),
            LibSig::F64IntInt => (&[F64, I32, I32], F64),
            LibSig::I32ToF32 => (&[I32], F32),
            LibSig::F32ToI32 => (&[F32], I32),
            LibSig::PtrPtrPtr => (&[I64, I64, I64], I64),
            LibSig::PtrIntPtr => (&[I64, I32, I64], I64),
            LibSig::PtrPtrPtrToInt => (&[I64, I64, I64], I32),
            // `INVALID`: no result.
            LibSig::BlockRoutine => (&[I64, I64, I64, I64], types::INVALID),
        };
        let mut sig = Signature::new(call_conv);
        sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        if ret != types::INVALID {
            sig.returns.push(AbiParam::new(ret));
        }
        sig
    }
}

/// One registered symbol.
pub struct LibCallSymbol {
    /// The symbol name the JIT resolves.
    pub name: &'static str,
    /// Its address.
    pub address: *const u8,
    /// Its signature.
    pub sig: LibSig,
}

/// Flush-to-zero of a libcall's argument and result: kernels run with DAZ/FTZ set, as
/// XLA:CPU's do, but libm computes some functions with integer operations that the CPU's
/// modes do not touch, so the wrappers flush denormals themselves.
trait Flush: Copy {
    fn flush(self) -> Self;
}
impl Flush for f32 {
    fn flush(self) -> f32 {
        if self.is_subnormal() {
            0.0f32.copysign(self)
        } else {
            self
        }
    }
}
impl Flush for f64 {
    fn flush(self) -> f64 {
        if self.is_subnormal() {
            0.0f64.copysign(self)
        } else {
            self
        }
    }
}

macro_rules! unary_pair {
    ($($f32name:ident, $f64name:ident => $f:expr;)*) => {$(
        extern "C" fn $f32name(x: f32) -> f32 { let f: fn(f32) -> f32 = $f; f(x.flush()).flush() }
        extern "C" fn $f64name(x: f64) -> f64 { let f: fn(f64) -> f64 = $f; f(x.flush()).flush() }
    )*};
}

macro_rules! unary_pair_generic {
    ($($f32name:ident, $f64name:ident => $method:ident;)*) => {$(
        extern "C" fn $f32name(x: f32) -> f32 { x.flush().$method().flush() }
        extern "C" fn $f64name(x: f64) -> f64 { x.flush().$method().flush() }
    )*};
}

unary_pair_generic! {
    xlac_expf, xlac_exp => exp;
    xlac_expm1f, xlac_expm1 => exp_m1;
    xlac_logf, xlac_log => ln;
    xlac_log1pf, xlac_log1p => ln_1p;
    xlac_tanhf, xlac_tanh => tanh;
    xlac_sinf, xlac_sin => sin;
    xlac_cosf, xlac_cos => cos;
    xlac_tanf, xlac_tan => tan;
    xlac_asinf, xlac_asin => asin;
    xlac_acosf, xlac_acos => acos;
    xlac_sinhf, xlac_sinh => sinh;
    xlac_coshf, xlac_cosh => cosh;
    xlac_asinhf, xlac_asinh => asinh;
    xlac_acoshf, xlac_acosh => acosh;
    xlac_atanhf, xlac_atanh => atanh;
    xlac_cbrtf, xlac_cbrt => cbrt;
    floorf_, floor_ => floor;
    ceilf_, ceil_ => ceil;
    truncf_, trunc_ => trunc;
    nearbyintf_, nearbyint_ => round_ties_even;
}

unary_pair! {
    xlac_logisticf, xlac_logistic => |x| 1.0 / (1.0 + (-x).exp());
}

// erf: libm's, as the interpreter's.
extern "C" fn xlac_erff_exact(x: f32) -> f32 {
    libm::erff(x.flush()).flush()
}
extern "C" fn xlac_erf_exact(x: f64) -> f64 {
    libm::erf(x.flush()).flush()
}

/// XLA's float power: `1^y = 1` and `x^0 = 1` even for NaN (Kahan), else `pow`.
extern "C" fn xlac_powf(x: f32, y: f32) -> f32 {
    let (x, y) = (x.flush(), y.flush());
    if x == 1.0 || y == 0.0 {
        1.0
    } else {
        x.powf(y).flush()
    }
}
extern "C" fn xlac_pow(x: f64, y: f64) -> f64 {
    let (x, y) = (x.flush(), y.flush());
    if x == 1.0 || y == 0.0 {
        1.0
    } else {
        x.powf(y).flush()
    }
}
extern "C" fn xlac_atan2f(y: f32, x: f32) -> f32 {
    y.flush().atan2(x.flush()).flush()
}
extern "C" fn xlac_atan2(y: f64, x: f64) -> f64 {
    y.flush().atan2(x.flush()).flush()
}
/// C's `fmod`, which is XLA's float `remainder`.
extern "C" fn xlac_fmodf(x: f32, y: f32) -> f32 {
    (x.flush() % y.flush()).flush()
}
extern "C" fn xlac_fmod(x: f64, y: f64) -> f64 {
    (x.flush() % y.flush()).flush()
}
extern "C" fn fmaf_(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}
extern "C" fn fma_(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

/// XLA's integer power on values sign-extended to 64 bits: `1^y = 1`, `x^0 = 1`, a negative
/// exponent gives 0, otherwise wrapping binary exponentiation with the exponent truncated to
/// a C `int` (a negative truncation gives 1). The caller truncates the result to its width.
extern "C" fn xlac_ipow_signed(base: i64, exponent: i64) -> i64 {
    if base == 1 || exponent == 0 {
        return 1;
    }
    if exponent < 0 {
        return 0;
    }
    ipow(base, exponent as i32)
}
/// The same for unsigned values zero-extended to 64 bits (no negative exponents).
extern "C" fn xlac_ipow_unsigned(base: i64, exponent: i64) -> i64 {
    if base == 1 || exponent == 0 {
        return 1;
    }
    ipow(base, exponent as i32)
}
fn ipow(mut base: i64, mut exponent: i32) -> i64 {
    let mut result = 1i64;
    while exponent > 0 {
        if exponent & 1 != 0 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exponent >>= 1;
    }
    result
}

/// f16 bits (low 16 bits of the argument) to f32: exact.
extern "C" fn xlac_f16_to_f32(bits: i32) -> f32 {
    half::f16::from_bits(bits as u16).to_f32()
}
/// f32 to f16 bits, round to nearest even; NaN becomes the quiet NaN with the input's sign
/// (Eigen's `half(float)`, which the interpreter copies).
extern "C" fn xlac_f32_to_f16(x: f32) -> i32 {
    if x.is_nan() {
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        return sign | 0x7e00;
    }
    i32::from(half::f16::from_f32(x).to_bits())
}

/// `reduce-precision` on an f32: round the mantissa to `m` bits (nearest even), then flush
/// what an `e`-bit exponent cannot hold to ±0 / ±inf. NaN stays NaN.
/// XLA: `EmitReducePrecisionIR` in `xla/service/elemental_ir_emitter.cc`.
extern "C" fn xlac_reduce_precision_f32(x: f32, e: i32, m: i32) -> f32 {
    if x.is_nan() {
        return x;
    }
    f32::from_bits(reduce_bits(u64::from(x.to_bits()), 32, 23, e as u32, m as u32) as u32)
}
extern "C" fn xlac_reduce_precision_f64(x: f64, e: i32, m: i32) -> f64 {
    if x.is_nan() {
        return x;
    }
    f64::from_bits(reduce_bits(x.to_bits(), 64, 52, e as u32, m as u32))
}

fn reduce_bits(mut value: u64, width: u32, src_mantissa: u32, dest_exp: u32, dest_man: u32) -> u64 {
    let src_exponent = width - src_mantissa - 1;
    let width_mask = u64::MAX >> (64 - width);
    if dest_man < src_mantissa {
        let last_bit = 1u64 << (src_mantissa - dest_man);
        let base_bias = (last_bit >> 1).wrapping_sub(1);
        let x_last = (value & last_bit) >> (src_mantissa - dest_man);
        let bias = x_last.wrapping_add(base_bias);
        value = value.wrapping_add(bias) & !(last_bit - 1) & width_mask;
    }
    if dest_exp < src_exponent {
        let sign_mask = 1u64 << (width - 1);
        let exp_mask = ((1u64 << src_exponent) - 1) << src_mantissa;
        let bias = (1u64 << (src_exponent - 1)) - 1;
        let reduced_bias = (1u64 << (dest_exp.max(1) - 1)) - 1;
        let max_exp = bias + reduced_bias;
        let min_exp = bias - reduced_bias;
        let x_exp = value & exp_mask;
        let signed_zero = value & sign_mask;
        if x_exp > (max_exp << src_mantissa) {
            value = signed_zero | exp_mask;
        }
        if x_exp <= (min_exp << src_mantissa) {
            value = signed_zero;
        }
    }
    value
}

extern "C" fn memcpy_(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
    // SAFETY: Cranelift only emits memcpy for copies it proved valid.
    unsafe { std::ptr::copy_nonoverlapping(s, d, n) };
    d
}
extern "C" fn memmove_(d: *mut u8, s: *const u8, n: usize) -> *mut u8 {
    // SAFETY: as memcpy; regions may overlap.
    unsafe { std::ptr::copy(s, d, n) };
    d
}
extern "C" fn memset_(d: *mut u8, c: i32, n: usize) -> *mut u8 {
    // SAFETY: as memcpy.
    unsafe { std::ptr::write_bytes(d, c as u8, n) };
    d
}
extern "C" fn memcmp_(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: as memcpy.
    let (a, b) = unsafe {
        (
            std::slice::from_raw_parts(a, n),
            std::slice::from_raw_parts(b, n),
        )
    };
    match a.cmp(b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }
}

/// The C signature of the block math routines: row, length, prefetch queue, lines.
type BlockRoutineFn =
    unsafe extern "C" fn(*mut f32, u64, *mut crate::codegen::block_math::PrefetchQueue, u64);

/// Every symbol a kernel may reference, for registration with the JIT, in declaration
/// order (the order gives the JIT's function ids, so it is part of the emitted code).
pub fn all_symbols() -> Vec<LibCallSymbol> {
    use LibSig::*;
    // One line per symbol: name => function as its C type, signature. (A brace-delimited
    // macro keeps rustfmt from spreading each entry over five lines.)
    macro_rules! symbols {
        ($($name:literal => $f:expr, $sig:expr;)*) => {
            vec![$(LibCallSymbol {
                name: $name,
                address: $f as *const u8,
                sig: $sig,
            }),*]
        };
    }
    symbols! {
        "xlac_expf" => xlac_expf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_exp" => xlac_exp as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_expm1f" => xlac_expm1f as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_expm1" => xlac_expm1 as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_logf" => xlac_logf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_log" => xlac_log as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_log1pf" => xlac_log1pf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_log1p" => xlac_log1p as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_tanhf" => xlac_tanhf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_tanh" => xlac_tanh as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_sinf" => xlac_sinf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_sin" => xlac_sin as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_cosf" => xlac_cosf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_cos" => xlac_cos as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_tanf" => xlac_tanf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_tan" => xlac_tan as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_asinf" => xlac_asinf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_asin" => xlac_asin as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_acosf" => xlac_acosf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_acos" => xlac_acos as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_sinhf" => xlac_sinhf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_sinh" => xlac_sinh as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_coshf" => xlac_coshf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_cosh" => xlac_cosh as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_asinhf" => xlac_asinhf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_asinh" => xlac_asinh as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_acoshf" => xlac_acoshf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_acosh" => xlac_acosh as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_atanhf" => xlac_atanhf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_atanh" => xlac_atanh as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_cbrtf" => xlac_cbrtf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_cbrt" => xlac_cbrt as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_erff" => xlac_erff_exact as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_erf" => xlac_erf_exact as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_logisticf" => xlac_logisticf as extern "C" fn(f32) -> f32, F32Unary;
        "xlac_logistic" => xlac_logistic as extern "C" fn(f64) -> f64, F64Unary;
        "xlac_powf" => xlac_powf as extern "C" fn(f32, f32) -> f32, F32Binary;
        "xlac_pow" => xlac_pow as extern "C" fn(f64, f64) -> f64, F64Binary;
        "xlac_atan2f" => xlac_atan2f as extern "C" fn(f32, f32) -> f32, F32Binary;
        "xlac_atan2" => xlac_atan2 as extern "C" fn(f64, f64) -> f64, F64Binary;
        "xlac_fmodf" => xlac_fmodf as extern "C" fn(f32, f32) -> f32, F32Binary;
        "xlac_fmod" => xlac_fmod as extern "C" fn(f64, f64) -> f64, F64Binary;
        "xlac_ipow_signed" => xlac_ipow_signed as extern "C" fn(i64, i64) -> i64, I64Binary;
        "xlac_ipow_unsigned" => xlac_ipow_unsigned as extern "C" fn(i64, i64) -> i64, I64Binary;
        "xlac_f16_to_f32" => xlac_f16_to_f32 as extern "C" fn(i32) -> f32, I32ToF32;
        "xlac_f32_to_f16" => xlac_f32_to_f16 as extern "C" fn(f32) -> i32, F32ToI32;
        "xlac_reduce_precision_f32" => xlac_reduce_precision_f32 as extern "C" fn(f32, i32, i32) -> f32, F32IntInt;
        "xlac_reduce_precision_f64" => xlac_reduce_precision_f64 as extern "C" fn(f64, i32, i32) -> f64, F64IntInt;
        "floorf" => floorf_ as extern "C" fn(f32) -> f32, F32Unary;
        "floor" => floor_ as extern "C" fn(f64) -> f64, F64Unary;
        "ceilf" => ceilf_ as extern "C" fn(f32) -> f32, F32Unary;
        "ceil" => ceil_ as extern "C" fn(f64) -> f64, F64Unary;
        "truncf" => truncf_ as extern "C" fn(f32) -> f32, F32Unary;
        "trunc" => trunc_ as extern "C" fn(f64) -> f64, F64Unary;
        "nearbyintf" => nearbyintf_ as extern "C" fn(f32) -> f32, F32Unary;
        "nearbyint" => nearbyint_ as extern "C" fn(f64) -> f64, F64Unary;
        "fmaf" => fmaf_ as extern "C" fn(f32, f32, f32) -> f32, F32Ternary;
        "fma" => fma_ as extern "C" fn(f64, f64, f64) -> f64, F64Ternary;
        "memcpy" => memcpy_ as extern "C" fn(*mut u8, *const u8, usize) -> *mut u8, PtrPtrPtr;
        "memmove" => memmove_ as extern "C" fn(*mut u8, *const u8, usize) -> *mut u8, PtrPtrPtr;
        "memset" => memset_ as extern "C" fn(*mut u8, i32, usize) -> *mut u8, PtrIntPtr;
        "memcmp" => memcmp_ as extern "C" fn(*const u8, *const u8, usize) -> i32, PtrPtrPtrToInt;
        "xlac_block_exp_f32" => crate::codegen::block_math::xlac_block_exp_f32 as BlockRoutineFn, BlockRoutine;
        "xlac_block_tanh_f32" => crate::codegen::block_math::xlac_block_tanh_f32 as BlockRoutineFn, BlockRoutine;
    }
}

/// The libcall's signature by name (for declaring it in a kernel).
pub fn signature_of(name: &str) -> Option<LibSig> {
    all_symbols()
        .into_iter()
        .find(|s| s.name == name)
        .map(|s| s.sig)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_follows_xla_special_cases() {
        assert_eq!(xlac_powf(1.0, f32::NAN), 1.0);
        assert_eq!(xlac_powf(f32::NAN, 0.0), 1.0);
        assert_eq!(xlac_ipow_signed(2, -1), 0);
        assert_eq!(xlac_ipow_signed(-1, -3), 0);
        assert_eq!(xlac_ipow_signed(3, 4), 81);
        // u32 exponent 2^31 truncates to a negative C int: result 1.
        assert_eq!(xlac_ipow_unsigned(2, 1 << 31), 1);
    }

    #[test]
    fn reduce_precision_to_bf16_rounds_to_nearest_even() {
        // 1 + 2^-8 is halfway between two bf16 values: rounds down to 1 (even).
        let x = 1.0f32 + 2f32.powi(-8);
        assert_eq!(xlac_reduce_precision_f32(x, 8, 7), 1.0);
        assert_eq!(xlac_reduce_precision_f32(1e6, 5, 10), f32::INFINITY);
    }
}
