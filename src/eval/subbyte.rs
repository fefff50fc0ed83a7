//! The narrow types: sub-byte integers (`s1`/`s2`/`s4`, `u1`/`u2`/`u4`), which the
//! interpreter computes on `s8`/`u8`, and the narrow float formats (f8, `f4e2m1fn`), computed
//! on `f16`/`f32` (see [`super::narrow_float`]; the same widen-compute-narrow scheme as
//! below, with a rounding to the format where the integers wrap). What it is not: a packed
//! storage format (xlac stores one element per byte, as XLA:CPU does for arrays it does not
//! pack).
//!
//! A literal of such a type is stored as [`ArrayData::Raw`], one byte per element holding the
//! low `width` bits. Inside the evaluator the values live **widened**: an `s4` array is an `s8`
//! array whose elements are in `-8..=7` (a `u4` one a `u8` array in `0..=15`). The evaluator
//! ([`super::Evaluator::call`]) runs every instruction whose shape names a sub-byte type on a
//! copy whose shape is widened ([`widen_shape`]), so the ordinary `s8`/`u8` handlers run
//! unchanged, and then [`normalize`]s the result: it wraps each element to the declared width
//! (two's complement: `s4` 7 + 1 = -8) and widens raw constants and arguments. Values leave
//! the evaluator narrowed back to `Raw` ([`narrow`]).
//!
//! Only three ops see more than the value: `clz` counts from the declared width, and
//! `popcnt` and `shift-right-logical` read a signed element as its `width`-bit pattern,
//! not as the sign-extended byte; [`prepare_operands`] and [`normalize`] adjust them.
//! XLA: `xla/primitive_util.h` (the int4/int2 types), `hlo_evaluator_typed_visitor.h`.

use std::borrow::Cow;

use super::narrow_float;
use crate::ir::{ArrayData, ArrayLiteral, Literal, Opcode, PrimitiveType, Shape};

/// True for the integer types narrower than a byte.
pub fn is_sub_byte_int(ty: PrimitiveType) -> bool {
    ty.is_integral() && ty.bit_width() < 8
}

/// True for the types the evaluator computes widened: sub-byte integers and narrow floats.
pub fn is_narrow(ty: PrimitiveType) -> bool {
    is_sub_byte_int(ty) || narrow_float::is_narrow_float(ty)
}

/// True if any array leaf of `shape` has a narrow element type ([`is_narrow`]).
pub fn shape_has_narrow(shape: &Shape) -> bool {
    match shape {
        Shape::Array(a) => is_narrow(a.element_type),
        Shape::Tuple(t) => t.iter().any(shape_has_narrow),
        Shape::Token | Shape::Opaque => false,
    }
}

/// The type the interpreter computes `ty` on (`s4` -> `s8`, `u2` -> `u8`, `f8e4m3fn` ->
/// `f16`).
pub fn wide_type(ty: PrimitiveType) -> PrimitiveType {
    match (is_sub_byte_int(ty), ty.is_signed_integral()) {
        (false, _) => narrow_float::wide_type(ty),
        (true, true) => PrimitiveType::S8,
        (true, false) => PrimitiveType::U8,
    }
}

/// `shape` with every narrow leaf replaced by its wide type.
pub fn widen_shape(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => {
            let mut a = a.clone();
            a.element_type = wide_type(a.element_type);
            Shape::Array(a)
        }
        Shape::Tuple(t) => Shape::Tuple(t.iter().map(widen_shape).collect()),
        other => other.clone(),
    }
}

/// `x` (any byte) wrapped to a `width`-bit integer: sign-extended if `signed`, else masked.
fn wrap(x: u8, width: usize, signed: bool) -> u8 {
    let shift = 8 - width;
    if signed {
        (((x << shift) as i8) >> shift) as u8
    } else {
        (x << shift) >> shift
    }
}

