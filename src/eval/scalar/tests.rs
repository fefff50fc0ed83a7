//! Expected values come from XLA's documented semantics (operation_semantics.md and the
//! evaluator's lambdas) or are worked out by hand in the comments.

use super::*;

#[test]
fn integer_divide_and_remainder_edges() {
    assert_eq!(int_divide(7i32, 0), -1);
    assert_eq!(int_divide(7u32, 0), u32::MAX);
    assert_eq!(int_divide(i32::MIN, -1), i32::MIN);
    assert_eq!(int_divide(-7i32, 2), -3); // truncates toward zero
    assert_eq!(int_remainder(7i32, 0), 7);
    assert_eq!(int_remainder(i32::MIN, -1), 0);
    assert_eq!(int_remainder(-7i32, 2), -1); // sign of the dividend
    assert_eq!(int_remainder(7u8, 0), 7);
}

#[test]
fn shifts_out_of_range_and_negative() {
    let shl = int_binary::<i32>(Opcode::ShiftLeft).unwrap();
    let srl = int_binary::<i32>(Opcode::ShiftRightLogical).unwrap();
    let sra = int_binary::<i32>(Opcode::ShiftRightArithmetic).unwrap();
    assert_eq!(shl(1, 31), i32::MIN);
    assert_eq!(shl(1, 32), 0);
    assert_eq!(shl(1, -1), 0); // -1 as u32 is huge
    assert_eq!(srl(-1, 28), 15);
    assert_eq!(srl(-1, 32), 0);
    assert_eq!(sra(-8, 1), -4);
    assert_eq!(sra(-8, 32), -1);
    assert_eq!(sra(8, 40), 0);
    assert_eq!(sra(-8, -1), -1);
    // Arithmetic shift of an unsigned type fills with its top bit.
    let sra_u8 = int_binary::<u8>(Opcode::ShiftRightArithmetic).unwrap();
    assert_eq!(sra_u8(0x80, 1), 0xC0);
    assert_eq!(sra_u8(0x80, 8), 0xFF);
    let shl_i8 = int_binary::<i8>(Opcode::ShiftLeft).unwrap();
    assert_eq!(shl_i8(1, 7), i8::MIN);
    assert_eq!(shl_i8(1, 8), 0);
}

#[test]
fn integer_power() {
    assert_eq!(int_power(2i32, 10), 1024);
    assert_eq!(int_power(-2i32, 3), -8);
    assert_eq!(int_power(0i32, 0), 1);
    assert_eq!(int_power(2i32, -1), 0);
    assert_eq!(int_power(1i32, -5), 1);
    // XLA returns 1 for a negative exponent only when the base is 1.
    assert_eq!(int_power(-1i32, -1), 0);
    // 3^5 = 243 wraps to 243 - 256 = -13 in s8.
    assert_eq!(int_power(3i8, 5), -13);
    // XLA hands the exponent to IPow as a C int: 2^31 as int is negative, the loop never runs.
    assert_eq!(int_power(2u32, 1 << 31), 1);
}

#[test]
fn bit_counting() {
    let clz = int_unary::<i32>(Opcode::Clz).unwrap();
    assert_eq!((clz(0), clz(1), clz(-1), clz(0x0001_0000)), (32, 31, 0, 15));
    let clz_u8 = int_unary::<u8>(Opcode::Clz).unwrap();
    assert_eq!((clz_u8(0), clz_u8(1), clz_u8(0x80)), (8, 7, 0));
    let popcnt = int_unary::<i8>(Opcode::PopulationCount).unwrap();
    assert_eq!((popcnt(-1), popcnt(0), popcnt(0x55)), (8, 0, 4));
}

#[test]
fn integer_unary_wraps() {
    let abs = int_unary::<i32>(Opcode::Abs).unwrap();
    let neg = int_unary::<i32>(Opcode::Negate).unwrap();
    let sign = int_unary::<i32>(Opcode::Sign).unwrap();
    let not = int_unary::<u8>(Opcode::Not).unwrap();
    assert_eq!(
        (abs(i32::MIN), abs(-3), neg(i32::MIN), neg(5)),
        (i32::MIN, 3, i32::MIN, -5)
    );
    assert_eq!((sign(-7), sign(0), sign(9)), (-1, 0, 1));
    assert_eq!(not(0x0F), 0xF0);
    assert!(int_unary::<i32>(Opcode::Exp).is_none());
}

