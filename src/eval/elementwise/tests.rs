//! Array-level tests of the elementwise handlers. Expected values are worked out by hand
//! from XLA's semantics (see the comments), never computed by the code under test.

use half::{bf16, f16};
use num_complex::Complex;

use super::*;
use crate::ir::NativeType;

fn lit<T: NativeType>(values: Vec<T>) -> Literal {
    Literal::Array(ArrayLiteral::from_vec(&[values.len() as i64], values))
}

fn shape_of(ty: PrimitiveType, n: usize) -> Shape {
    Shape::array(ty, &[n as i64])
}

fn values<T: NativeType>(l: &Literal) -> Vec<T> {
    l.as_array()
        .and_then(|a| a.values::<T>())
        .expect("array of the expected type")
        .to_vec()
}

#[test]
fn integer_divide_by_zero_and_overflow() {
    let a = lit(vec![7i32, i32::MIN, -7, 9]);
    let b = lit(vec![0i32, -1, 2, -3]);
    let out = binary(Opcode::Divide, &shape_of(PrimitiveType::S32, 4), &a, &b).unwrap();
    assert_eq!(values::<i32>(&out), vec![-1, i32::MIN, -3, -3]);
    let out = binary(Opcode::Remainder, &shape_of(PrimitiveType::S32, 4), &a, &b).unwrap();
    assert_eq!(values::<i32>(&out), vec![7, 0, -1, 0]);
    let a = lit(vec![7u16, 8]);
    let b = lit(vec![0u16, 3]);
    let out = binary(Opcode::Divide, &shape_of(PrimitiveType::U16, 2), &a, &b).unwrap();
    assert_eq!(values::<u16>(&out), vec![u16::MAX, 2]);
}

#[test]
fn integer_add_wraps() {
    let a = lit(vec![i8::MAX, i8::MIN]);
    let b = lit(vec![1i8, -1]);
    let out = binary(Opcode::Add, &shape_of(PrimitiveType::S8, 2), &a, &b).unwrap();
    assert_eq!(values::<i8>(&out), vec![i8::MIN, i8::MAX]);
    let out = binary(Opcode::Multiply, &shape_of(PrimitiveType::S8, 2), &a, &a).unwrap();
    assert_eq!(values::<i8>(&out), vec![1, 0]); // 127^2 = 16129 = 63*256 + 1; (-128)^2 = 64*256
}

#[test]
fn shifts_on_arrays() {
    let a = lit(vec![1u32, 1, 0x8000_0000, 0x8000_0000]);
    let b = lit(vec![31u32, 32, 31, 33]);
    let out = binary(Opcode::ShiftLeft, &shape_of(PrimitiveType::U32, 4), &a, &b).unwrap();
    assert_eq!(values::<u32>(&out), vec![0x8000_0000, 0, 0, 0]);
    let out = binary(
        Opcode::ShiftRightArithmetic,
        &shape_of(PrimitiveType::U32, 4),
        &a,
        &b,
    )
    .unwrap();
    assert_eq!(values::<u32>(&out), vec![0, 0, u32::MAX, u32::MAX]);
}

#[test]
fn bf16_add_rounds_to_nearest_even() {
    // 1 + 2^-8 is halfway between bf16 1.0 and 1 + 2^-7: ties go to the even 1.0.
    let a = lit(vec![
        bf16::from_f32(1.0),
        bf16::from_f32(1.0 + 2f32.powi(-7)),
    ]);
    let b = lit(vec![
        bf16::from_f32(2f32.powi(-8)),
        bf16::from_f32(2f32.powi(-8)),
    ]);
    let out = binary(Opcode::Add, &shape_of(PrimitiveType::BF16, 2), &a, &b).unwrap();
    let got: Vec<f32> = values::<bf16>(&out).iter().map(|v| v.to_f32()).collect();
    // Second: 1 + 2^-7 + 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
    assert_eq!(got, vec![1.0, 1.0 + 2f32.powi(-6)]);
}

#[test]
fn f16_exp_computes_in_f32_and_rounds() {
    // e = 2.71828...; f16 spacing at 2 is 2^-9, nearest is 1392 * 2^-9 = 2.71875.
    let x = lit(vec![f16::from_f32(1.0), f16::from_f32(0.0)]);
    let out = unary(Opcode::Exp, &shape_of(PrimitiveType::F16, 2), &x).unwrap();
    assert_eq!(
        values::<f16>(&out),
        vec![f16::from_f32(2.71875), f16::from_f32(1.0)]
    );
}

