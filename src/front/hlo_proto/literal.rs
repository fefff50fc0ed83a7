//! Constants as `LiteralProto`: each element type in its own repeated field, or as
//! little-endian bytes where the proto keeps bytes.
//!
//! XLA: `xla/xla_data.proto` (`LiteralProto`).

use super::messages::*;
use super::shape::shape;
use super::{Result, unsupported};
use crate::ir::{ArrayData, Instruction, Literal, PrimitiveType, Shape};

fn le_bytes<T, const N: usize>(v: &[T], f: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(f).collect()
}

/// A literal with its elements in physical (layout) order, as `LiteralProto` stores them.
pub(super) fn literal(instr: &Instruction, l: &Literal) -> Result<LiteralProto> {
    let a = match l {
        Literal::Tuple(elements) => {
            return Ok(LiteralProto {
                shape: Some(
                    shape(&l.shape())
                        .map_err(|_| unsupported(instr, "a literal's layout".into()))?,
                ),
                tuple_literals: elements
                    .iter()
                    .map(|e| literal(instr, e))
                    .collect::<Result<_>>()?,
                ..LiteralProto::default()
            });
        }
        Literal::Array(a) => a,
        Literal::Token => return Err(unsupported(instr, "a token literal".into())),
    };
    let mut p = LiteralProto {
        shape: Some(
            shape(&Shape::Array(a.shape.clone()))
                .map_err(|_| unsupported(instr, "a literal's layout".into()))?,
        ),
        ..LiteralProto::default()
    };
    use PrimitiveType as T;
    match &a.data {
        ArrayData::Pred(v) => p.preds = v.clone(),
        ArrayData::S8(v) => p.s8s = v.iter().map(|&x| x as u8).collect(),
        ArrayData::S16(v) => p.s16s = le_bytes(v, |x| x.to_le_bytes()),
        ArrayData::S32(v) => p.s32s = v.clone(),
        ArrayData::S64(v) => p.s64s = v.clone(),
        ArrayData::U8(v) => p.u8s = v.clone(),
        ArrayData::U16(v) => p.u16s = le_bytes(v, |x| x.to_le_bytes()),
        ArrayData::U32(v) => p.u32s = v.clone(),
        ArrayData::U64(v) => p.u64s = v.clone(),
        ArrayData::F16(v) => p.f16s = le_bytes(v, |x| x.to_le_bytes()),
        ArrayData::BF16(v) => p.bf16s = le_bytes(v, |x| x.to_le_bytes()),
        ArrayData::F32(v) => p.f32s = v.clone(),
        ArrayData::F64(v) => p.f64s = v.clone(),
        ArrayData::C64(v) => p.c64s = v.iter().flat_map(|c| [c.re, c.im]).collect(),
        ArrayData::C128(v) => p.c128s = v.iter().flat_map(|c| [c.re, c.im]).collect(),
        ArrayData::Raw(v) => {
            let field = match a.shape.element_type {
                T::S1 => &mut p.s1s,
                T::S2 => &mut p.s2s,
                T::S4 => &mut p.s4s,
                T::U1 => &mut p.u1s,
                T::U2 => &mut p.u2s,
                T::U4 => &mut p.u4s,
                T::F8E5M2 => &mut p.f8e5m2s,
                T::F8E4M3 => &mut p.f8e4m3s,
                T::F8E4M3FN => &mut p.f8e4m3fns,
                T::F8E4M3B11FNUZ => &mut p.f8e4m3b11fnuzs,
                T::F8E3M4 => &mut p.f8e3m4s,
                T::F8E5M2FNUZ => &mut p.f8e5m2fnuzs,
                T::F8E4M3FNUZ => &mut p.f8e4m3fnuzs,
                T::F8E8M0FNU => &mut p.f8e8m0fnus,
                T::F6E3M2FN => &mut p.f6e3m2fns,
                T::F6E2M3FN => &mut p.f6e2m3fns,
                T::F4E2M1FN => &mut p.f4e2m1fns,
                other => return Err(unsupported(instr, format!("raw {other} literal data"))),
            };
            *field = v.clone();
        }
    }
    Ok(p)
}
