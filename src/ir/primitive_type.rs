//! Element types, spelled as HLO prints them (`pred`, `s32`, `bf16`, ...).
//! XLA: `xla/xla_data.proto` (`enum PrimitiveType`), `xla/primitive_util.cc`.

/// The element-type table: each row is the Rust variant, the HLO spelling, the width of
/// one element in bits and the family.
macro_rules! primitive_types {
    ($( $variant:ident $name:literal $bits:literal $kind:ident; )*) => {
        spelled_enum! {
            /// The element type of an array. Tuples, tokens and opaque values are shapes, not
            /// element types.
            PrimitiveType, case: exact { $( $variant => $name, )* }
        }

        impl PrimitiveType {
            /// Width of one element in bits (pred is 8: it is stored as one byte).
            pub fn bit_width(self) -> usize {
                match self { $( PrimitiveType::$variant => $bits, )* }
            }

            /// Which family the type belongs to.
            pub fn kind(self) -> TypeKind {
                match self { $( PrimitiveType::$variant => TypeKind::$kind, )* }
            }
        }
    };
}

/// The family of an element type; decides the arithmetic semantics.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `pred`
    Pred,
    /// `s1` ... `s64`: two's complement, wrapping.
    Signed,
    /// `u1` ... `u64`: wrapping.
    Unsigned,
    /// IEEE-like binary floating point (including the f8/f6/f4 formats).
    Float,
    /// `c64`, `c128`: pairs of f32 / f64.
    Complex,
}

primitive_types! {
    // variant     HLO spelling     bits  kind
    Pred           "pred"           8     Pred;
    S1             "s1"             1     Signed;
    S2             "s2"             2     Signed;
    S4             "s4"             4     Signed;
    S8             "s8"             8     Signed;
    S16            "s16"            16    Signed;
    S32            "s32"            32    Signed;
    S64            "s64"            64    Signed;
    U1             "u1"             1     Unsigned;
    U2             "u2"             2     Unsigned;
    U4             "u4"             4     Unsigned;
    U8             "u8"             8     Unsigned;
    U16            "u16"            16    Unsigned;
    U32            "u32"            32    Unsigned;
    U64            "u64"            64    Unsigned;
    F16            "f16"            16    Float;
    BF16           "bf16"           16    Float;
    F32            "f32"            32    Float;
    F64            "f64"            64    Float;
    C64            "c64"            64    Complex;
    C128           "c128"           128   Complex;
    F8E5M2         "f8e5m2"         8     Float;
    F8E4M3         "f8e4m3"         8     Float;
    F8E4M3FN       "f8e4m3fn"       8     Float;
    F8E4M3B11FNUZ  "f8e4m3b11fnuz"  8     Float;
    F8E3M4         "f8e3m4"         8     Float;
    F8E5M2FNUZ     "f8e5m2fnuz"     8     Float;
    F8E4M3FNUZ     "f8e4m3fnuz"     8     Float;
    F8E8M0FNU      "f8e8m0fnu"      8     Float;
    F6E3M2FN       "f6e3m2fn"       6     Float;
    F6E2M3FN       "f6e2m3fn"       6     Float;
    F4E2M1FN       "f4e2m1fn"       4     Float;
}

impl PrimitiveType {
    /// True for `f16`, `bf16`, `f32`, `f64` and the narrow float formats.
    pub fn is_float(self) -> bool {
        self.kind() == TypeKind::Float
    }
    /// True for signed and unsigned integers (not pred).
    pub fn is_integral(self) -> bool {
        matches!(self.kind(), TypeKind::Signed | TypeKind::Unsigned)
    }
    /// True for signed integers.
    pub fn is_signed_integral(self) -> bool {
        self.kind() == TypeKind::Signed
    }
    /// True for unsigned integers.
    pub fn is_unsigned_integral(self) -> bool {
        self.kind() == TypeKind::Unsigned
    }
    /// True for `c64` and `c128`.
    pub fn is_complex(self) -> bool {
        self.kind() == TypeKind::Complex
    }
    /// Size of one element in memory, in bytes (sub-byte types take a whole byte, as on XLA:CPU).
    pub fn byte_size(self) -> usize {
        self.bit_width().div_ceil(8)
    }
    /// True where xlac stores and computes the type natively (everything but the f8/f6/f4
    /// formats and the 1/2/4-bit integers, which are parsed and printed but not executed).
    pub fn is_executable(self) -> bool {
        use PrimitiveType::*;
        matches!(
            self,
            Pred | S8
                | S16
                | S32
                | S64
                | U8
                | U16
                | U32
                | U64
                | F16
                | BF16
                | F32
                | F64
                | C64
                | C128
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip() {
        for &t in PrimitiveType::ALL {
            assert_eq!(t.name().parse::<PrimitiveType>(), Ok(t));
        }
        assert!("f33".parse::<PrimitiveType>().is_err());
    }
}
