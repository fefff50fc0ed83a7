//! The elements of a literal as the check ops see them: integers as exact `i128` values,
//! floats as their value (in f64, exact for every type up to f64) together with their bit
//! pattern (for ULP distances), complex numbers as two such floats.
//!
//! Element types the interpreter stores raw (one byte per element: `s2`, `u4`, the f8, f6
//! and f4 families) are decoded here; the narrow float encodings (the conformance README
//! §6.3) are the parser's, `front::hlo_text::minifloat`.

use half::{bf16, f16};

use crate::front::hlo_text::minifloat::MiniFloat;
use crate::ir::{ArrayData, ArrayLiteral};

/// One float element: its value and its bit pattern.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FloatBits {
    /// The value, exactly (NaN and infinities included).
    pub value: f64,
    /// The raw bit pattern, in the type's own width.
    pub bits: u64,
    /// The sign bit within `bits` (0 for types without a sign).
    pub sign_mask: u64,
}

impl FloatBits {
    /// The pattern of `abs(x)`: the bits without the sign.
    pub fn magnitude(self) -> u64 {
        self.bits & !self.sign_mask
    }

    /// True if the sign bit is set.
    pub fn negative(self) -> bool {
        self.bits & self.sign_mask != 0
    }
}

/// Every element of an array, in row-major order.
#[derive(Clone, Debug, PartialEq)]
pub enum Elements {
    /// Booleans (as 0/1) and integers of any width.
    Ints(Vec<i128>),
    /// Real floating-point numbers.
    Floats(Vec<FloatBits>),
    /// Complex numbers: (real, imaginary).
    Complex(Vec<(FloatBits, FloatBits)>),
}

