//! Matchers and makers that several rule files share: XLA's `IsAll` (a constant, maybe
//! under broadcasts, whose every element is 0 or 1), the integer extremes, and
//! `MakeScalarLike` (`broadcast(constant(v))` of a given shape).
//! XLA: the helpers at the top of `algebraic_simplifier.cc`, `hlo_creation_utils.cc`.

use half::{bf16, f16};
use num_complex::Complex;

use super::{NewInstr, Value};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, Computation, InstrId, Literal, Op, PrimitiveType, Shape,
};

/// The constant under a chain of broadcasts, if `id` is one (how XLA's `IsAll` looks).
pub fn broadcast_constant(comp: &Computation, id: InstrId) -> Option<&ArrayLiteral> {
    let mut id = id;
    loop {
        let instr = comp.instr(id);
        match &instr.op {
            Op::Broadcast { .. } => id = instr.operands[0],
            Op::Constant { literal } => return literal.as_array(),
            _ => return None,
        }
    }
}

/// `IsAll(op, value)`: `id` is a constant (maybe broadcast) whose every element equals
/// `value` (`false`/`true` for pred; `0.0` and `-0.0` both equal 0 for floats, as C++'s
/// `==` says; complex numbers need a zero imaginary part). Empty constants do not count.
pub fn is_all(comp: &Computation, id: InstrId, value: i8) -> bool {
    let Some(literal) = broadcast_constant(comp, id) else {
        return false;
    };
    if literal.data.is_empty() {
        return false;
    }
    let v = value as i64;
    let f = value as f64;
    match &literal.data {
        ArrayData::Pred(d) => d.iter().all(|&e| e == (v != 0)),
        ArrayData::S8(d) => d.iter().all(|&e| e as i64 == v),
        ArrayData::S16(d) => d.iter().all(|&e| e as i64 == v),
        ArrayData::S32(d) => d.iter().all(|&e| e as i64 == v),
        ArrayData::S64(d) => d.iter().all(|&e| e == v),
        ArrayData::U8(d) => d.iter().all(|&e| e as i64 == v),
        ArrayData::U16(d) => d.iter().all(|&e| e as i64 == v),
        ArrayData::U32(d) => d.iter().all(|&e| e as i64 == v),
        ArrayData::U64(d) => d.iter().all(|&e| v >= 0 && e == v as u64),
        ArrayData::F16(d) => d.iter().all(|&e| e.to_f64() == f),
        ArrayData::BF16(d) => d.iter().all(|&e| e.to_f64() == f),
        ArrayData::F32(d) => d.iter().all(|&e| e as f64 == f),
        ArrayData::F64(d) => d.iter().all(|&e| e == f),
        ArrayData::C64(d) => d.iter().all(|e| e.re as f64 == f && e.im == 0.0),
        ArrayData::C128(d) => d.iter().all(|e| e.re == f && e.im == 0.0),
        ArrayData::Raw(_) => false,
    }
}

/// The smallest or the largest value of an integer type.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Extreme {
    /// `LiteralUtil::MinValue`.
    Min,
    /// `LiteralUtil::MaxValue`.
    Max,
}

/// `IsAll(op, MinValue)` / `IsAll(op, MaxValue)` for integer types (pred and floats: false).
pub fn is_all_integer_extreme(comp: &Computation, id: InstrId, which: Extreme) -> bool {
    let Some(literal) = broadcast_constant(comp, id) else {
        return false;
    };
    if literal.data.is_empty() {
        return false;
    }
    macro_rules! all_extreme {
        ($d:expr, $t:ty) => {{
            let target = if which == Extreme::Min {
                <$t>::MIN
            } else {
                <$t>::MAX
            };
            $d.iter().all(|&e| e == target)
        }};
    }
    match &literal.data {
        ArrayData::S8(d) => all_extreme!(d, i8),
        ArrayData::S16(d) => all_extreme!(d, i16),
        ArrayData::S32(d) => all_extreme!(d, i32),
        ArrayData::S64(d) => all_extreme!(d, i64),
        ArrayData::U8(d) => all_extreme!(d, u8),
        ArrayData::U16(d) => all_extreme!(d, u16),
        ArrayData::U32(d) => all_extreme!(d, u32),
        ArrayData::U64(d) => all_extreme!(d, u64),
        _ => false,
    }
}