#[test]
fn maximum_propagates_nan() {
    let a = lit(vec![f32::NAN, 1.0, -0.0, 3.0]);
    let b = lit(vec![1.0f32, f32::NAN, 0.0, 2.0]);
    let out = binary(Opcode::Maximum, &shape_of(PrimitiveType::F32, 4), &a, &b).unwrap();
    let got = values::<f32>(&out);
    assert!(got[0].is_nan() && got[1].is_nan());
    assert!(got[2] == 0.0 && got[2].is_sign_negative());
    assert_eq!(got[3], 3.0);
}

#[test]
fn unary_on_ints_and_pred() {
    let x = lit(vec![0i32, -1, 5]);
    let s = shape_of(PrimitiveType::S32, 3);
    assert_eq!(
        values::<i32>(&unary(Opcode::Not, &s, &x).unwrap()),
        vec![-1, 0, -6]
    );
    assert_eq!(
        values::<i32>(&unary(Opcode::PopulationCount, &s, &x).unwrap()),
        vec![0, 32, 2]
    );
    assert_eq!(
        values::<i32>(&unary(Opcode::Clz, &s, &x).unwrap()),
        vec![32, 0, 29]
    );
    let p = lit(vec![true, false]);
    let out = unary(Opcode::Not, &shape_of(PrimitiveType::Pred, 2), &p).unwrap();
    assert_eq!(values::<bool>(&out), vec![false, true]);
    assert!(unary(Opcode::Exp, &s, &x).is_err());
}

#[test]
fn is_finite_and_complex_parts() {
    let x = lit(vec![1.0f32, f32::INFINITY, f32::NAN, -0.0]);
    let out = unary(Opcode::IsFinite, &shape_of(PrimitiveType::Pred, 4), &x).unwrap();
    assert_eq!(values::<bool>(&out), vec![true, false, false, true]);
    let c = lit(vec![Complex::new(3.0f32, 4.0)]);
    let f = shape_of(PrimitiveType::F32, 1);
    assert_eq!(
        values::<f32>(&unary(Opcode::Abs, &f, &c).unwrap()),
        vec![5.0]
    );
    assert_eq!(
        values::<f32>(&unary(Opcode::Real, &f, &c).unwrap()),
        vec![3.0]
    );
    assert_eq!(
        values::<f32>(&unary(Opcode::Imag, &f, &c).unwrap()),
        vec![4.0]
    );
    let re = lit(vec![1.0f64]);
    let im = lit(vec![-2.0f64]);
    let out = binary(Opcode::Complex, &shape_of(PrimitiveType::C128, 1), &re, &im).unwrap();
    assert_eq!(values::<Complex<f64>>(&out), vec![Complex::new(1.0, -2.0)]);
}

#[test]
fn compare_float_is_ieee() {
    use ComparisonDirection::*;
    let a = lit(vec![f32::NAN, 1.0, -0.0]);
    let b = lit(vec![f32::NAN, 2.0, 0.0]);
    let run = |d| values::<bool>(&compare(&a, &b, d, None).unwrap());
    assert_eq!(run(Eq), vec![false, false, true]);
    assert_eq!(run(Ne), vec![true, true, false]);
    assert_eq!(run(Lt), vec![false, true, false]);
    assert_eq!(run(Ge), vec![false, false, true]);
}

