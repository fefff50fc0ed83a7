//! The narrow float formats XLA:CPU computes with (the eight f8 formats and `f4e2m1fn`):
//! inside the evaluator their values live **widened**, as XLA:CPU's `FloatNormalization`
//! computes them: `f16` for every format but `f8e8m0fnu`, which lives in `f32` (its range
//! is f32's). Every value of a format is exact in its wide type, so the widened array holds
//! the same numbers; each op on a narrow type runs on the wide type and its result is
//! rounded back to the format ([`round_wide`]), which is what the normalized program
//! computes (`convert(op(convert(a), convert(b)))`). What this is not: the f6 formats, which
//! XLA:CPU does not compute with either.
//!
//! Rounding follows XLA:CPU's `convert` (`elemental_ir_emitter.cc`, `EmitFxxToF8E`): to an
//! f8 format, round to nearest even from the exact source value, past the largest finite
//! value to inf, or NaN where the format has no inf; `-0` to `+0` in the fnuz formats;
//! `f4e2m1fn` saturating at 6 (no inf, no NaN); `f8e8m0fnu` from `f32` as
//! `EmitF32ToF8e8m0fnu` (exponent only, rounding half up, zero and negatives NaN). Where
//! the emitter's code and jax 0.10.2's XLA:CPU disagree, the golden data
//! (`testdata/narrow_types`) decided.
//!
//! A NaN read from a code keeps its code in the wide NaN's low payload bits, so data
//! movement and `bitcast-convert` hand back the very code they were given; a NaN made by
//! arithmetic becomes the format's canonical NaN.
//! XLA: `xla/service/cpu/cpu_compiler.cc` (the `FloatNormalization` passes),
//! `xla/service/elemental_ir_emitter.cc`, `xla/codegen/intrinsic/fptrunc.cc`.

use half::f16;

use crate::front::hlo_text::minifloat::MiniFloat;
use crate::ir::{ArrayData, PrimitiveType};

/// True for the narrow float formats the evaluator computes with.
pub fn is_narrow_float(ty: PrimitiveType) -> bool {
    wide_type(ty) != ty
}

/// The type a narrow float format is computed in (`f16`, `f32` for `f8e8m0fnu`); other
/// types map to themselves.
pub fn wide_type(ty: PrimitiveType) -> PrimitiveType {
    use PrimitiveType::*;
    match ty {
        F8E5M2 | F8E4M3 | F8E4M3FN | F8E4M3B11FNUZ | F8E5M2FNUZ | F8E4M3FNUZ | F8E3M4
        | F4E2M1FN => F16,
        F8E8M0FNU => F32,
        other => other,
    }
}

/// Where a wide NaN keeps the code it was read from (below the quiet bit).
const F16_NAN: u16 = 0x7e00;
const F32_NAN: u32 = 0x7fc0_0000;

/// The codes of `ty` as its wide type (`Raw` codes in, `F16`/`F32` out).
pub fn from_codes(codes: &[u8], ty: PrimitiveType) -> ArrayData {
    let Some(format) = MiniFloat::of(ty) else {
        return ArrayData::Raw(codes.to_vec());
    };
    // XLA:CPU widens a fnuz NaN (code 0x80) to a positive NaN.
    let sign = |c: u8| format.has_negative_zero() && c & format.sign_mask() != 0;
    if wide_type(ty) == PrimitiveType::F32 {
        ArrayData::F32(
            codes
                .iter()
                .map(|&c| {
                    let v = format.decode(c);
                    if v.is_nan() {
                        f32::from_bits(F32_NAN | u32::from(c))
                    } else {
                        v as f32
                    }
                })
                .collect(),
        )
    } else {
        ArrayData::F16(
            codes
                .iter()
                .map(|&c| {
                    let v = format.decode(c);
                    if v.is_nan() {
                        f16::from_bits(u16::from(sign(c)) << 15 | F16_NAN | u16::from(c))
                    } else {
                        f16::from_f64(v)
                    }
                })
                .collect(),
        )
    }
}

