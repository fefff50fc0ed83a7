//! Elementwise ops: unary, binary, `select`, `clamp` and the conversions.
//! XLA: `InferUnaryOpShape`, `InferBinaryOpShape`, `InferClampShape`, `InferSelectShape`,
//! `InferConvertShape`, `InferBitcastConvertShape` in `xla/service/shape_inference.cc`.
//!
//! HLO (unlike the XLA builder) has no implicit broadcasting: the operands of a binary op
//! have equal dimensions. xlac also asks for equal element types (no mixed precision).

use super::{
    complex_component, expect_array, human_string, is_scalar, is_signed, with_element_type,
};
use crate::ir::{Opcode, PrimitiveType, Shape, TypeKind};

/// Which element types an elementwise opcode accepts, as one word for messages.
fn accepts(opcode: Opcode, t: PrimitiveType) -> Option<&'static str> {
    use Opcode::*;
    let kind = t.kind();
    let float = kind == TypeKind::Float;
    let complex = kind == TypeKind::Complex;
    let integral = t.is_integral();
    let (ok, needs) = match opcode {
        Floor | Ceil | RoundNearestAfz | RoundNearestEven | IsFinite | Erf => {
            (float, "a floating-point")
        }
        Cos | Sin | Tan | Exp | Expm1 | Log | Log1p | Logistic | Rsqrt | Sqrt | Cbrt | Tanh
        | Acos | Acosh | Asin | Asinh | Atanh | Cosh | Sinh => {
            (float || complex, "a floating-point or complex")
        }
        Real | Imag => (float || complex, "a floating-point or complex"),
        Abs => (
            is_signed(t) || complex,
            "a signed, floating-point or complex",
        ),
        Sign => (
            is_signed(t) || complex,
            "a signed, floating-point or complex",
        ),
        Clz | PopulationCount => (integral, "an integer"),
        Negate => (integral || float || complex, "a numeric"),
        Not | And | Or | Xor => (integral || kind == TypeKind::Pred, "a pred or integer"),
        Subtract | Atan2 | Power | Divide | Remainder => (kind != TypeKind::Pred, "a numeric"),
        ShiftLeft | ShiftRightArithmetic | ShiftRightLogical | MulHi => (integral, "an integer"),
        Complex => (
            t == PrimitiveType::F32 || t == PrimitiveType::F64,
            "an f32 or f64",
        ),
        _ => (true, ""),
    };
    if ok { None } else { Some(needs) }
}

/// Elementwise unary ops: the operand's shape, except `is-finite` (pred) and `abs`,
/// `real`, `imag` of complex numbers (the component type).
pub(super) fn infer_unary(opcode: Opcode, operand: &Shape) -> Result<Shape, String> {
    let a = expect_array(operand, &format!("the operand of {opcode}"))?;
    let t = a.element_type;
    if let Some(needs) = accepts(opcode, t) {
        return Err(format!(
            "{opcode} needs {needs} operand, but it is {}",
            human_string(operand)
        ));
    }
    Ok(match opcode {
        Opcode::IsFinite => with_element_type(a, PrimitiveType::Pred),
        Opcode::Abs | Opcode::Real | Opcode::Imag => match complex_component(t) {
            Some(c) => with_element_type(a, c),
            None => operand.clone(),
        },
        _ => operand.clone(),
    })
}

/// Elementwise binary ops (and `compare`): equal dims, equal element types. The result has
/// the operands' shape, `pred` for `compare`, complex for `complex`.
pub(super) fn infer_binary(opcode: Opcode, lhs: &Shape, rhs: &Shape) -> Result<Shape, String> {
    let (l, r) = match (lhs.as_array(), rhs.as_array()) {
        (Some(l), Some(r)) => (l, r),
        _ => {
            return Err(format!(
                "operands are {} and {}; {opcode} needs arrays",
                human_string(lhs),
                human_string(rhs)
            ));
        }
    };
    if l.dims != r.dims {
        return Err(format!(
            "operands are {} and {}; {opcode} needs equal shapes",
            human_string(lhs),
            human_string(rhs)
        ));
    }
    if l.element_type != r.element_type {
        return Err(format!(
            "operands are {} and {}; {opcode} needs the same element type on both sides",
            human_string(lhs),
            human_string(rhs)
        ));
    }
    if let Some(needs) = accepts(opcode, l.element_type) {
        return Err(format!(
            "{opcode} needs {needs} element type, but the operands are {}",
            human_string(lhs)
        ));
    }
    let mut result = l.clone();
    // A dimension dynamic in either operand is dynamic in the result.
    if !r.dynamic_dims.is_empty() {
        result.dynamic_dims = (0..l.rank())
            .map(|i| super::is_dynamic(l, i) || super::is_dynamic(r, i))
            .collect();
    }
    result.element_type = match opcode {
        Opcode::Compare => PrimitiveType::Pred,
        Opcode::Complex if l.element_type == PrimitiveType::F64 => PrimitiveType::C128,
        Opcode::Complex => PrimitiveType::C64,
        _ => l.element_type,
    };
    Ok(Shape::Array(result))
}

