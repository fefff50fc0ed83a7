//! Elementwise ops: unary, binary, select, clamp, conversions.

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` in a table of cases.
#![allow(clippy::cloned_ref_to_slice_refs)]

use super::*;
use crate::ir::PrimitiveType::*;
use crate::ir::*;

#[test]
fn binary_ops_need_equal_shapes_and_types() {
    let (f4, f5) = (s(F32, &[4]), s(F32, &[5]));
    assert_eq!(
        plain(Opcode::Add, &[f4.clone(), f4.clone()], f4.clone()),
        ok("f32[4]")
    );
    assert_eq!(
        plain(Opcode::Add, &[f4.clone(), f5], f4.clone()),
        Err("operands are f32[4] and f32[5]; add needs equal shapes".to_string())
    );
    assert_err(
        plain(Opcode::Multiply, &[f4.clone(), s(S32, &[4])], f4.clone()),
        "same element type",
    );
    // Bitwise ops need pred or integers; arithmetic (other than add) rejects pred.
    assert_err(
        plain(Opcode::And, &[f4.clone(), f4.clone()], f4),
        "pred or integer",
    );
    let p = s(Pred, &[2]);
    assert_err(
        plain(Opcode::Subtract, &[p.clone(), p.clone()], p),
        "numeric",
    );
    let i = s(S32, &[3]);
    assert_eq!(
        plain(Opcode::ShiftRightLogical, &[i.clone(), i.clone()], i),
        ok("s32[3]")
    );
}

#[test]
fn compare_gives_pred_and_complex_gives_complex() {
    let x = s(F32, &[2, 3]);
    let op = Op::Compare {
        direction: ComparisonDirection::Lt,
        comparison_type: None,
    };
    assert_eq!(
        infer(&[x.clone(), x.clone()], op, s(Pred, &[2, 3])),
        ok("pred[2,3]")
    );
    assert_eq!(
        plain(Opcode::Complex, &[x.clone(), x.clone()], s(C64, &[2, 3])),
        ok("c64[2,3]")
    );
    let d = s(F64, &[1]);
    assert_eq!(
        plain(Opcode::Complex, &[d.clone(), d], s(C128, &[1])),
        ok("c128[1]")
    );
}

#[test]
fn unary_ops_check_element_types() {
    assert_eq!(
        plain(Opcode::Exp, &[s(F32, &[3])], s(F32, &[3])),
        ok("f32[3]")
    );
    assert_eq!(
        plain(Opcode::Abs, &[s(C64, &[3])], s(F32, &[3])),
        ok("f32[3]")
    );
    assert_eq!(
        plain(Opcode::Abs, &[s(S32, &[3])], s(S32, &[3])),
        ok("s32[3]")
    );
    assert_eq!(
        plain(Opcode::Real, &[s(C128, &[2])], s(F64, &[2])),
        ok("f64[2]")
    );
    assert_eq!(
        plain(Opcode::IsFinite, &[s(BF16, &[2])], s(Pred, &[2])),
        ok("pred[2]")
    );
    assert_eq!(
        plain(Opcode::Not, &[s(Pred, &[2])], s(Pred, &[2])),
        ok("pred[2]")
    );
    assert_eq!(plain(Opcode::Clz, &[s(U8, &[2])], s(U8, &[2])), ok("u8[2]"));
    assert_err(
        plain(Opcode::Floor, &[s(S32, &[3])], s(S32, &[3])),
        "floor needs a floating-point operand",
    );
    assert_err(
        plain(Opcode::Sqrt, &[s(S32, &[3])], s(S32, &[3])),
        "floating-point or complex",
    );
    assert_err(
        plain(Opcode::PopulationCount, &[s(F32, &[3])], s(F32, &[3])),
        "integer",
    );
    // copy keeps any shape, tuples included, and ignores layouts.
    let t = tuple(vec![s(F32, &[2]), s(S32, &[])]);
    assert_eq!(plain(Opcode::Copy, &[t.clone()], t), ok("(f32[2], s32[])"));
}

#[test]
fn convert_takes_the_declared_type() {
    assert_eq!(
        plain(Opcode::Convert, &[s(F32, &[2, 3])], s(S32, &[2, 3])),
        ok("s32[2,3]")
    );
    assert_eq!(
        plain(Opcode::Convert, &[s(F32, &[2, 3])], s(BF16, &[9])),
        ok("bf16[2,3]")
    );
}

#[test]
fn bitcast_convert_adds_or_removes_a_minor_dimension() {
    // f32 is 4 bytes: f32[2] -> u8[2,4] and back.
    assert_eq!(
        plain(Opcode::BitcastConvert, &[s(F32, &[2])], s(U8, &[2, 4])),
        ok("u8[2,4]")
    );
    assert_eq!(
        plain(Opcode::BitcastConvert, &[s(U8, &[2, 4])], s(F32, &[2])),
        ok("f32[2]")
    );
    assert_eq!(
        plain(Opcode::BitcastConvert, &[s(F32, &[2])], s(S32, &[2])),
        ok("s32[2]")
    );
    assert_err(
        plain(Opcode::BitcastConvert, &[s(U8, &[2, 3])], s(F32, &[2])),
        "last dimension of 4",
    );
    assert_err(
        plain(Opcode::BitcastConvert, &[s(C64, &[2])], s(U64, &[2])),
        "complex",
    );
}

#[test]
fn select_needs_a_pred_of_the_same_dims() {
    let (p, x) = (s(Pred, &[4]), s(F32, &[4]));
    assert_eq!(
        plain(Opcode::Select, &[p, x.clone(), x.clone()], x.clone()),
        ok("f32[4]")
    );
    // Current XLA no longer accepts a scalar predicate for an array select.
    assert_err(
        plain(
            Opcode::Select,
            &[s(Pred, &[]), x.clone(), x.clone()],
            x.clone(),
        ),
        "same dimensions",
    );
    assert_err(
        plain(
            Opcode::Select,
            &[s(S32, &[4]), x.clone(), x.clone()],
            x.clone(),
        ),
        "must be pred",
    );
    assert_err(
        plain(Opcode::Select, &[s(Pred, &[4]), x.clone(), s(F32, &[5])], x),
        "equal shapes",
    );
}

#[test]
fn clamp_accepts_scalar_bounds() {
    let (lo, x) = (s(F32, &[]), s(F32, &[4]));
    assert_eq!(
        plain(
            Opcode::Clamp,
            &[lo.clone(), x.clone(), lo.clone()],
            x.clone()
        ),
        ok("f32[4]")
    );
    assert_eq!(
        plain(
            Opcode::Clamp,
            &[x.clone(), x.clone(), lo.clone()],
            x.clone()
        ),
        ok("f32[4]")
    );
    assert_err(
        plain(Opcode::Clamp, &[s(F32, &[3]), x.clone(), lo], x.clone()),
        "clamp needs min and max",
    );
    assert_err(
        plain(Opcode::Clamp, &[s(S32, &[]), x.clone(), s(F32, &[])], x),
        "one element type",
    );
}

#[test]
fn reduce_precision_keeps_the_shape() {
    let op = Op::ReducePrecision {
        exponent_bits: 8,
        mantissa_bits: 7,
    };
    assert_eq!(
        infer(&[s(F32, &[3])], op.clone(), s(F32, &[3])),
        ok("f32[3]")
    );
    assert_err(infer(&[s(S32, &[3])], op, s(S32, &[3])), "floating-point");
}