/// The codes of `ty` for wide values (`F16`/`F32`), rounded as XLA:CPU converts them;
/// `None` for data of another type.
pub fn to_codes(data: &ArrayData, ty: PrimitiveType) -> Option<Vec<u8>> {
    let format = MiniFloat::of(ty)?;
    // A NaN that carries one of the format's NaN codes gives it back.
    let kept_nan = |payload: u8| format.decode(payload).is_nan().then_some(payload);
    match data {
        ArrayData::F16(v) => Some(
            v.iter()
                .map(|x| {
                    let bits = x.to_bits();
                    match x.is_nan() {
                        true => kept_nan(bits as u8)
                            .unwrap_or_else(|| round_from(ty, x.to_f64(), PrimitiveType::F16)),
                        false => round(ty, x.to_f64()),
                    }
                })
                .collect(),
        ),
        ArrayData::F32(v) => Some(
            v.iter()
                .map(|x| match x.is_nan() {
                    true => kept_nan(x.to_bits() as u8).unwrap_or_else(|| round(ty, *x as f64)),
                    false => round(ty, f64::from(*x)),
                })
                .collect(),
        ),
        ArrayData::Raw(v) => Some(v.clone()),
        _ => None,
    }
}

/// Wide values (`F16`/`F32`) rounded to the values of `ty`, kept wide.
pub fn round_wide(data: ArrayData, ty: PrimitiveType) -> ArrayData {
    match to_codes(&data, ty) {
        Some(codes) => from_codes(&codes, ty),
        None => data,
    }
}

/// The code of `ty` nearest to `v` as XLA:CPU's `convert` from a float rounds it. `v` is
/// the exact source value; for `f8e8m0fnu` it is first narrowed to f32, as XLA:CPU does.
pub fn round(ty: PrimitiveType, v: f64) -> u8 {
    match ty {
        PrimitiveType::F4E2M1FN => f4e2m1fn_round(v),
        PrimitiveType::F8E8M0FNU => f8e8m0fnu_from_f32(v as f32),
        _ => MiniFloat::of(ty).map_or(0, |f| round_nearest_even(f, v)),
    }
}

/// [`round`] from a value of type `from`: XLA:CPU's f16 -> `f8e5m2` fast path (a
/// reduce-precision and a shift, `fptrunc.cc`) makes every NaN 0x7f, and so do its
/// conversions from bf16 and from the other narrow formats; only f32 and f64 sources keep
/// the NaN's sign (0x7e / 0xfe).
pub fn round_from(ty: PrimitiveType, v: f64, from: PrimitiveType) -> u8 {
    use PrimitiveType::*;
    if ty == F8E5M2 && v.is_nan() && !matches!(from, F32 | F64) {
        return 0x7f;
    }
    round(ty, v)
}

/// Round to nearest even from the exact value `v`: out of range gives inf, or NaN where
/// the format has none (ml_dtypes' conversion, which XLA's `EmitFxxToF8E` implements).
fn round_nearest_even(format: MiniFloat, v: f64) -> u8 {
    let negative = v.is_sign_negative();
    let sign = if negative { format.sign_mask() } else { 0 };
    let nan = format.nan_code(negative);
    if v.is_nan() {
        return nan;
    }
    if v.is_infinite() {
        return format.infinity_code().map_or(nan, |c| c | sign);
    }
    let a = v.abs();
    let (m, min_exponent) = (format.mantissa_bits() as i32, format.min_normal_exponent());
    // The spacing of the format's values around `a`: subnormal below 2^min_exponent.
    let exponent = if a < 2f64.powi(min_exponent) {
        min_exponent
    } else {
        exponent_of(a)
    };
    let step = 2f64.powi(exponent - m);
    let rounded = (a / step).round_ties_even() * step;
    if rounded > format.max_finite() {
        return format.infinity_code().map_or(nan, |c| c | sign);
    }
    if rounded == 0.0 {
        return if format.has_negative_zero() { sign } else { 0 };
    }
    // The code of a representable magnitude: exponent field and mantissa.
    let e = exponent_of(rounded);
    let (field, mantissa) = if e < min_exponent {
        (0, rounded / 2f64.powi(min_exponent - m))
    } else {
        (
            e - min_exponent + 1,
            rounded / 2f64.powi(e - m) - 2f64.powi(m),
        )
    };
    let code = (field as u32) << m | mantissa as u32;
    code as u8 | sign
}