/// `select(pred, on_true, on_false)`: `pred` has pred elements and the same dims as the
/// branches (current XLA no longer accepts a scalar predicate); the branches are equal.
pub(super) fn infer_select(
    pred: &Shape,
    on_true: &Shape,
    on_false: &Shape,
) -> Result<Shape, String> {
    let p = expect_array(pred, "the predicate of select")?;
    let t = expect_array(on_true, "the on-true operand of select")?;
    expect_array(on_false, "the on-false operand of select")?;
    if !on_true.compatible(on_false) {
        return Err(format!(
            "the branches are {} and {}; select needs equal shapes",
            human_string(on_true),
            human_string(on_false)
        ));
    }
    if p.element_type != PrimitiveType::Pred {
        return Err(format!(
            "the predicate of select must be pred, but is {}",
            human_string(pred)
        ));
    }
    if p.dims != t.dims {
        return Err(format!(
            "the predicate is {} but the branches are {}; select needs the same dimensions",
            human_string(pred),
            human_string(on_true)
        ));
    }
    Ok(on_true.clone())
}

/// `clamp(min, operand, max)`: `min` and `max` are each a scalar or the operand's shape,
/// all with one element type. The result is the operand's shape.
pub(super) fn infer_clamp(min: &Shape, operand: &Shape, max: &Shape) -> Result<Shape, String> {
    let x = expect_array(operand, "the operand of clamp")?;
    for (bound, name) in [(min, "min"), (max, "max")] {
        let b = expect_array(bound, &format!("the {name} of clamp"))?;
        if b.element_type != x.element_type || (b.rank() != 0 && b.dims != x.dims) {
            return Err(format!(
                "operands are {}, {} and {}; clamp needs min and max to be scalars or the operand's shape, with one element type",
                human_string(min),
                human_string(operand),
                human_string(max)
            ));
        }
    }
    Ok(operand.clone())
}

/// `convert(x)`: the operand's dims with the declared element type.
pub(super) fn infer_convert(operand: &Shape, declared: &Shape) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of convert")?;
    let to = expect_array(declared, "the result of convert")?;
    Ok(with_element_type(a, to.element_type))
}

/// `bitcast-convert(x)`: reinterprets the bits. Same width: same dims. Narrowing (`f32` to
/// `u8`): a new minor dimension of size `4` is appended. Widening: the operand's minor
/// dimension must be the width ratio and disappears.
pub(super) fn infer_bitcast_convert(operand: &Shape, declared: &Shape) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of bitcast-convert")?;
    let to = expect_array(declared, "the result of bitcast-convert")?.element_type;
    let from = a.element_type;
    if from.is_complex() != to.is_complex() {
        return Err(format!(
            "bitcast-convert cannot convert between complex and real types ({from} to {to})"
        ));
    }
    let (in_bits, out_bits) = (from.bit_width(), to.bit_width());
    if in_bits.max(out_bits) % in_bits.min(out_bits) != 0 {
        return Err(format!(
            "bitcast-convert from {from} to {to}: the bit widths {in_bits} and {out_bits} do not divide"
        ));
    }
    let ratio = (in_bits.max(out_bits) / in_bits.min(out_bits)) as i64;
    let mut result = a.clone();
    result.element_type = to;
    if in_bits > out_bits {
        result.dims.push(ratio);
        if !result.dynamic_dims.is_empty() {
            result.dynamic_dims.push(false);
        }
    } else if in_bits < out_bits {
        if result.dims.last() != Some(&ratio) {
            return Err(format!(
                "bitcast-convert from {} to {to} needs a last dimension of {ratio} (the width ratio)",
                human_string(operand)
            ));
        }
        result.dims.pop();
        result.dynamic_dims.truncate(result.dims.len());
    }
    result.layout = crate::ir::Layout::row_major(result.rank());
    Ok(Shape::Array(result))
}

/// `stochastic-convert(x, random)`: float operand, unsigned random bits of the same width
/// and dims; the declared element type.
pub(super) fn infer_stochastic_convert(
    operand: &Shape,
    random: &Shape,
    declared: &Shape,
) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of stochastic-convert")?;
    let r = expect_array(random, "the random bits of stochastic-convert")?;
    let to = expect_array(declared, "the result of stochastic-convert")?.element_type;
    if !a.element_type.is_float() || !r.element_type.is_unsigned_integral() {
        return Err(format!(
            "stochastic-convert needs a float operand and unsigned random bits, got {} and {}",
            human_string(operand),
            human_string(random)
        ));
    }
    if a.element_type.bit_width() != r.element_type.bit_width() || a.dims != r.dims {
        return Err(format!(
            "stochastic-convert needs random bits of the operand's width and dims, got {} and {}",
            human_string(operand),
            human_string(random)
        ));
    }
    Ok(with_element_type(a, to))
}

/// `reduce-precision(x)`: a float operand; the same shape.
pub(super) fn infer_reduce_precision(operand: &Shape, exponent_bits: u32) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of reduce-precision")?;
    if !a.element_type.is_float() {
        return Err(format!(
            "reduce-precision needs a floating-point operand, but it is {}",
            human_string(operand)
        ));
    }
    if exponent_bits < 1 {
        return Err("reduce-precision needs exponent_bits >= 1".to_string());
    }
    Ok(operand.clone())
}

/// True if the shape is a scalar of this element type (for `rng` bounds and such).
pub(super) fn is_scalar_of(shape: &Shape, t: PrimitiveType) -> bool {
    is_scalar(shape) && shape.element_type() == Some(t)
}