#[test]
fn float_sign_keeps_zero_sign_and_nan() {
    let sign = real_unary::<f32>(Opcode::Sign).unwrap();
    assert_eq!(sign(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(sign(0.0).to_bits(), 0);
    assert_eq!(sign(-3.5), -1.0);
    assert_eq!(sign(f32::INFINITY), 1.0);
    assert!(sign(f32::NAN).is_nan());
}

#[test]
fn rounding_modes() {
    let afz = real_unary::<f32>(Opcode::RoundNearestAfz).unwrap();
    let even = real_unary::<f32>(Opcode::RoundNearestEven).unwrap();
    assert_eq!([afz(2.5), afz(-2.5), afz(0.49999997)], [3.0, -3.0, 0.0]);
    assert_eq!(
        [even(2.5), even(3.5), even(-2.5), even(-0.4)],
        [2.0, 4.0, -2.0, -0.0]
    );
    assert!(even(-0.4).is_sign_negative());
}

#[test]
fn transcendental_values() {
    let logistic = real_unary::<f64>(Opcode::Logistic).unwrap();
    let erf = real_unary::<f64>(Opcode::Erf).unwrap();
    let rsqrt = real_unary::<f32>(Opcode::Rsqrt).unwrap();
    assert_eq!(logistic(0.0), 0.5);
    assert_eq!(logistic(f64::NEG_INFINITY), 0.0);
    // erf(1) = 0.8427007929497149 (Abramowitz & Stegun table 7.1).
    assert!((erf(1.0) - 0.842_700_792_949_714_9).abs() < 1e-15);
    assert_eq!(erf(f64::INFINITY), 1.0);
    assert_eq!(rsqrt(4.0), 0.5);
    assert_eq!(rsqrt(0.0), f32::INFINITY);
    let log = real_unary::<f32>(Opcode::Log).unwrap();
    assert!(log(-1.0).is_nan());
    assert_eq!(log(0.0), f32::NEG_INFINITY);
}

#[test]
fn min_max_propagate_nan_and_keep_lhs_on_ties() {
    assert!(real_maximum(f32::NAN, 1.0).is_nan());
    assert!(real_maximum(1.0, f32::NAN).is_nan());
    assert!(real_minimum(f32::NAN, 1.0).is_nan());
    assert!(real_minimum(1.0f64, f64::NAN).is_nan());
    // std::max(a, b) returns a unless a < b, so ±0 ties keep the lhs.
    assert!(real_maximum(-0.0f32, 0.0).is_sign_negative());
    assert!(real_maximum(0.0f32, -0.0).is_sign_positive());
    assert!(real_minimum(0.0f32, -0.0).is_sign_positive());
    assert_eq!(real_maximum(2.0f32, 3.0), 3.0);
    assert_eq!(real_minimum(2.0f32, 3.0), 2.0);
}

#[test]
fn clamp_nan_rules() {
    assert!(real_clamp(0.0f32, f32::NAN, 1.0).is_nan());
    assert!(real_clamp(f32::NAN, 5.0, 1.0).is_nan());
    assert!(real_clamp(0.0f32, 5.0, f32::NAN).is_nan());
    assert_eq!(real_clamp(0.0f32, 5.0, 1.0), 1.0);
    assert_eq!(real_clamp(0.0f32, -5.0, 1.0), 0.0);
    assert_eq!(real_clamp(0.0f32, 0.5, 1.0), 0.5);
}

#[test]
fn float_power_and_remainder() {
    let pow = real_binary::<f32>(Opcode::Power).unwrap();
    let rem = real_binary::<f64>(Opcode::Remainder).unwrap();
    assert_eq!(pow(1.0, f32::NAN), 1.0);
    assert_eq!(pow(f32::NAN, 0.0), 1.0);
    assert_eq!(pow(2.0, 3.0), 8.0);
    assert_eq!(pow(0.0, -1.0), f32::INFINITY);
    assert!(pow(-8.0, 1.0 / 3.0).is_nan());
    // fmod keeps the dividend's sign.
    assert_eq!(rem(-7.5, 2.0), -1.5);
    assert!(rem(1.0, 0.0).is_nan());
    assert_eq!(rem(5.0, f64::INFINITY), 5.0);
}

#[test]
fn pred_ops() {
    let add = pred_binary(Opcode::Add).unwrap();
    let sub = pred_binary(Opcode::Subtract).unwrap();
    let pow = pred_binary(Opcode::Power).unwrap();
    assert!(add(true, false) && add(true, true) && !add(false, false));
    assert!(!sub(true, true) && sub(true, false));
    assert!(pow(false, false) && !pow(false, true));
    assert!(pred_unary(Opcode::Not).unwrap()(false));
    assert!(pred_binary(Opcode::ShiftLeft).is_none());
}

#[test]
fn complex_ops() {
    let pow = c64_binary(Opcode::Power).unwrap();
    let inf = Complex::new(f32::INFINITY, 0.0);
    assert_eq!(pow(inf, Complex::new(2.0, 0.0)), inf);
    assert_eq!(pow(inf, Complex::new(-2.0, 0.0)), Complex::new(0.0, 0.0));
    assert_eq!(
        pow(Complex::new(3.0, 1.0), Complex::new(0.0, 0.0)),
        Complex::new(1.0, 0.0)
    );
    let mul = c128_binary(Opcode::Multiply).unwrap();
    // (1 + 2i)(3 + 4i) = 3 + 4i + 6i - 8 = -5 + 10i
    assert_eq!(
        mul(Complex::new(1.0, 2.0), Complex::new(3.0, 4.0)),
        Complex::new(-5.0, 10.0)
    );
    let sign = c64_unary(Opcode::Sign).unwrap();
    assert_eq!(sign(Complex::new(3.0, 4.0)), Complex::new(0.6, 0.8));
    assert_eq!(sign(Complex::new(0.0, 0.0)), Complex::new(0.0, 0.0));
    // Complex remainder is not defined (the StableHLO spec excludes it).
    assert!(c64_binary(Opcode::Remainder).is_none());
    // tan(1 + 2i) = 0.0338128260798967 + 1.0147936161466335i (numpy.tan).
    let t = c128_unary(Opcode::Tan).unwrap()(Complex::new(1.0, 2.0));
    assert!((t - Complex::new(0.0338128260798967, 1.0147936161466335)).norm() < 1e-14);
}

#[test]
fn complex_min_max_are_lexicographic() {
    // maximum.mlir / minimum.mlir of the StableHLO interpreter tests.
    let max = c64_binary(Opcode::Maximum).unwrap();
    let min = c64_binary(Opcode::Minimum).unwrap();
    let c = Complex::new;
    assert_eq!(max(c(1.5, 2.5), c(7.5, 1.5)), c(7.5, 1.5));
    assert_eq!(max(c(1.5, 7.5), c(1.5, 2.5)), c(1.5, 7.5));
    assert_eq!(max(c(0.0, 1.5), c(-0.0, 2.5)), c(-0.0, 2.5));
    assert_eq!(min(c(1.5, 2.5), c(7.5, 1.5)), c(1.5, 2.5));
    assert_eq!(min(c(1.5, 7.5), c(1.5, 2.5)), c(1.5, 2.5));
    assert_eq!(min(c(0.0, 1.5), c(-0.0, 2.5)), c(0.0, 1.5));
}

// The corpus's digits, verbatim.
#[allow(clippy::excessive_precision, clippy::approx_constant)]
#[test]
fn complex_logistic_log1p_expm1() {
    // Expected values: logistic.mlir, log_plus_one.mlir, exponential_minus_one.mlir.
    let close = |a: Complex<f64>, re: f64, im: f64| {
        assert!(
            (a.re - re).abs() < 1e-12 && (a.im - im).abs() < 1e-12,
            "{a} vs {re} {im}"
        );
    };
    let logistic = c128_unary(Opcode::Logistic).unwrap();
    close(
        logistic(Complex::new(1.0, 2.0)),
        1.02141536417218054,
        0.40343870608154248,
    );
    let log1p = c128_unary(Opcode::Log1p).unwrap();
    close(
        log1p(Complex::new(1.0, 2.0)),
        1.03972077083991,
        0.78539816339744,
    );
    close(
        log1p(Complex::new(2.0, 1.0)),
        1.15129254649702,
        0.32175055439664,
    );
    let expm1 = c128_unary(Opcode::Expm1).unwrap();
    close(
        expm1(Complex::new(1.0, 2.0)),
        -2.13120438375681363,
        2.47172667200481892,
    );
    close(
        expm1(Complex::new(2.0, 1.0)),
        2.99232404844127142,
        6.21767631236796820,
    );
    close(expm1(Complex::new(0.0, 0.0)), 0.0, 0.0);
}

#[test]
fn total_order_sorts_all_floats() {
    let values = [
        f32::from_bits(0xFFC0_0000), // -NaN
        f32::NEG_INFINITY,
        -1.0,
        -f32::from_bits(1), // -smallest denormal
        -0.0,
        0.0,
        f32::from_bits(1),
        1.0,
        f32::INFINITY,
        f32::NAN,
    ];
    let keys: Vec<i64> = values
        .iter()
        .map(|v| total_order_key(u64::from(v.to_bits()), 32))
        .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
    let k16 = |b: u16| total_order_key(u64::from(b), 16);
    // bf16: -inf (0xff80) < -0 (0x8000) < +0 < +inf (0x7f80) < NaN (0x7fc0)
    assert!(k16(0xff80) < k16(0x8000) && k16(0x8000) < k16(0) && k16(0x7f80) < k16(0x7fc0));
}

#[test]
fn narrow_float_rounding_ties_to_even() {
    // bf16 keeps 7 mantissa bits: the ulp at 1.0 is 2^-7, so 1 + 2^-8 is a tie.
    assert_eq!(to_bf16(1.0 + 2f32.powi(-8)).to_f32(), 1.0);
    assert_eq!(
        to_bf16(1.0 + 3.0 * 2f32.powi(-8)).to_f32(),
        1.0 + 2f32.powi(-6)
    );
    assert_eq!(to_bf16(f32::NAN).to_bits(), 0x7fc0);
    assert_eq!(to_bf16(-f32::NAN).to_bits(), 0xffc0);
    // f16: ulp at 1.0 is 2^-10; 65520 is halfway between 65504 and 65536 (overflow).
    assert_eq!(to_f16(1.0 + 2f32.powi(-11)).to_f32(), 1.0);
    assert_eq!(to_f16(65520.0).to_f32(), f32::INFINITY);
    assert_eq!(to_f16(f32::NAN).to_bits(), 0x7e00);
}

#[test]
#[allow(clippy::excessive_precision)] // digits as the corpus writes them
fn complex_cbrt_and_atan2_follow_the_stablehlo_spec() {
    // Expected values from testdata/stablehlo-conformance/stablehlo-interpret/cbrt.mlir and atan2.mlir.
    let cbrt = c128_unary(Opcode::Cbrt).unwrap();
    let r = cbrt(Complex::new(3.0, 4.0));
    assert!(
        (r.re - 1.6289371459221759).abs() < 1e-12 && (r.im - 0.5201745023045458).abs() < 1e-12,
        "{r}"
    );
    let atan2 = c128_binary(Opcode::Atan2).unwrap();
    let zero = Complex::new(0.0, 0.0);
    let up = atan2(Complex::new(1.0, 0.0), zero);
    let down = atan2(Complex::new(-1.0, 0.0), zero);
    assert!(
        (up.re - std::f64::consts::FRAC_PI_2).abs() < 1e-12 && up.im == 0.0,
        "{up}"
    );
    assert!(
        (down.re + std::f64::consts::FRAC_PI_2).abs() < 1e-12 && down.im == 0.0,
        "{down}"
    );
}
