//! The small CHLO ops: is_inf, is_pos_inf, is_neg_inf, conj, square, next_after, mulhi,
//! constant_like and top_k.
//!
//! Mirrors openxla/stablehlo `ChloDecompositionPatterns.td` (is_inf, conj, mulhi),
//! `ChloDecompositionPatternsMath.td` (square), and `ChloLegalizeToStablehlo.cpp`
//! (next_after, constant_like). `chlo.top_k` becomes the HLO `topk` op, as XLA's
//! `chlo-legalize-to-high-level-mhlo` makes it (the plain StableHLO legalization would sort
//! with an iota and slice instead; both give the same values and indices).

use super::emit::{Emitter, Scalar, array_shape};
use super::{ChloAttr, ChloOp, require_float};
use crate::ir::Refusal;
use crate::ir::{InstrId, Op, Opcode, PrimitiveType, Shape};

/// `is_inf(x) = is_pos_inf(|x|)`.
pub(super) fn is_inf(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float("is_inf", em, x)?;
    let ax = em.abs(x);
    is_pos_inf(em, ax)
}

/// `is_pos_inf(x) = (x == +inf)`.
pub(super) fn is_pos_inf(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float("is_pos_inf", em, x)?;
    let inf = em.inf(false, x);
    Ok(em.eq(x, inf))
}

/// `is_neg_inf(x) = (x == -inf)`.
pub(super) fn is_neg_inf(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float("is_neg_inf", em, x)?;
    let inf = em.inf(true, x);
    Ok(em.eq(x, inf))
}

/// `conj(z) = complex(real(z), -imag(z))`; a real operand is returned unchanged.
pub(super) fn conj(em: &mut Emitter<'_>, z: InstrId) -> InstrId {
    if !em.ty(z).is_complex() {
        return z;
    }
    let re = em.part(Opcode::Real, z);
    let im = em.part(Opcode::Imag, z);
    let neg_im = em.neg(im);
    em.complex(re, neg_im)
}

/// `square(x) = x * x`. For complex `x + iy`: real part `(x - y)(x + y)`, exactly 0 when
/// |x| == |y| (finite), imaginary part `2xy`.
pub(super) fn square(em: &mut Emitter<'_>, z: InstrId) -> InstrId {
    if !em.ty(z).is_complex() {
        return em.mul(z, z);
    }
    let x = em.part(Opcode::Real, z);
    let y = em.part(Opcode::Imag, z);
    let finite = em.is_finite(x);
    let ax = em.abs(x);
    let ay = em.abs(y);
    let same = em.eq(ax, ay);
    let exact_zero = em.and(finite, same);
    let zero = em.c(0.0, x);
    let d = em.sub(x, y);
    let s = em.add(x, y);
    let p = em.mul(d, s);
    let re = em.select(exact_zero, zero, p);
    let two = em.c(2.0, x);
    let xy = em.mul(x, y);
    let im = em.mul(two, xy);
    em.complex(re, im)
}

/// The signed integer type of a float type's width.
fn int_of_width(ty: PrimitiveType) -> Option<PrimitiveType> {
    match ty.bit_width() {
        16 => Some(PrimitiveType::S16),
        32 => Some(PrimitiveType::S32),
        64 => Some(PrimitiveType::S64),
        _ => None,
    }
}

