//! Type changes: `convert` (value conversion), `bitcast-convert` (bit reinterpretation) and
//! `reduce-precision` (rounding to a narrower float format inside a wider one).
//! XLA: `xla/literal.cc` (`ConvertBetweenNativeTypes`, `BitcastConvert`),
//! `hlo_evaluator_typed_visitor.h` (`HandleReducePrecision`).
//!
//! `convert` widens the source to one of three exact forms (integers to `i128`, floats to
//! `f64`, complex to `Complex<f64>`) and narrows from there with the destination's rules:
//! - float → int: NaN → 0, out of range saturates to the type's min/max, else truncation
//!   (Rust's `as` is exactly XLA's saturating rule);
//! - int → float: round to nearest even; to `f16`/`bf16` through `f32`, as Eigen does;
//! - float → narrower float: nearest even; `f64` → `f16`/`bf16` goes through `f32` (Eigen's
//!   double rounding, kept for bit-exactness);
//! - to `pred`: `x != 0` (NaN is true); from `pred`: 0 or 1;
//! - complex → real: the real part; real → complex: imaginary part 0;
//! - to a narrow float (f8, `f4e2m1fn`): as XLA:CPU's emitter rounds ([`narrow_float::round`]),
//!   integers first to `f16` (`f32` for `f8e8m0fnu`), as it converts them; the result is
//!   held widened (`f16`/`f32`), as the evaluator holds these types;
//! - to a sub-byte integer: from an integer, the low bits (wrapped by the caller); from a
//!   float, saturated to the narrow type's range (XLA:CPU clamps to `minIntN`/`maxIntN`).

use half::{bf16, f16};
use num_complex::Complex;

use super::index::expect_array;
use super::narrow_float;
use super::scalar::{to_bf16, to_f16};
use super::subbyte::{is_sub_byte_int, wide_type};
use super::{EvalError, EvalResult};
use crate::ir::{ArrayData, ArrayLiteral, ArrayShape, Literal, PrimitiveType, Shape};

/// `convert(x)` to the element type of `shape`.
pub fn convert(shape: &Shape, x: &Literal) -> EvalResult {
    let from = expect_array(x, "operand")?.element_type();
    convert_from(shape, x, from)
}

/// [`convert`] of a value whose declared type is `from` (a narrow type the evaluator holds
/// widened: the NaN a conversion to `f8e5m2` makes depends on it, see
/// [`narrow_float::round_from`]).
pub fn convert_from(shape: &Shape, x: &Literal, from: PrimitiveType) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let to = shape
        .element_type()
        .ok_or_else(|| EvalError::new("convert must produce an array"))?;
    let data = if to == x.element_type() {
        x.data.clone()
    } else {
        narrow(widen(&x.data)?, to, from)?
    };
    Ok(Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(wide_type(to), &x.shape.dims),
        data,
    }))
}

/// A source vector in a form that holds every value of its family exactly.
enum Wide {
    Int(Vec<i128>),
    Float(Vec<f64>),
    Complex(Vec<Complex<f64>>),
}

fn widen(data: &ArrayData) -> EvalResult<Wide> {
    fn ints<T: Copy + Into<i128>>(v: &[T]) -> Wide {
        Wide::Int(v.iter().map(|&x| x.into()).collect())
    }
    Ok(match data {
        ArrayData::Pred(v) => Wide::Int(v.iter().map(|&x| i128::from(x)).collect()),
        ArrayData::S8(v) => ints(v),
        ArrayData::S16(v) => ints(v),
        ArrayData::S32(v) => ints(v),
        ArrayData::S64(v) => ints(v),
        ArrayData::U8(v) => ints(v),
        ArrayData::U16(v) => ints(v),
        ArrayData::U32(v) => ints(v),
        ArrayData::U64(v) => ints(v),
        ArrayData::F16(v) => Wide::Float(v.iter().map(|x| x.to_f64()).collect()),
        ArrayData::BF16(v) => Wide::Float(v.iter().map(|x| x.to_f64()).collect()),
        ArrayData::F32(v) => Wide::Float(v.iter().map(|&x| f64::from(x)).collect()),
        ArrayData::F64(v) => Wide::Float(v.clone()),
        ArrayData::C64(v) => Wide::Complex(
            v.iter()
                .map(|c| Complex::new(f64::from(c.re), f64::from(c.im)))
                .collect(),
        ),
        ArrayData::C128(v) => Wide::Complex(v.clone()),
        ArrayData::Raw(_) => {
            return Err(EvalError::new("convert from a non-executable element type"));
        }
    })
}