/// floor(log2(a)) of a positive finite f64 (normal or not).
fn exponent_of(a: f64) -> i32 {
    let biased = ((a.to_bits() >> 52) & 0x7ff) as i32;
    if biased == 0 {
        exponent_of(a * 2f64.powi(64)) - 64
    } else {
        biased - 1023
    }
}

/// `f4e2m1fn` as XLA:CPU converts to it: nearest even from the exact value, saturating at
/// 6 (the format has no inf), NaN to -0 with the NaN's sign bit set (the format has no NaN;
/// `EmitF16ToF4e2m1fn` gives 0x8 | sign). Rounded once, from f32 too: jax 0.10.2's XLA:CPU
/// maps f32 3.4999998 to 3, not through f16's 3.5 to 4.
fn f4e2m1fn_round(v: f64) -> u8 {
    let sign = if v.is_sign_negative() { 0x8 } else { 0 };
    if v.is_nan() {
        return 0x8 | sign;
    }
    if v.abs() >= 6.0 {
        return 0x7 | sign;
    }
    MiniFloat::of(PrimitiveType::F4E2M1FN).map_or(0, |f| round_nearest_even(f, v))
}

/// XLA's `EmitF32ToF8e8m0fnu`: the exponent, rounding up from the mantissa's half; zero,
/// negatives, NaN and values from 1.5 * 2^127 up are NaN (0xff); 2^-127 and below are 0x00.
fn f8e8m0fnu_from_f32(x: f32) -> u8 {
    let bits = x.to_bits() as i32;
    if bits <= 0 || bits >= 0x7f40_0000 {
        return 0xff;
    }
    if bits as u32 <= 0x40_0000 {
        return 0x00;
    }
    ((bits + 0x40_0000) >> 23) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use PrimitiveType::*;

    #[test]
    fn rounding_rules_of_the_f8_formats() {
        // e4m3fn: 448 is the largest value; 464 ties to it (even), beyond is NaN.
        assert_eq!(round(F8E4M3FN, 464.0), 0x7e);
        assert_eq!(round(F8E4M3FN, 465.0), 0x7f);
        assert_eq!(round(F8E4M3FN, -1e9), 0xff);
        // e5m2 has inf; fnuz formats have no -0 and one NaN.
        assert_eq!(round(F8E5M2, 1e9), 0x7c);
        assert_eq!(round(F8E5M2FNUZ, -0.0), 0x00);
        assert_eq!(round(F8E4M3FNUZ, f64::NAN), 0x80);
        // Ties to even at 1 + 1/16 in e4m3 (3 mantissa bits): 1.0, not 1.125.
        assert_eq!(round(F8E4M3, 1.0625), 0x38);
        assert_eq!(round(F8E4M3, 1.0625 + 1e-9), 0x39);
        // The smallest subnormal of e4m3fn is 2^-9; half of it ties to 0.
        assert_eq!(round(F8E4M3FN, 2f64.powi(-10)), 0x00);
        assert_eq!(round(F8E4M3FN, 1.5 * 2f64.powi(-10)), 0x01);
    }

    #[test]
    fn every_code_round_trips() {
        for ty in [
            F8E5M2,
            F8E4M3,
            F8E4M3FN,
            F8E4M3B11FNUZ,
            F8E5M2FNUZ,
            F8E4M3FNUZ,
            F8E3M4,
            F8E8M0FNU,
            F4E2M1FN,
        ] {
            let n = if ty == F4E2M1FN { 16 } else { 256 };
            let codes: Vec<u8> = (0..n).map(|c| c as u8).collect();
            let wide = from_codes(&codes, ty);
            assert_eq!(to_codes(&wide, ty).unwrap(), codes, "{ty}");
        }
    }
}