/// `next_after(x, y)`: the representable value after x in the direction of y, computed on
/// the bit patterns: ±1 on the magnitude, the smallest subnormal signed like y when x is
/// zero, y when x == y, nan when either is nan.
pub(super) fn next_after(em: &mut Emitter<'_>, x: InstrId, y: InstrId) -> Result<InstrId, Refusal> {
    require_float("next_after", em, x)?;
    let ty = em.ty(x);
    let int_ty = int_of_width(ty)
        .ok_or_else(|| Refusal::unsupported(format!("chlo.next_after of {ty} is not supported")))?;
    let bits = ty.bit_width();
    let x_int = em.bitcast_convert(x, int_ty);
    let y_int = em.bitcast_convert(y, int_ty);

    let x_nan = em.ne(x, x);
    let y_nan = em.ne(y, y);
    let nan_input = em.or(x_nan, y_nan);
    let nan = em.c(f64::NAN, x);
    let nan_int = em.bitcast_convert(nan, int_ty);

    let sign_bit = 1i64.wrapping_shl(bits as u32 - 1);
    let sign_mask = em.ci(sign_bit, x_int);
    let magnitude_mask = em.ci(!sign_bit, x_int);
    let x_abs = em.and(x_int, magnitude_mask);
    let y_abs = em.and(y_int, magnitude_mask);

    let equal = em.eq(x, y);
    let zero = em.ci(0, x_int);
    let x_zero = em.eq(x_abs, zero);
    let y_zero = em.eq(y_abs, zero);
    let x_sign = em.and(x_int, sign_mask);
    let y_sign = em.and(y_int, sign_mask);
    let one = em.ci(1, x_int);
    // From ±0 towards a non-zero y: the smallest subnormal with y's sign.
    let from_zero = em.or(y_sign, one);

    let signs_disagree = em.ne(x_sign, y_sign);
    let x_larger = em.gt(x_abs, y_abs);
    let shrink = em.or(x_larger, signs_disagree);
    let minus_one = em.ci(-1, x_int);
    let step = em.select(shrink, minus_one, one);
    let result = em.add(x_int, step);
    let zero_case = em.select(y_zero, y_int, from_zero);
    let result = em.select(x_zero, zero_case, result);
    let result = em.select(equal, y_int, result);
    let result = em.select(nan_input, nan_int, result);
    Ok(em.bitcast_convert(result, ty))
}

/// `mulhi(a, b)`: the high half of the double-width product.
pub(super) fn mulhi(em: &mut Emitter<'_>, a: InstrId, b: InstrId) -> Result<InstrId, Refusal> {
    use PrimitiveType as P;
    let ty = em.ty(a);
    let wide = match ty {
        P::S8 => P::S16,
        P::S16 => P::S32,
        P::S32 => P::S64,
        P::U8 => P::U16,
        P::U16 => P::U32,
        P::U32 => P::U64,
        P::U64 => return Ok(mulhi_u64(em, a, b)),
        P::S64 => return Ok(mulhi_s64(em, a, b)),
        _ => {
            return Err(Refusal::unsupported(format!(
                "chlo.mulhi of {ty} is not supported"
            )));
        }
    };
    // Narrower than 64 bits: widen, multiply, shift the high half down, narrow.
    let wa = em.convert(a, wide);
    let wb = em.convert(b, wide);
    let product = em.mul(wa, wb);
    let shift = em.ci(ty.bit_width() as i64, product);
    let opcode = if ty.is_signed_integral() {
        Opcode::ShiftRightArithmetic
    } else {
        Opcode::ShiftRightLogical
    };
    let high = em.binary(opcode, product, shift);
    Ok(em.convert(high, ty))
}

/// u64 mulhi from 32-bit halves: `a_hi b_hi + (mid1 >> 32) + (mid2 >> 32)` with
/// `mid1 = a_lo b_hi + (a_lo b_lo >> 32)` and `mid2 = a_hi b_lo + (mid1 & 0xFFFFFFFF)`.
fn mulhi_u64(em: &mut Emitter<'_>, a: InstrId, b: InstrId) -> InstrId {
    let c32 = em.ci(32, a);
    let low_mask = em.ci(0xFFFF_FFFF, a);
    let a_hi = em.binary(Opcode::ShiftRightLogical, a, c32);
    let b_hi = em.binary(Opcode::ShiftRightLogical, b, c32);
    let a_lo = em.and(a, low_mask);
    let b_lo = em.and(b, low_mask);
    let p0 = em.mul(a_lo, b_lo);
    let p1 = em.mul(a_lo, b_hi);
    let p2 = em.mul(a_hi, b_lo);
    let p3 = em.mul(a_hi, b_hi);
    let carry_p0 = em.binary(Opcode::ShiftRightLogical, p0, c32);
    let mid1 = em.add(p1, carry_p0);
    let mid1_lo = em.and(mid1, low_mask);
    let mid2 = em.add(p2, mid1_lo);
    let carry_mid1 = em.binary(Opcode::ShiftRightLogical, mid1, c32);
    let carry_mid2 = em.binary(Opcode::ShiftRightLogical, mid2, c32);
    let high = em.add(p3, carry_mid1);
    em.add(high, carry_mid2)
}