fn narrow(wide: Wide, to: PrimitiveType, from: PrimitiveType) -> EvalResult<ArrayData> {
    use PrimitiveType as P;
    // Complex sources convert through their real part, as StableHLO defines it.
    let wide = match wide {
        Wide::Complex(v) if !to.is_complex() => Wide::Float(v.iter().map(|c| c.re).collect()),
        w => w,
    };
    macro_rules! each {
        ($v:expr, $f:expr) => {
            $v.iter().map(|&x| $f(x)).collect()
        };
    }
    if narrow_float::is_narrow_float(to) {
        let codes: Vec<u8> = match wide {
            // XLA:CPU converts integers to f16 (f32 for f8e8m0fnu) first.
            Wide::Int(v) if to == P::F8E8M0FNU => {
                each!(v, |x| narrow_float::round(to, f64::from(x as f32)))
            }
            Wide::Int(v) => each!(v, |x| narrow_float::round(
                to,
                f16::from_f32(x as f32).to_f64()
            )),
            Wide::Float(v) => each!(v, |x| narrow_float::round_from(to, x, from)),
            Wide::Complex(_) => return Err(not_executable(to)),
        };
        return Ok(narrow_float::from_codes(&codes, to));
    }
    if is_sub_byte_int(to) {
        let bits = to.bit_width() as u32;
        let (lo, hi) = if to.is_signed_integral() {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        // The low bits of an integer (the caller wraps them to the width); a float
        // saturated to the narrow range, NaN to 0.
        let values: Vec<i64> = match wide {
            Wide::Int(v) => each!(v, |x| x as i64),
            Wide::Float(v) => each!(v, |x: f64| (x as i64).clamp(lo, hi)),
            Wide::Complex(_) => return Err(not_executable(to)),
        };
        return Ok(if to.is_signed_integral() {
            ArrayData::S8(each!(values, |x| x as i8))
        } else {
            ArrayData::U8(each!(values, |x| x as u8))
        });
    }
    // One table for integer and float sources: `as` keeps an integer's low bits (two's-
    // complement wrap) and saturates a float, NaN to 0, which are XLA's rules.
    macro_rules! from_real {
        ($v:ident, $nonzero:expr, $f64:expr, $c128:expr) => {
            match to {
                P::Pred => ArrayData::Pred(each!($v, $nonzero)),
                P::S8 => ArrayData::S8(each!($v, |x| x as i8)),
                P::S16 => ArrayData::S16(each!($v, |x| x as i16)),
                P::S32 => ArrayData::S32(each!($v, |x| x as i32)),
                P::S64 => ArrayData::S64(each!($v, |x| x as i64)),
                P::U8 => ArrayData::U8(each!($v, |x| x as u8)),
                P::U16 => ArrayData::U16(each!($v, |x| x as u16)),
                P::U32 => ArrayData::U32(each!($v, |x| x as u32)),
                P::U64 => ArrayData::U64(each!($v, |x| x as u64)),
                P::F16 => ArrayData::F16(each!($v, |x| to_f16(x as f32))),
                P::BF16 => ArrayData::BF16(each!($v, |x| to_bf16(x as f32))),
                P::F32 => ArrayData::F32(each!($v, |x| x as f32)),
                P::F64 => ArrayData::F64($f64),
                P::C64 => ArrayData::C64(each!($v, |x| Complex::new(x as f32, 0.0))),
                P::C128 => ArrayData::C128($c128),
                _ => return Err(not_executable(to)),
            }
        };
    }
    Ok(match wide {
        Wide::Int(v) => from_real!(
            v,
            |x| x != 0,
            each!(v, |x| x as f64),
            each!(v, |x| Complex::new(x as f64, 0.0))
        ),
        Wide::Float(v) => from_real!(v, |x| x != 0.0, v, each!(v, |x| Complex::new(x, 0.0))),
        Wide::Complex(v) => match to {
            P::C64 => ArrayData::C64(each!(v, |c: Complex<f64>| Complex::new(
                c.re as f32,
                c.im as f32
            ))),
            P::C128 => ArrayData::C128(v),
            _ => return Err(not_executable(to)),
        },
    })
}

fn not_executable(ty: PrimitiveType) -> EvalError {
    EvalError::new(format!(
        "the interpreter does not compute with element type {ty}"
    ))
}

/// `bitcast-convert(x)`: reinterprets the bits. Same width: element by element. A narrower
/// result type adds a minor dimension of `old_width / new_width` elements holding each
/// element's bytes in little-endian order; a wider one consumes the operand's minor
/// dimension. With row-major values all three cases are one reinterpretation of the
/// little-endian byte stream.
pub fn bitcast_convert(shape: &Shape, x: &Literal) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let to = shape
        .as_array()
        .ok_or_else(|| EvalError::new("bitcast-convert must produce an array"))?;
    let out = ArrayShape::new(to.element_type, &to.dims);
    if out.byte_size() != x.shape.byte_size() {
        return Err(EvalError::new(format!(
            "bitcast-convert from {} bytes to {} bytes",
            x.shape.byte_size(),
            out.byte_size()
        )));
    }
    let bytes = to_le_bytes(&x.data);
    let data = from_le_bytes(&bytes, out.element_type)?;
    Ok(Literal::Array(ArrayLiteral { shape: out, data }))
}