/// Brings a value of declared shape `declared` into the evaluator's widened form: `Raw`
/// leaves of sub-byte type are sign-/zero-extended into `s8`/`u8`, and `s8`/`u8` leaves are
/// wrapped to the declared width. `opcode` is the op that produced the value (`clz` is
/// counted on the byte and is corrected here).
pub fn normalize(value: Literal, declared: &Shape, opcode: Opcode) -> Literal {
    match (value, declared) {
        (Literal::Tuple(t), Shape::Tuple(s)) if t.len() == s.len() => Literal::Tuple(
            t.into_iter()
                .zip(s)
                .map(|(v, s)| normalize(v, s, opcode))
                .collect(),
        ),
        (Literal::Array(mut a), Shape::Array(s)) if is_sub_byte_int(s.element_type) => {
            let ty = s.element_type;
            let (width, signed) = (ty.bit_width(), ty.is_signed_integral());
            // `clz` on the byte counts 8 - width extra zeros (its operand is the
            // width-bit pattern, see `prepare_operands`).
            let excess = if opcode == Opcode::Clz {
                (8 - width) as u8
            } else {
                0
            };
            let bytes: Option<Vec<u8>> = match &a.data {
                ArrayData::Raw(v) => Some(v.clone()),
                ArrayData::S8(v) => Some(v.iter().map(|&x| x as u8).collect()),
                ArrayData::U8(v) => Some(v.clone()),
                _ => None,
            };
            let Some(bytes) = bytes else {
                return Literal::Array(a);
            };
            let wrapped = bytes
                .into_iter()
                .map(|x| wrap(x.wrapping_sub(excess), width, signed));
            a.data = if signed {
                ArrayData::S8(wrapped.map(|x| x as i8).collect())
            } else {
                ArrayData::U8(wrapped.collect())
            };
            a.shape.element_type = wide_type(ty);
            Literal::Array(a)
        }
        (Literal::Array(mut a), Shape::Array(s))
            if narrow_float::is_narrow_float(s.element_type) =>
        {
            let ty = s.element_type;
            a.data = match std::mem::replace(&mut a.data, ArrayData::Raw(Vec::new())) {
                ArrayData::Raw(codes) => narrow_float::from_codes(&codes, ty),
                wide => narrow_float::round_wide(wide, ty),
            };
            a.shape.element_type = wide_type(ty);
            Literal::Array(a)
        }
        (value, _) => value,
    }
}

/// The operands `opcode` should see: for `popcnt`, `clz` and `shift-right-logical`, a
/// signed sub-byte element is passed as its `width`-bit pattern (`s4` -1 as 15), the bits
/// the op reads. `operand_types` are the declared element types of the operands.
pub fn prepare_operands<'a>(
    opcode: Opcode,
    operands: &[&'a Literal],
    operand_types: &[Option<PrimitiveType>],
) -> Vec<Cow<'a, Literal>> {
    let reads_bits = matches!(
        opcode,
        Opcode::PopulationCount | Opcode::Clz | Opcode::ShiftRightLogical
    );
    operands
        .iter()
        .enumerate()
        .map(|(i, &o)| {
            let ty = operand_types.get(i).copied().flatten();
            match (o, ty) {
                (Literal::Array(a), Some(ty))
                    if reads_bits && i == 0 && is_sub_byte_int(ty) && ty.is_signed_integral() =>
                {
                    let mask = ((1u16 << ty.bit_width()) - 1) as u8;
                    let mut a = a.clone();
                    if let ArrayData::S8(v) = &mut a.data {
                        v.iter_mut().for_each(|x| *x = (*x as u8 & mask) as i8);
                    }
                    Cow::Owned(Literal::Array(a))
                }
                _ => Cow::Borrowed(o),
            }
        })
        .collect()
}

/// The value in its stored form: every leaf whose declared type is narrow becomes `Raw`
/// (one byte per element: a sub-byte integer's low `width` bits, a narrow float's code).
pub fn narrow(value: Literal, declared: &Shape) -> Literal {
    match (value, declared) {
        (Literal::Tuple(t), Shape::Tuple(s)) if t.len() == s.len() => {
            Literal::Tuple(t.into_iter().zip(s).map(|(v, s)| narrow(v, s)).collect())
        }
        (Literal::Array(a), Shape::Array(s)) if is_sub_byte_int(s.element_type) => {
            let ty = s.element_type;
            let mask = ((1u16 << ty.bit_width()) - 1) as u8;
            let bytes: Vec<u8> = match &a.data {
                ArrayData::S8(v) => v.iter().map(|&x| x as u8 & mask).collect(),
                ArrayData::U8(v) | ArrayData::Raw(v) => v.iter().map(|&x| x & mask).collect(),
                _ => return Literal::Array(a),
            };
            Literal::Array(ArrayLiteral {
                shape: crate::ir::ArrayShape {
                    element_type: ty,
                    ..a.shape
                },
                data: ArrayData::Raw(bytes),
            })
        }
        (Literal::Array(a), Shape::Array(s)) if narrow_float::is_narrow_float(s.element_type) => {
            let ty = s.element_type;
            match narrow_float::to_codes(&a.data, ty) {
                Some(codes) => Literal::Array(ArrayLiteral {
                    shape: crate::ir::ArrayShape {
                        element_type: ty,
                        ..a.shape
                    },
                    data: ArrayData::Raw(codes),
                }),
                None => Literal::Array(a),
            }
        }
        (value, _) => value,
    }
}

#[cfg(test)]
mod tests;