impl Elements {
    /// The elements of `a` (which must be row-major).
    pub fn of(a: &ArrayLiteral) -> Result<Elements, String> {
        fn ints<T: Copy + Into<i128>>(v: &[T]) -> Elements {
            Elements::Ints(v.iter().map(|&x| x.into()).collect())
        }
        let ty = a.element_type();
        Ok(match &a.data {
            ArrayData::Pred(v) => Elements::Ints(v.iter().map(|&b| i128::from(b)).collect()),
            ArrayData::S8(v) => ints(v),
            ArrayData::S16(v) => ints(v),
            ArrayData::S32(v) => ints(v),
            ArrayData::S64(v) => ints(v),
            ArrayData::U8(v) => ints(v),
            ArrayData::U16(v) => ints(v),
            ArrayData::U32(v) => ints(v),
            ArrayData::U64(v) => ints(v),
            ArrayData::F16(v) => Elements::Floats(v.iter().map(|&x| half16(x)).collect()),
            ArrayData::BF16(v) => Elements::Floats(v.iter().map(|&x| brain16(x)).collect()),
            ArrayData::F32(v) => Elements::Floats(v.iter().map(|&x| single(x)).collect()),
            ArrayData::F64(v) => Elements::Floats(v.iter().map(|&x| double(x)).collect()),
            ArrayData::C64(v) => {
                Elements::Complex(v.iter().map(|c| (single(c.re), single(c.im))).collect())
            }
            ArrayData::C128(v) => {
                Elements::Complex(v.iter().map(|c| (double(c.re), double(c.im))).collect())
            }
            ArrayData::Raw(v) if ty.is_integral() => {
                let width = ty.bit_width() as u32;
                let signed = ty.is_signed_integral();
                Elements::Ints(v.iter().map(|&b| raw_int(b, width, signed)).collect())
            }
            ArrayData::Raw(v) => {
                let format = MiniFloat::of(ty)
                    .ok_or_else(|| format!("check ops do not support element type {ty}"))?;
                Elements::Floats(v.iter().map(|&b| narrow_float(format, b)).collect())
            }
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Elements::Ints(v) => v.len(),
            Elements::Floats(v) => v.len(),
            Elements::Complex(v) => v.len(),
        }
    }

    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as text, for messages.
    pub fn show(&self, i: usize) -> String {
        match self {
            Elements::Ints(v) => v[i].to_string(),
            Elements::Floats(v) => format!("{:?}", v[i].value),
            Elements::Complex(v) => format!("({:?}, {:?})", v[i].0.value, v[i].1.value),
        }
    }
}

fn single(x: f32) -> FloatBits {
    FloatBits {
        value: f64::from(x),
        bits: u64::from(x.to_bits()),
        sign_mask: 1 << 31,
    }
}

fn double(x: f64) -> FloatBits {
    FloatBits {
        value: x,
        bits: x.to_bits(),
        sign_mask: 1 << 63,
    }
}

fn half16(x: f16) -> FloatBits {
    FloatBits {
        value: x.to_f64(),
        bits: u64::from(x.to_bits()),
        sign_mask: 1 << 15,
    }
}

fn brain16(x: bf16) -> FloatBits {
    FloatBits {
        value: x.to_f64(),
        bits: u64::from(x.to_bits()),
        sign_mask: 1 << 15,
    }
}

/// A sub-byte integer stored in the low `width` bits of a byte.
fn raw_int(byte: u8, width: u32, signed: bool) -> i128 {
    let v = i128::from(byte) & ((1 << width) - 1);
    if signed && v >> (width - 1) & 1 == 1 {
        v - (1 << width)
    } else {
        v
    }
}

/// One narrow float element (f8, f6, f4) from the byte it is stored in.
fn narrow_float(format: MiniFloat, byte: u8) -> FloatBits {
    let bits = u64::from(byte) & ((1 << format.bit_width()) - 1);
    FloatBits {
        value: format.decode(bits as u8),
        bits,
        sign_mask: u64::from(format.sign_mask()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::PrimitiveType;

    fn decode(ty: PrimitiveType, byte: u8) -> f64 {
        narrow_float(MiniFloat::of(ty).unwrap(), byte).value
    }

    #[test]
    fn minifloat_encodings_of_the_readme() {
        use PrimitiveType::*;
        // conformance README §6.3, confirmed by constant.mlir.
        assert_eq!(decode(F8E4M3FNUZ, 0x7F), 240.0);
        assert_eq!(decode(F8E5M2FNUZ, 0x7F), 57344.0);
        assert_eq!(decode(F8E4M3B11FNUZ, 0x7F), 30.0);
        assert_eq!(decode(F8E8M0FNU, 0x80), 2.0);
        assert!(decode(F8E4M3FNUZ, 0x80).is_nan());
        assert!(decode(F8E8M0FNU, 0xFF).is_nan());
        // f8E4M3FN: 0x7E is the largest finite value, 448; 0x7F is NaN.
        assert_eq!(decode(F8E4M3FN, 0x7E), 448.0);
        assert!(decode(F8E4M3FN, 0x7F).is_nan());
        // f8E5M2 is IEEE-like: 0x7C is +inf, 0xFC -inf, 0x7D NaN; 0x01 is 2^-16.
        assert_eq!(decode(F8E5M2, 0x7C), f64::INFINITY);
        assert_eq!(decode(F8E5M2, 0xFC), f64::NEG_INFINITY);
        assert!(decode(F8E5M2, 0x7D).is_nan());
        assert_eq!(decode(F8E5M2, 0x01), 2f64.powi(-16));
        // f4E2M1FN: 0x7 is 6.0, 0xF is -6.0, 0x8 is -0.
        assert_eq!(decode(F4E2M1FN, 0x7), 6.0);
        assert_eq!(decode(F4E2M1FN, 0xF), -6.0);
        assert!(decode(F4E2M1FN, 0x8).is_sign_negative());
        // f6E3M2FN: 0x1F is 1.75 * 2^4 = 28.
        assert_eq!(decode(F6E3M2FN, 0x1F), 28.0);
    }

    #[test]
    fn sub_byte_integers_sign_extend() {
        assert_eq!(raw_int(0x0F, 4, true), -1);
        assert_eq!(raw_int(0x0F, 4, false), 15);
        assert_eq!(raw_int(0x02, 2, true), -2);
        assert_eq!(raw_int(0x01, 2, true), 1);
    }
}