/// The elements' little-endian bytes, in order (complex: real part first).
pub(super) fn to_le_bytes(data: &ArrayData) -> Vec<u8> {
    macro_rules! bytes {
        ($v:expr, $f:expr) => {
            $v.iter().flat_map(|x| $f(x)).collect()
        };
    }
    match data {
        ArrayData::Pred(v) => v.iter().map(|&b| u8::from(b)).collect(),
        ArrayData::Raw(v) | ArrayData::U8(v) => v.clone(),
        ArrayData::S8(v) => bytes!(v, |x: &i8| x.to_le_bytes()),
        ArrayData::S16(v) => bytes!(v, |x: &i16| x.to_le_bytes()),
        ArrayData::S32(v) => bytes!(v, |x: &i32| x.to_le_bytes()),
        ArrayData::S64(v) => bytes!(v, |x: &i64| x.to_le_bytes()),
        ArrayData::U16(v) => bytes!(v, |x: &u16| x.to_le_bytes()),
        ArrayData::U32(v) => bytes!(v, |x: &u32| x.to_le_bytes()),
        ArrayData::U64(v) => bytes!(v, |x: &u64| x.to_le_bytes()),
        ArrayData::F16(v) => bytes!(v, |x: &f16| x.to_bits().to_le_bytes()),
        ArrayData::BF16(v) => bytes!(v, |x: &bf16| x.to_bits().to_le_bytes()),
        ArrayData::F32(v) => bytes!(v, |x: &f32| x.to_le_bytes()),
        ArrayData::F64(v) => bytes!(v, |x: &f64| x.to_le_bytes()),
        ArrayData::C64(v) => {
            bytes!(v, |c: &Complex<f32>| [
                c.re.to_le_bytes(),
                c.im.to_le_bytes()
            ]
            .concat())
        }
        ArrayData::C128(v) => {
            bytes!(v, |c: &Complex<f64>| [
                c.re.to_le_bytes(),
                c.im.to_le_bytes()
            ]
            .concat())
        }
    }
}

/// Elements of type `ty` read from a little-endian byte stream (whole elements only).
pub(crate) fn from_le_bytes(bytes: &[u8], ty: PrimitiveType) -> EvalResult<ArrayData> {
    use PrimitiveType as P;
    macro_rules! read {
        ($n:expr, $f:expr) => {
            bytes
                .chunks_exact($n)
                .map(|c| $f(c.try_into().unwrap_or([0; $n])))
                .collect()
        };
    }
    Ok(match ty {
        P::Pred => ArrayData::Pred(bytes.iter().map(|&b| b != 0).collect()),
        P::U8 => ArrayData::U8(bytes.to_vec()),
        P::S8 => ArrayData::S8(read!(1, i8::from_le_bytes)),
        P::S16 => ArrayData::S16(read!(2, i16::from_le_bytes)),
        P::S32 => ArrayData::S32(read!(4, i32::from_le_bytes)),
        P::S64 => ArrayData::S64(read!(8, i64::from_le_bytes)),
        P::U16 => ArrayData::U16(read!(2, u16::from_le_bytes)),
        P::U32 => ArrayData::U32(read!(4, u32::from_le_bytes)),
        P::U64 => ArrayData::U64(read!(8, u64::from_le_bytes)),
        P::F16 => ArrayData::F16(read!(2, |b| f16::from_bits(u16::from_le_bytes(b)))),
        P::BF16 => ArrayData::BF16(read!(2, |b| bf16::from_bits(u16::from_le_bytes(b)))),
        P::F32 => ArrayData::F32(read!(4, f32::from_le_bytes)),
        P::F64 => ArrayData::F64(read!(8, f64::from_le_bytes)),
        P::C64 => ArrayData::C64(read!(8, |b: [u8; 8]| {
            let re = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let im = f32::from_le_bytes([b[4], b[5], b[6], b[7]]);
            Complex::new(re, im)
        })),
        P::C128 => ArrayData::C128(read!(16, |b: [u8; 16]| {
            let mut re = [0u8; 8];
            let mut im = [0u8; 8];
            re.copy_from_slice(&b[..8]);
            im.copy_from_slice(&b[8..]);
            Complex::new(f64::from_le_bytes(re), f64::from_le_bytes(im))
        })),
        _ => ArrayData::Raw(bytes.to_vec()),
    })
}

