//! VHLO's attribute codes (1–25) and type codes (0–42): what each one reads, and the
//! spellings of its enums.
//! StableHLO: `stablehlo/dialect/VhloBytecode.cpp` (the codes), `VhloEnums.td`.

use std::rc::Rc;

use super::attr_table::{A, EnumKind, T, Tables};
use super::builtin::{extend, float_from_bits};
use super::encoding::{BResult, Cursor};
use crate::ir::PrimitiveType;

/// Decodes a VHLO attribute.
pub fn attr(t: &mut Tables<'_>, c: &mut Cursor<'_>) -> BResult<A> {
    let at = c.offset();
    let code = c.varint("a VHLO attribute code")?;
    let enum_of = |kind: EnumKind, c: &mut Cursor<'_>| -> BResult<A> {
        let at = c.offset();
        let v = c.varint("an enum value")?;
        if enum_name(kind, v).is_none() {
            return Err(Cursor::err_at(at, format!("unknown {kind:?} value {v}")));
        }
        Ok(A::Enum(kind, v))
    };
    Ok(match code {
        1 => A::Array(t.read_attrs(c, "an array element")?),
        2 => {
            let at = c.offset();
            match c.varint("a boolean")? {
                0 => A::Bool(false),
                1 => A::Bool(true),
                v => {
                    return Err(Cursor::err_at(
                        at,
                        format!("expected a boolean 0 or 1, found {v}"),
                    ));
                }
            }
        }
        3 => enum_of(EnumKind::ComparisonDirection, c)?,
        4 => enum_of(EnumKind::ComparisonType, c)?,
        5 => enum_of(EnumKind::CustomCallApiVersion, c)?,
        6 => A::Dict(t.read_dictionary(c)?),
        7 => enum_of(EnumKind::FftType, c)?,
        8 => {
            let ty = t.read_type(c, "a float's type")?;
            let T::Float(p) = &*ty else {
                return Err(c.err("expected a float attribute of a float type"));
            };
            let raw = c.apint(p.bit_width() as u32, "a float value")?;
            A::Float(ty.clone(), float_from_bits(raw, *p))
        }
        9 => {
            let ty = t.read_type(c, "an integer's type")?;
            let width = match &*ty {
                T::Int(w, _) if *w >= 2 => *w,
                T::Index => 64,
                _ => return Err(c.err("expected an integer attribute of an integer type")),
            };
            let raw = c.apint(width, "an integer value")?;
            A::Int(ty.clone(), extend(raw, width, &ty))
        }
        10 => A::OutputOperandAlias {
            output: c.svarints("output tuple indices")?,
            operand: c.svarint("an operand index")?,
            operand_tuple: c.svarints("operand tuple indices")?,
        },
        11 => enum_of(EnumKind::Precision, c)?,
        12 => enum_of(EnumKind::RngAlgorithm, c)?,
        13 => enum_of(EnumKind::RngDistribution, c)?,
        14 => A::Str(t.read_string(c, "a string")?),
        15 => {
            let tat = c.offset();
            let ty = t.read_type(c, "a tensor's type")?;
            let blob = c.blob("tensor data")?;
            let T::Tensor(dims, elem, _) = &*ty else {
                return Err(Cursor::err_at(
                    tat,
                    "expected a tensor attribute of a tensor type",
                ));
            };
            let data = if matches!(**elem, T::Bool) {
                unpack_bools(dims, blob)
            } else {
                blob.to_vec()
            };
            A::Tensor(ty.clone(), Rc::new(data))
        }
        16 => enum_of(EnumKind::Transpose, c)?,
        17 => A::Type(t.read_type(c, "a type")?),
        18 => A::TypeExtensions(c.svarints("type bounds")?),
        19 => enum_of(EnumKind::ResultAccuracyMode, c)?,
        20 => {
            let atol = f64::from_bits(c.apint(64, "atol")? as u64);
            let rtol = f64::from_bits(c.apint(64, "rtol")? as u64);
            let ulps = c.svarint("ulps")?;
            let mode = t.read_attr(c, "a result accuracy mode")?;
            A::ResultAccuracy {
                atol,
                rtol,
                ulps,
                mode,
            }
        }
        21..=25 => {
            return Err(Cursor::err_at(
                at,
                format!("VHLO mesh attribute (code {code}) is not supported yet"),
            )
            .unsupported());
        }
        other => {
            return Err(Cursor::err_at(
                at,
                format!("unknown VHLO attribute code {other}"),
            ));
        }
    })
}

/// `i1` tensors are bit-packed (eight per byte, or one `0xFF` byte for a true splat);
/// this returns one byte per element (or one byte for a splat).
fn unpack_bools(dims: &[i64], blob: &[u8]) -> Vec<u8> {
    let n = dims
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d.max(0) as u64));
    let Some(n) = n else {
        return blob.to_vec();
    };
    if blob.len() == 1 && blob[0] == 0xFF {
        return vec![1];
    }
    let packed = n.div_ceil(8);
    if blob.len() as u64 == packed && blob.len() as u64 != n {
        return (0..n as usize)
            .map(|i| (blob[i / 8] >> (i % 8)) & 1)
            .collect();
    }
    blob.to_vec()
}

