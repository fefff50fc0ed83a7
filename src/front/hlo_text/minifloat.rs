//! The narrow float formats (f8, f6, f4) that xlac parses and prints but does not compute
//! with; their constants are stored as one raw byte per element. With at most 256 codes,
//! encoding is a search over all codes for the nearest value (ties to an even code).
//! XLA: `ml_dtypes` (`float8.h`), `xla/primitive_util.h`.

use crate::ir::PrimitiveType;

/// How a format spends its special codes.
#[derive(Copy, Clone, PartialEq)]
enum Specials {
    /// IEEE-like: all-ones exponent is inf (mantissa 0) or NaN.
    Ieee,
    /// Finite: no inf; all-ones exponent and mantissa is NaN (`fn`).
    FiniteNan,
    /// Finite, unsigned zero: the code `1000...0` is NaN (`fnuz`).
    Fnuz,
    /// Finite, no NaN, no inf (f6/f4 `fn`).
    FiniteOnly,
    /// `f8e8m0fnu`: no sign, no mantissa, 0xff is NaN.
    E8M0,
}

/// One narrow float format.
#[derive(Copy, Clone)]
pub(crate) struct MiniFloat {
    exponent_bits: u32,
    mantissa_bits: u32,
    bias: i32,
    specials: Specials,
}

impl MiniFloat {
    /// The format of a narrow float type, or `None` for other types.
    pub fn of(ty: PrimitiveType) -> Option<MiniFloat> {
        use PrimitiveType::*;
        use Specials::*;
        let (exponent_bits, mantissa_bits, bias, specials) = match ty {
            F8E5M2 => (5, 2, 15, Ieee),
            F8E4M3 => (4, 3, 7, Ieee),
            F8E4M3FN => (4, 3, 7, FiniteNan),
            F8E4M3B11FNUZ => (4, 3, 11, Fnuz),
            F8E3M4 => (3, 4, 3, Ieee),
            F8E5M2FNUZ => (5, 2, 16, Fnuz),
            F8E4M3FNUZ => (4, 3, 8, Fnuz),
            F8E8M0FNU => (8, 0, 127, E8M0),
            F6E3M2FN => (3, 2, 3, FiniteOnly),
            F6E2M3FN => (2, 3, 1, FiniteOnly),
            F4E2M1FN => (2, 1, 1, FiniteOnly),
            _ => return None,
        };
        Some(MiniFloat {
            exponent_bits,
            mantissa_bits,
            bias,
            specials,
        })
    }

    /// Width of a code in bits, the sign bit included where the format has one.
    pub fn bit_width(self) -> u32 {
        let sign = u32::from(self.specials != Specials::E8M0);
        self.exponent_bits + self.mantissa_bits + sign
    }

    /// The sign bit of a code (0 for `f8e8m0fnu`, which has none).
    pub fn sign_mask(self) -> u8 {
        if self.specials == Specials::E8M0 {
            0
        } else {
            1 << (self.exponent_bits + self.mantissa_bits)
        }
    }

    /// Bits of mantissa (stored, without the implicit one).
    pub fn mantissa_bits(self) -> u32 {
        self.mantissa_bits
    }

    /// The exponent of the smallest normal value (`1 - bias`).
    pub fn min_normal_exponent(self) -> i32 {
        1 - self.bias
    }

    /// The largest finite value.
    pub fn max_finite(self) -> f64 {
        let (e, m) = (self.exponent_bits as i32, self.mantissa_bits as i32);
        let top = (1 << e) - 1;
        // The top exponent field and the mantissa of the largest value: IEEE formats keep
        // the top field for inf/NaN, `fn` keeps its all-ones mantissa for NaN.
        let (field, ulps_below_two) = match self.specials {
            Specials::Ieee => (top - 1, 1),
            Specials::FiniteNan => (top, 2),
            Specials::Fnuz | Specials::FiniteOnly => (top, 1),
            Specials::E8M0 => return 2f64.powi(top - 1 - self.bias),
        };
        (2.0 - f64::from(ulps_below_two) * 2f64.powi(-m)) * 2f64.powi(field - self.bias)
    }

    /// The code of +inf, for the formats that have one.
    pub fn infinity_code(self) -> Option<u8> {
        (self.specials == Specials::Ieee)
            .then(|| (((1u32 << self.exponent_bits) - 1) << self.mantissa_bits) as u8)
    }

    /// True if `-0` has its own code (not in the fnuz formats, nor in `f8e8m0fnu`).
    pub fn has_negative_zero(self) -> bool {
        !matches!(self.specials, Specials::Fnuz | Specials::E8M0)
    }

    /// The NaN a conversion produces, with the sign where the format keeps one (ml_dtypes:
    /// a quiet NaN, all exponent bits and the top mantissa bit; all ones in the `fn`
    /// formats; `1000...0` in fnuz; 0xff in `f8e8m0fnu`). 0 for formats without NaN.
    pub fn nan_code(self, negative: bool) -> u8 {
        let sign = if negative { self.sign_mask() } else { 0 };
        let (e, m) = (self.exponent_bits, self.mantissa_bits);
        match self.specials {
            Specials::Ieee => ((((1u32 << e) - 1) << m) | (1 << (m - 1))) as u8 | sign,
            Specials::FiniteNan => ((1u32 << (e + m)) - 1) as u8 | sign,
            Specials::Fnuz => self.sign_mask(),
            Specials::E8M0 => 0xff,
            Specials::FiniteOnly => 0,
        }
    }

    fn code_count(self) -> u32 {
        1 << self.bit_width()
    }