/// A scalar literal of type `ty` holding the small integer `value` (`false`/`true` for
/// pred), or `None` for types xlac does not compute in.
pub fn scalar_literal(ty: PrimitiveType, value: i8) -> Option<ArrayLiteral> {
    use PrimitiveType as P;
    let data = match ty {
        P::Pred => ArrayData::Pred(vec![value != 0]),
        P::S8 => ArrayData::S8(vec![value]),
        P::S16 => ArrayData::S16(vec![value as i16]),
        P::S32 => ArrayData::S32(vec![value as i32]),
        P::S64 => ArrayData::S64(vec![value as i64]),
        P::U8 => ArrayData::U8(vec![value as u8]),
        P::U16 => ArrayData::U16(vec![value as u16]),
        P::U32 => ArrayData::U32(vec![value as u32]),
        P::U64 => ArrayData::U64(vec![value as u64]),
        P::F16 => ArrayData::F16(vec![f16::from_f32(value as f32)]),
        P::BF16 => ArrayData::BF16(vec![bf16::from_f32(value as f32)]),
        P::F32 => ArrayData::F32(vec![value as f32]),
        P::F64 => ArrayData::F64(vec![value as f64]),
        P::C64 => ArrayData::C64(vec![Complex::new(value as f32, 0.0)]),
        P::C128 => ArrayData::C128(vec![Complex::new(value as f64, 0.0)]),
        _ => return None,
    };
    Some(ArrayLiteral {
        shape: ArrayShape::new(ty, &[]),
        data,
    })
}

/// XLA's `MakeScalarLike`: `constant(value)` of `shape`'s element type, broadcast to
/// `shape` unless it is a scalar. The last instruction has exactly `shape`.
pub fn scalar_like(shape: &Shape, value: i8) -> Option<Vec<NewInstr>> {
    let array = shape.as_array()?;
    let literal = scalar_literal(array.element_type, value)?;
    let mut constant_shape = Shape::Array(literal.shape.clone());
    if array.rank() == 0 {
        // Keep the layout and any dynamic-ness spelled on the old instruction.
        constant_shape = shape.clone();
    }
    let constant = NewInstr::new(
        constant_shape,
        Op::Constant {
            literal: Literal::Array(literal),
        },
        vec![],
    );
    if array.rank() == 0 {
        return Some(vec![constant]);
    }
    let broadcast = NewInstr::new(
        shape.clone(),
        Op::Broadcast { dimensions: vec![] },
        vec![Value::New(0)],
    );
    Some(vec![constant, broadcast])
}

/// The array shape of an instruction, if it has one.
pub fn array_shape(comp: &Computation, id: InstrId) -> Option<&ArrayShape> {
    comp.instr(id).shape.as_array()
}

/// A row-major array shape with this element type and these dimensions.
pub fn row_major(ty: PrimitiveType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims)
}

/// The operand ids of an instruction.
pub fn operands(comp: &Computation, id: InstrId) -> &[InstrId] {
    &comp.instr(id).operands
}

/// True if `dims` is `0, 1, ..., n-1`.
pub fn is_identity_permutation(dims: &[usize]) -> bool {
    dims.iter().enumerate().all(|(i, &d)| i == d)
}

/// The inverse of a permutation: `inverse[p[i]] = i`.
pub fn inverse_permutation(p: &[usize]) -> Vec<usize> {
    let mut inverse = vec![0; p.len()];
    for (i, &d) in p.iter().enumerate() {
        inverse[d] = i;
    }
    inverse
}

/// The integer value of a scalar (or one-element) integer constant.
pub fn constant_integer(comp: &Computation, id: InstrId) -> Option<i64> {
    let Op::Constant { literal } = &comp.instr(id).op else {
        return None;
    };
    let literal = literal.as_array()?;
    if literal.data.len() != 1 {
        return None;
    }
    match &literal.data {
        ArrayData::S8(d) => Some(d[0] as i64),
        ArrayData::S16(d) => Some(d[0] as i64),
        ArrayData::S32(d) => Some(d[0] as i64),
        ArrayData::S64(d) => Some(d[0]),
        ArrayData::U8(d) => Some(d[0] as i64),
        ArrayData::U16(d) => Some(d[0] as i64),
        ArrayData::U32(d) => Some(d[0] as i64),
        ArrayData::U64(d) => i64::try_from(d[0]).ok(),
        _ => None,
    }
}