/// The StableHLO spelling of an enum value.
pub fn enum_name(kind: EnumKind, v: u64) -> Option<&'static str> {
    use EnumKind as K;
    let names: &[&str] = match kind {
        K::ComparisonDirection => &["EQ", "NE", "GE", "GT", "LE", "LT"],
        K::ComparisonType => &["NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"],
        K::CustomCallApiVersion => &[
            "API_VERSION_UNSPECIFIED",
            "API_VERSION_ORIGINAL",
            "API_VERSION_STATUS_RETURNING",
            "API_VERSION_STATUS_RETURNING_UNIFIED",
            "API_VERSION_TYPED_FFI",
        ],
        K::FftType => &["FFT", "IFFT", "RFFT", "IRFFT"],
        K::Precision => &["DEFAULT", "HIGH", "HIGHEST"],
        K::RngAlgorithm => &["DEFAULT", "THREE_FRY", "PHILOX"],
        K::RngDistribution => &["", "UNIFORM", "NORMAL"],
        K::Transpose => &["TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"],
        K::ResultAccuracyMode => &["DEFAULT", "HIGHEST", "TOLERANCE"],
    };
    names.get(v as usize).copied().filter(|s| !s.is_empty())
}

/// The enum's keyword in `#stablehlo<KEYWORD VALUE>`.
pub fn enum_keyword(kind: EnumKind) -> &'static str {
    use EnumKind as K;
    match kind {
        K::ComparisonDirection => "comparison_direction",
        K::ComparisonType => "comparison_type",
        K::CustomCallApiVersion => "custom_call_api_version",
        K::FftType => "fft_type",
        K::Precision => "precision",
        K::RngAlgorithm => "rng_algorithm",
        K::RngDistribution => "rng_distribution",
        K::Transpose => "transpose",
        K::ResultAccuracyMode => "result_accuracy_mode",
    }
}

/// Decodes a VHLO type.
pub fn ty(t: &mut Tables<'_>, c: &mut Cursor<'_>) -> BResult<T> {
    use PrimitiveType as P;
    let at = c.offset();
    let code = c.varint("a VHLO type code")?;
    Ok(match code {
        0 => T::Bool,
        1 => T::Complex(t.read_type(c, "a complex element type")?),
        2 => T::Float(P::BF16),
        3 => T::Float(P::F16),
        4 => T::Float(P::F32),
        5 => T::Float(P::F64),
        6 => T::Float(P::F8E4M3FN),
        7 => T::Float(P::F8E5M2),
        8 => T::Function(
            t.read_types(c, "a function input")?,
            t.read_types(c, "a function result")?,
        ),
        9 => T::Index,
        10 => T::Int(4, None),
        11 => T::Int(8, None),
        12 => T::Int(16, None),
        13 => T::Int(32, None),
        14 => T::Int(64, None),
        15 => T::Int(4, Some(false)),
        16 => T::Int(8, Some(false)),
        17 => T::Int(16, Some(false)),
        18 => T::Int(32, Some(false)),
        19 => T::Int(64, Some(false)),
        20 | 21 => {
            let encoding = if code == 21 {
                Some(t.read_attr(c, "a tensor encoding")?)
            } else {
                None
            };
            let dims = c.svarints("a tensor dimension")?;
            let elem = t.read_type(c, "a tensor element type")?;
            T::Tensor(dims, elem, encoding)
        }
        22 => T::Token,
        23 => T::Tuple(t.read_types(c, "a tuple element")?),
        24 | 30 => {
            let flags = c.varint("quantization flags")?;
            let storage = t.read_type(c, "a storage type")?;
            let expressed = t.read_type(c, "an expressed type")?;
            if code == 24 {
                let scale = f64::from_bits(c.apint(64, "a scale")? as u64);
                let zp = c.svarint("a zero point")?;
                let storage_min = c.svarint("a storage minimum")?;
                let storage_max = c.svarint("a storage maximum")?;
                T::Quant {
                    flags,
                    storage,
                    expressed,
                    axis: None,
                    scales: vec![scale],
                    zero_points: vec![zp],
                    storage_min,
                    storage_max,
                }
            } else {
                let axis = c.varint("a quantized dimension")?;
                let storage_min = c.svarint("a storage minimum")?;
                let storage_max = c.svarint("a storage maximum")?;
                let n = c.count("the number of scales")?;
                let mut scales = Vec::with_capacity(n);
                for _ in 0..n {
                    scales.push(f64::from_bits(c.apint(64, "a scale")? as u64));
                }
                let zero_points = c.svarints("zero points")?;
                T::Quant {
                    flags,
                    storage,
                    expressed,
                    axis: Some(axis),
                    scales,
                    zero_points,
                    storage_min,
                    storage_max,
                }
            }
        }
        25 => T::Unranked(t.read_type(c, "a tensor element type")?),
        26 => T::Other("!stablehlo.witness"),
        27 => T::Float(P::F8E4M3FNUZ),
        28 => T::Float(P::F8E5M2FNUZ),
        29 => T::Float(P::F8E4M3B11FNUZ),
        31 => T::Int(2, None),
        32 => T::Int(2, Some(false)),
        33 => T::None,
        34 => T::Other("tf32"),
        35 => T::Float(P::F8E4M3),
        36 => T::Float(P::F8E3M4),
        37 => T::Float(P::F4E2M1FN),
        38 => T::Float(P::F6E2M3FN),
        39 => T::Float(P::F6E3M2FN),
        40 => T::Float(P::F8E8M0FNU),
        41 => {
            c.svarints("a buffer dimension")?;
            t.read_type(c, "a buffer element type")?;
            T::Other("!stablehlo.buffer")
        }
        42 => {
            t.read_types(c, "a future's types")?;
            T::Other("!stablehlo.future")
        }
        other => {
            return Err(Cursor::err_at(
                at,
                format!("unknown VHLO type code {other}"),
            ));
        }
    })
}