    /// The value of a code.
    pub fn decode(self, code: u8) -> f64 {
        let (e, m) = (self.exponent_bits, self.mantissa_bits);
        let code = u32::from(code);
        if self.specials == Specials::E8M0 {
            return if code == 0xff {
                f64::NAN
            } else {
                2f64.powi(code as i32 - self.bias)
            };
        }
        let negative = code >> (e + m) & 1 == 1;
        let exp = (code >> m) & ((1 << e) - 1);
        let mant = code & ((1 << m) - 1);
        let all_exp = (1 << e) - 1;
        let all_mant = (1 << m) - 1;
        let special = match self.specials {
            Specials::Ieee if exp == all_exp => {
                Some(if mant == 0 { f64::INFINITY } else { f64::NAN })
            }
            Specials::FiniteNan if exp == all_exp && mant == all_mant => Some(f64::NAN),
            Specials::Fnuz if negative && exp == 0 && mant == 0 => return f64::NAN,
            _ => None,
        };
        let magnitude = special.unwrap_or_else(|| {
            let frac = f64::from(mant) / f64::from(1u32 << m);
            if exp == 0 {
                frac * 2f64.powi(1 - self.bias)
            } else {
                (1.0 + frac) * 2f64.powi(exp as i32 - self.bias)
            }
        });
        if negative { -magnitude } else { magnitude }
    }

    /// The nearest code to `v` (ties to the even code); `None` if `v` is finite but beyond
    /// the largest finite value by more than rounding allows, or is a special the format lacks.
    pub fn encode(self, v: f64) -> Option<u8> {
        let codes = (0..self.code_count()).map(|c| c as u8);
        if v.is_nan() {
            let want_negative = v.is_sign_negative();
            return codes
                .clone()
                .filter(|&c| self.decode(c).is_nan())
                .find(|&c| (self.decode_sign(c)) == want_negative)
                .or_else(|| codes.clone().find(|&c| self.decode(c).is_nan()));
        }
        if v.is_infinite() {
            return codes.clone().find(|&c| self.decode(c) == v);
        }
        let mut best: Option<(u8, f64)> = None;
        for c in codes {
            let d = self.decode(c);
            if !d.is_finite() {
                continue;
            }
            let dist = (d - v).abs();
            let better = match best {
                None => true,
                Some((bc, bd)) => {
                    dist < bd
                        // -0.0 is its own code where the format has one.
                        || (dist == bd
                            && v == 0.0
                            && d.is_sign_negative() == v.is_sign_negative()
                            && self.decode(bc).is_sign_negative() != v.is_sign_negative())
                        || (dist == bd && c & 1 == 0 && bc & 1 == 1)
                }
            };
            // Keep the sign of zero when the format has one.
            let same_zero_sign =
                d != 0.0 || v != 0.0 || d.is_sign_negative() == v.is_sign_negative();
            if better && (same_zero_sign || best.is_none()) {
                best = Some((c, dist));
            }
        }
        let (code, _) = best?;
        // Beyond the largest finite value by at least half a step is out of range.
        let max = (0..self.code_count())
            .map(|c| self.decode(c as u8))
            .filter(|d| d.is_finite())
            .fold(0.0, f64::max);
        if v.abs() > max * (1.0 + 0.5f64.powi(self.mantissa_bits as i32 + 1)) {
            return None;
        }
        Some(code)
    }

    fn decode_sign(self, code: u8) -> bool {
        self.specials != Specials::E8M0
            && u32::from(code) >> (self.exponent_bits + self.mantissa_bits) & 1 == 1
    }

    /// The shortest decimal that encodes back to `code` (`nan`, `inf` for specials).
    pub fn to_string(self, code: u8) -> String {
        let v = self.decode(code);
        if v.is_nan() {
            return if self.decode_sign(code) {
                "-nan".into()
            } else {
                "nan".into()
            };
        }
        if v.is_infinite() {
            return if v < 0.0 { "-inf".into() } else { "inf".into() };
        }
        // XLA prints `%.{max_digits10}g`; max_digits10 = ceil(1 + p * log10(2)) for p
        // significand bits (3 for e4m3, 2 for e5m2), which always round-trips.
        let p = f64::from(self.mantissa_bits + 1);
        let digits = (1.0 + p * std::f64::consts::LOG10_2).ceil() as usize;
        super::literal::format_g(v, digits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e4m3fn_known_values() {
        let f = MiniFloat::of(PrimitiveType::F8E4M3FN).unwrap();
        // Largest finite e4m3fn value is 448 (0x7e); 0x7f is NaN (ml_dtypes / OCP spec).
        assert_eq!(f.decode(0x7e), 448.0);
        assert!(f.decode(0x7f).is_nan());
        assert_eq!(f.encode(1.0), Some(0x38));
        assert_eq!(f.encode(-2.0), Some(0xc0));
        assert_eq!(f.encode(1e6), None);
        assert_eq!(f.to_string(0x38), "1");
    }

    #[test]
    fn max_finite_is_the_largest_decoded_value() {
        use PrimitiveType::*;
        for ty in [
            F8E5M2,
            F8E4M3,
            F8E4M3FN,
            F8E4M3B11FNUZ,
            F8E3M4,
            F8E5M2FNUZ,
            F8E4M3FNUZ,
            F8E8M0FNU,
            F6E3M2FN,
            F6E2M3FN,
            F4E2M1FN,
        ] {
            let f = MiniFloat::of(ty).unwrap();
            let max = (0..f.code_count())
                .map(|c| f.decode(c as u8))
                .filter(|d| d.is_finite())
                .fold(0.0, f64::max);
            assert_eq!(f.max_finite(), max, "{ty}");
        }
    }

    #[test]
    fn e5m2_has_infinity() {
        let f = MiniFloat::of(PrimitiveType::F8E5M2).unwrap();
        assert_eq!(f.encode(f64::INFINITY), Some(0x7c));
        assert_eq!(f.decode(0x7b), 57344.0);
    }
}