/// `reduce-precision(x)`: rounds each float to the nearest value (ties to even) of a format
/// with `exponent_bits` and `mantissa_bits`, flushing what that format cannot hold: too
/// large → ±inf, too small (including its denormals) → ±0. NaN stays NaN, even with 0
/// mantissa bits: XLA:CPU keeps the NaN there (HloEvaluator turns it into +inf; the
/// `reduce_precision` testdata program shows XLA:CPU's answer). `f16`/`bf16` are reduced as `f32` and rounded back.
pub fn reduce_precision(x: &Literal, exponent_bits: u32, mantissa_bits: u32) -> EvalResult {
    let x = expect_array(x, "operand")?;
    if exponent_bits < 1 {
        return Err(EvalError::new(
            "reduce-precision needs at least one exponent bit",
        ));
    }
    let f32_fn = |v: f32| {
        let bits = reduce_bits(u64::from(v.to_bits()), 32, 23, exponent_bits, mantissa_bits) as u32;
        if v.is_nan() {
            return v;
        }
        f32::from_bits(bits)
    };
    let data = match &x.data {
        ArrayData::F32(v) => ArrayData::F32(v.iter().map(|&a| f32_fn(a)).collect()),
        ArrayData::F16(v) => ArrayData::F16(v.iter().map(|a| to_f16(f32_fn(a.to_f32()))).collect()),
        ArrayData::BF16(v) => {
            ArrayData::BF16(v.iter().map(|a| to_bf16(f32_fn(a.to_f32()))).collect())
        }
        ArrayData::F64(v) => ArrayData::F64(
            v.iter()
                .map(|&a| {
                    if a.is_nan() {
                        return a;
                    }
                    f64::from_bits(reduce_bits(
                        a.to_bits(),
                        64,
                        52,
                        exponent_bits,
                        mantissa_bits,
                    ))
                })
                .collect(),
        ),
        _ => {
            return Err(EvalError::new(format!(
                "reduce-precision is not defined for {}",
                x.element_type()
            )));
        }
    };
    Ok(Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(x.element_type(), &x.shape.dims),
        data,
    }))
}

/// XLA's bit-level reduce-precision on a `width`-bit float pattern with `src_mantissa` bits
/// of mantissa (NaN inputs are handled by the caller).
fn reduce_bits(
    mut value: u64,
    width: u32,
    src_mantissa: u32,
    dest_exponent: u32,
    dest_mantissa: u32,
) -> u64 {
    let src_exponent = width - src_mantissa - 1;
    let width_mask = u64::MAX >> (64 - width);
    if dest_mantissa < src_mantissa {
        // Round to nearest even: add 0111... plus the last kept mantissa bit, then truncate.
        // A carry into the exponent is correct (the mantissa becomes 0, the exponent + 1).
        let last_mantissa_bit_mask = 1u64 << (src_mantissa - dest_mantissa);
        let base_rounding_bias = (last_mantissa_bit_mask >> 1).wrapping_sub(1);
        let x_last_mantissa_bit =
            (value & last_mantissa_bit_mask) >> (src_mantissa - dest_mantissa);
        let x_rounding_bias = x_last_mantissa_bit.wrapping_add(base_rounding_bias);
        let truncation_mask = !(last_mantissa_bit_mask - 1);
        value = value.wrapping_add(x_rounding_bias) & truncation_mask & width_mask;
    }
    if dest_exponent < src_exponent {
        let sign_bit_mask = 1u64 << (width - 1);
        let exp_bits_mask = ((1u64 << src_exponent) - 1) << src_mantissa;
        // Exponent fields of the largest finite and of the smallest normal value of the
        // reduced format, expressed in the source format's biased exponent.
        let exponent_bias = (1u64 << (src_exponent - 1)) - 1;
        let reduced_exponent_bias = (1u64 << (dest_exponent - 1)) - 1;
        let reduced_max_exponent = exponent_bias + reduced_exponent_bias;
        let reduced_min_exponent = exponent_bias - reduced_exponent_bias;
        let x_exponent = value & exp_bits_mask;
        let x_overflows = x_exponent > (reduced_max_exponent << src_mantissa);
        let x_underflows = x_exponent <= (reduced_min_exponent << src_mantissa);
        let x_signed_zero = value & sign_bit_mask;
        let x_signed_inf = x_signed_zero | exp_bits_mask;
        if x_overflows {
            value = x_signed_inf;
        }
        if x_underflows {
            value = x_signed_zero;
        }
    }
    value
}