#[test]
fn compare_total_order() {
    use ComparisonDirection::*;
    let a = lit(vec![-0.0f32, f32::NAN, f32::NAN, -f32::NAN]);
    let b = lit(vec![0.0f32, f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
    let t = Some(ComparisonType::TotalOrder);
    assert_eq!(
        values::<bool>(&compare(&a, &b, Lt, t).unwrap()),
        vec![true, false, false, true]
    );
    assert_eq!(
        values::<bool>(&compare(&a, &b, Eq, t).unwrap()),
        vec![false, true, false, false]
    );
    assert_eq!(
        values::<bool>(&compare(&a, &b, Gt, t).unwrap()),
        vec![false, false, true, false]
    );
    let a = lit(vec![bf16::from_f32(-0.0)]);
    let b = lit(vec![bf16::from_f32(0.0)]);
    assert_eq!(values::<bool>(&compare(&a, &b, Lt, t).unwrap()), vec![true]);
    assert_eq!(
        values::<bool>(&compare(&a, &b, Lt, None).unwrap()),
        vec![false]
    );
}

#[test]
fn compare_integers_pred_complex() {
    use ComparisonDirection::*;
    let a = lit(vec![u32::MAX, 1]);
    let b = lit(vec![1u32, 1]);
    assert_eq!(
        values::<bool>(&compare(&a, &b, Gt, None).unwrap()),
        vec![true, false]
    );
    let a = lit(vec![-1i64]);
    let b = lit(vec![1i64]);
    assert_eq!(
        values::<bool>(&compare(&a, &b, Lt, None).unwrap()),
        vec![true]
    );
    let a = lit(vec![false, true]);
    let b = lit(vec![true, true]);
    assert_eq!(
        values::<bool>(&compare(&a, &b, Lt, None).unwrap()),
        vec![true, false]
    );
    let c = lit(vec![Complex::new(1.0f32, 2.0)]);
    assert_eq!(
        values::<bool>(&compare(&c, &c, Eq, None).unwrap()),
        vec![true]
    );
    assert!(compare(&c, &c, Lt, None).is_err());
    assert!(compare(&lit(vec![1i32]), &lit(vec![1i64]), Eq, None).is_err());
}

#[test]
fn select_with_array_and_scalar_predicate() {
    let t = lit(vec![1i32, 2, 3]);
    let f = lit(vec![10i32, 20, 30]);
    let p = lit(vec![true, false, true]);
    assert_eq!(values::<i32>(&select(&p, &t, &f).unwrap()), vec![1, 20, 3]);
    let p = Literal::Array(ArrayLiteral::scalar(false));
    assert_eq!(
        values::<i32>(&select(&p, &t, &f).unwrap()),
        vec![10, 20, 30]
    );
    assert!(select(&lit(vec![true, false]), &t, &f).is_err());
}

#[test]
fn clamp_with_scalar_bounds() {
    let lo = Literal::Array(ArrayLiteral::scalar(0i32));
    let hi = Literal::Array(ArrayLiteral::scalar(10i32));
    let x = lit(vec![-5i32, 5, 15]);
    assert_eq!(values::<i32>(&clamp(&lo, &x, &hi).unwrap()), vec![0, 5, 10]);
    let lo = lit(vec![0.0f32, 0.0]);
    let hi = lit(vec![1.0f32, f32::NAN]);
    let x = lit(vec![f32::NAN, 0.5]);
    let got = values::<f32>(&clamp(&lo, &x, &hi).unwrap());
    assert!(got[0].is_nan() && got[1].is_nan());
}

#[test]
fn convert_float_to_int_saturates() {
    let x = lit(vec![f32::NAN, 1e10, -1e10, -1.9, 2.9, f32::INFINITY]);
    let out = convert(&shape_of(PrimitiveType::S32, 6), &x).unwrap();
    assert_eq!(
        values::<i32>(&out),
        vec![0, i32::MAX, i32::MIN, -1, 2, i32::MAX]
    );
    let x = lit(vec![-1.0f64, 300.0, 255.9]);
    let out = convert(&shape_of(PrimitiveType::U8, 3), &x).unwrap();
    assert_eq!(values::<u8>(&out), vec![0, 255, 255]);
    let x = lit(vec![bf16::from_f32(-3.75)]);
    assert_eq!(
        values::<i8>(&convert(&shape_of(PrimitiveType::S8, 1), &x).unwrap()),
        vec![-3]
    );
}

#[test]
fn convert_ints_pred_and_complex() {
    let x = lit(vec![u32::MAX, 5]);
    assert_eq!(
        values::<i32>(&convert(&shape_of(PrimitiveType::S32, 2), &x).unwrap()),
        vec![-1, 5]
    );
    let x = lit(vec![0i32, 2, -1]);
    let out = convert(&shape_of(PrimitiveType::Pred, 3), &x).unwrap();
    assert_eq!(values::<bool>(&out), vec![false, true, true]);
    let x = lit(vec![true, false]);
    assert_eq!(
        values::<f32>(&convert(&shape_of(PrimitiveType::F32, 2), &x).unwrap()),
        vec![1.0, 0.0]
    );
    let x = lit(vec![f32::NAN, 0.0, -0.0]);
    let out = convert(&shape_of(PrimitiveType::Pred, 3), &x).unwrap();
    assert_eq!(values::<bool>(&out), vec![true, false, false]);
    let x = lit(vec![Complex::new(2.5f32, 7.0)]);
    assert_eq!(
        values::<f64>(&convert(&shape_of(PrimitiveType::F64, 1), &x).unwrap()),
        vec![2.5]
    );
    let x = lit(vec![3i16]);
    let out = convert(&shape_of(PrimitiveType::C64, 1), &x).unwrap();
    assert_eq!(values::<Complex<f32>>(&out), vec![Complex::new(3.0, 0.0)]);
}

#[test]
fn convert_rounding_paths() {
    // 2^24 + 1 is a tie between 2^24 and 2^24 + 2 in f32: even wins.
    let x = lit(vec![(1i64 << 24) + 1]);
    assert_eq!(
        values::<f32>(&convert(&shape_of(PrimitiveType::F32, 1), &x).unwrap()),
        vec![16777216.0]
    );
    // s64 -> f32 rounds once: 2^60 + 2^36 + 1 is just above the midpoint of the f32 spacing
    // 2^37, so it rounds up (going through f64 would round to the tie and then down).
    let x = lit(vec![(1i64 << 60) + (1 << 36) + 1]);
    let want = (2f64.powi(60) + 2f64.powi(37)) as f32;
    assert_eq!(
        values::<f32>(&convert(&shape_of(PrimitiveType::F32, 1), &x).unwrap()),
        vec![want]
    );
    // f64 -> bf16 goes through f32 as Eigen does: 1 + 2^-8 + 2^-30 becomes the f32 tie
    // 1 + 2^-8, which rounds to even (1.0).
    let x = lit(vec![1.0 + 2f64.powi(-8) + 2f64.powi(-30)]);
    let out = convert(&shape_of(PrimitiveType::BF16, 1), &x).unwrap();
    assert_eq!(values::<bf16>(&out), vec![bf16::from_f32(1.0)]);
    let x = lit(vec![1.0 + 2f32.powi(-11), 65520.0]);
    let out = convert(&shape_of(PrimitiveType::F16, 2), &x).unwrap();
    assert_eq!(values::<f16>(&out), vec![f16::from_f32(1.0), f16::INFINITY]);
}

#[test]
fn bitcast_convert_same_narrower_wider() {
    let x = lit(vec![1.0f32, -0.0]);
    let out = bitcast_convert(&shape_of(PrimitiveType::S32, 2), &x).unwrap();
    assert_eq!(values::<i32>(&out), vec![0x3F80_0000, i32::MIN]);
    // 1.0f32 = 0x3F800000, little-endian bytes 00 00 80 3F.
    let out = bitcast_convert(&Shape::array(PrimitiveType::U8, &[2, 4]), &x).unwrap();
    assert_eq!(out.as_array().unwrap().shape.dims, vec![2, 4]);
    assert_eq!(values::<u8>(&out), vec![0, 0, 0x80, 0x3F, 0, 0, 0, 0x80]);
    let back = bitcast_convert(&shape_of(PrimitiveType::F32, 2), &out).unwrap();
    assert_eq!(values::<f32>(&back)[0], 1.0);
    assert!(bitcast_convert(&shape_of(PrimitiveType::F64, 2), &x).is_err());
}

#[test]
fn reduce_precision_to_bf16_and_f16_formats() {
    let x = lit(vec![
        1.0 + 2f32.powi(-8),
        1.0 + 3.0 * 2f32.powi(-8),
        f32::NAN,
    ]);
    let out = reduce_precision(&x, 8, 7).unwrap();
    let got = values::<f32>(&out);
    assert_eq!(&got[..2], &[1.0, 1.0 + 2f32.powi(-6)]);
    assert!(got[2].is_nan());
    // f16 format: 65520 rounds (tie to even) to 65536, which overflows to inf; 1e-8 is below
    // the smallest normal f16 (2^-14) and flushes to a signed zero; 1e5 overflows.
    let x = lit(vec![65520.0f32, 1e-8, -1e-8, 1e5, 65504.0]);
    let got = values::<f32>(&reduce_precision(&x, 5, 10).unwrap());
    assert_eq!(got, vec![f32::INFINITY, 0.0, -0.0, f32::INFINITY, 65504.0]);
    assert!(got[2].is_sign_negative());
    // With no mantissa bits a NaN stays NaN on XLA:CPU (testdata/reduce_precision, output 3).
    let x = lit(vec![-f64::NAN]);
    assert!(values::<f64>(&reduce_precision(&x, 5, 0).unwrap())[0].is_nan());
    assert!(reduce_precision(&lit(vec![1i32]), 5, 10).is_err());
}