/// s64 mulhi: the unsigned high half, minus b when a < 0 and minus a when b < 0
/// (two's complement sign correction), converted back to s64.
fn mulhi_s64(em: &mut Emitter<'_>, a: InstrId, b: InstrId) -> InstrId {
    let ua = em.convert(a, PrimitiveType::U64);
    let ub = em.convert(b, PrimitiveType::U64);
    let hi = mulhi_u64(em, ua, ub);
    let zero_s = em.ci(0, a);
    let zero_u = em.ci(0, ua);
    let a_neg = em.lt(a, zero_s);
    let fix_a = em.select(a_neg, ub, zero_u);
    let b_neg = em.lt(b, zero_s);
    let fix_b = em.select(b_neg, ua, zero_u);
    let hi = em.sub(hi, fix_a);
    let hi = em.sub(hi, fix_b);
    em.convert(hi, PrimitiveType::S64)
}

/// `constant_like(x) {value = v}`: a splat constant of the result type, shaped like x.
pub(super) fn constant_like(em: &mut Emitter<'_>, op: &ChloOp<'_>) -> Result<InstrId, Refusal> {
    let [x] = op.operands else {
        return Err("chlo.constant_like takes 1 operand".into());
    };
    let value = match op.attr("value") {
        Some(ChloAttr::Float(v)) => Scalar::F(*v),
        Some(ChloAttr::Int(v)) => Scalar::I(*v),
        Some(ChloAttr::Bool(v)) => Scalar::I(*v as i64),
        other => {
            return Err(format!("chlo.constant_like needs a scalar `value`, got {other:?}").into());
        }
    };
    let ty = match op.result_shapes {
        [shape] => shape.element_type(),
        _ => None,
    }
    .unwrap_or_else(|| em.ty(*x));
    let dims = em.dims(*x);
    Ok(em.constant(value, ty, &dims))
}

/// `chlo.top_k(x, k)`: the HLO `topk` op (largest first, ties by lower index) and its two
/// tuple elements, values and s32 indices.
pub(super) fn top_k(em: &mut Emitter<'_>, op: &ChloOp<'_>) -> Result<Vec<InstrId>, Refusal> {
    let [x] = op.operands else {
        return Err("chlo.top_k takes 1 operand".into());
    };
    let x = *x;
    let k = match op.attr("k") {
        Some(ChloAttr::Int(k)) if *k >= 0 => *k,
        other => {
            return Err(format!("chlo.top_k needs a non-negative `k`, got {other:?}").into());
        }
    };
    let mut dims = em.dims(x);
    let Some(last) = dims.last_mut() else {
        return Err("chlo.top_k needs an operand of rank >= 1".into());
    };
    if k > *last {
        return Err(
            format!("chlo.top_k: k = {k} is larger than the last dimension ({last})").into(),
        );
    }
    *last = k;
    let ty = em.ty(x);
    let values = array_shape(ty, &dims);
    let indices = array_shape(PrimitiveType::S32, &dims);
    let tuple = Shape::Tuple(vec![values.clone(), indices.clone()]);
    let topk = em.push(tuple, Op::TopK { k, largest: true }, vec![x]);
    let v = em.push(values, Op::GetTupleElement { index: 0 }, vec![topk]);
    let i = em.push(indices, Op::GetTupleElement { index: 1 }, vec![topk]);
    Ok(vec![v, i])
}
