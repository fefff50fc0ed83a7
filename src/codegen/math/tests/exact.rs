//! Bit-exact checks: the helpers (`copysign`, `round_nearest_afz`, `max`, `min`,
//! `is_finite`) against hand-written references, and hand-checked special values of every
//! function (NaN, infinities, signed zeros, exact points).

use super::*;

pub(super) fn copysign_op(b: &mut FunctionBuilder, _o: &MathOptions, x: Value, y: Value) -> Value {
    copysign(b, x, y)
}
pub(super) fn max_op(b: &mut FunctionBuilder, _o: &MathOptions, x: Value, y: Value) -> Value {
    max(b, x, y)
}
pub(super) fn min_op(b: &mut FunctionBuilder, _o: &MathOptions, x: Value, y: Value) -> Value {
    min(b, x, y)
}
pub(super) fn round_op(b: &mut FunctionBuilder, _o: &MathOptions, x: Value) -> Value {
    round_nearest_afz(b, x)
}
pub(super) fn is_finite_op(b: &mut FunctionBuilder, _o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    let m = is_finite(b, x);
    let one = k.f(b, 1.0);
    let zero = k.f(b, 0.0);
    k.select(b, m, one, zero)
}

fn helper_values() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        1e-40,
        -1e-310,
    ];
    v.extend([
        0.5,
        -0.5,
        0.49999997,
        -0.49999997,
        0.49999999999999994,
        1.5,
        2.5,
        -2.5,
        3.5,
        -3.5,
    ]);
    v.extend([
        8388607.5,
        8388608.5,
        4503599627370495.5,
        -4503599627370495.5,
        1e30,
        -1e30,
        1e300,
    ]);
    v.extend(linspace(-10.0, 10.0, 401));
    v
}

/// Bit-exact check of a binary helper in both widths, scalar and vector.
fn check_exact_binary(name: &str, op: Binary, reference: fn(f64, f64) -> f64) {
    let vals = helper_values();
    let (mut xs, mut ys) = (vec![], vec![]);
    for &x in &vals {
        for &y in &vals {
            xs.push(x);
            ys.push(y);
        }
    }
    let x32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
    let y32: Vec<f32> = ys.iter().map(|&v| v as f32).collect();
    for ty in [types::F32, types::F32X4] {
        let got = run(ty, false, Op::Binary(op), &x32, &y32);
        for i in 0..xs.len() {
            let want = reference(x32[i] as f64, y32[i] as f64) as f32;
            assert!(
                same(
                    got[i].to_bits() as u64,
                    want.to_bits() as u64,
                    want.is_nan()
                ),
                "{name}({}, {}) = {} want {want} ({ty})",
                x32[i],
                y32[i],
                got[i]
            );
        }
    }
    for ty in [types::F64, types::F64X2] {
        let got = run(ty, false, Op::Binary(op), &xs, &ys);
        for i in 0..xs.len() {
            let want = reference(xs[i], ys[i]);
            assert!(
                same(got[i].to_bits(), want.to_bits(), want.is_nan()),
                "{name}({}, {}) = {} want {want} ({ty})",
                xs[i],
                ys[i],
                got[i]
            );
        }
    }
}

fn check_exact_unary(name: &str, op: Unary, reference: fn(f64) -> f64) {
    let xs = helper_values();
    let x32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
    for ty in [types::F32, types::F32X4] {
        let got = run(ty, false, Op::Unary(op), &x32, &x32);
        for i in 0..xs.len() {
            let want = reference(x32[i] as f64) as f32;
            assert!(
                same(
                    got[i].to_bits() as u64,
                    want.to_bits() as u64,
                    want.is_nan()
                ),
                "{name}({}) = {} want {want} ({ty})",
                x32[i],
                got[i]
            );
        }
    }
    for ty in [types::F64, types::F64X2] {
        let got = run(ty, false, Op::Unary(op), &xs, &xs);
        for i in 0..xs.len() {
            let want = reference(xs[i]);
            assert!(
                same(got[i].to_bits(), want.to_bits(), want.is_nan()),
                "{name}({}) = {} want {want} ({ty})",
                xs[i],
                got[i]
            );
        }
    }
}

/// Bit equality, except that any NaN matches any NaN.
fn same(got: u64, want: u64, want_nan: bool) -> bool {
    if want_nan {
        let g = f64::from_bits(got);
        let g32 = f32::from_bits(got as u32);
        (got >> 32 == 0 && g32.is_nan()) || g.is_nan()
    } else {
        got == want
    }
}

#[test]
fn copysign_is_exact() {
    check_exact_binary("copysign", copysign_op, f64::copysign);
}

/// XLA's maximum/minimum: NaN if either is NaN, else `a >= b ? a : b` (a on ±0 ties).
#[test]
fn max_min_propagate_nan() {
    check_exact_binary("max", max_op, |a, b| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else if a >= b {
            a
        } else {
            b
        }
    });
    check_exact_binary("min", min_op, |a, b| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else if a <= b {
            a
        } else {
            b
        }
    });
}

#[test]
fn round_nearest_afz_is_exact() {
    check_exact_unary("round_nearest_afz", round_op, f64::round);
}

#[test]
fn is_finite_is_exact() {
    check_exact_unary("is_finite", is_finite_op, |x| {
        if x.is_finite() { 1.0 } else { 0.0 }
    });
}

/// Hand-checked special values (NaN, infinities, signed zeros, exact points).
#[test]
fn special_values() {
    let inf = f64::INFINITY;
    let cases: &[(&str, Unary, f64, f64)] = &[
        ("exp", exp, inf, inf),
        ("exp", exp, -inf, 0.0),
        ("exp", exp, 0.0, 1.0),
        ("exp", exp, 1000.0, inf),
        ("expm1", expm1, -0.0, -0.0),
        ("expm1", expm1, -inf, -1.0),
        ("expm1", expm1, inf, inf),
        ("log", log, 0.0, -inf),
        ("log", log, -0.0, -inf),
        ("log", log, 1.0, 0.0),
        ("log", log, inf, inf),
        ("log", log, -1.0, f64::NAN),
        ("log1p", log1p, -0.0, -0.0),
        ("log1p", log1p, -1.0, -inf),
        ("log1p", log1p, inf, inf),
        ("log1p", log1p, -2.0, f64::NAN),
        ("tanh", tanh, -0.0, -0.0),
        ("tanh", tanh, inf, 1.0),
        ("tanh", tanh, -inf, -1.0),
        ("logistic", logistic, inf, 1.0),
        ("logistic", logistic, -inf, 0.0),
        ("logistic", logistic, 0.0, 0.5),
        ("erf", erf, -0.0, -0.0),
        ("erf", erf, inf, 1.0),
        ("erf", erf, -inf, -1.0),
        ("sin", sin, -0.0, -0.0),
        ("sin", sin, inf, f64::NAN),
        ("cos", cos, 0.0, 1.0),
        ("cos", cos, -inf, f64::NAN),
        ("tan", tan, -0.0, -0.0),
        ("cbrt", cbrt, -8.0, -2.0),
        ("cbrt", cbrt, -0.0, -0.0),
        ("cbrt", cbrt, -inf, -inf),
        ("sqrt", sqrt, -0.0, -0.0),
        ("sqrt", sqrt, -1.0, f64::NAN),
        ("rsqrt", rsqrt, 0.0, inf),
        ("rsqrt", rsqrt, 4.0, 0.5),
    ];
    for &(name, op, x, want) in cases {
        for fun in [unary_f32, unary_f64] {
            let got = fun(op, x);
            assert!(
                same(got.to_bits(), want.to_bits(), want.is_nan()),
                "{name}({x}) = {got}, want {want}"
            );
        }
        for v in [f64::NAN, -f64::NAN] {
            assert!(
                unary_f64(op, v).is_nan() && unary_f32(op, v).is_nan(),
                "{name}(NaN) is not NaN"
            );
        }
    }
    let pi = std::f64::consts::PI;
    let bin: &[(&str, Binary, f64, f64, f64)] = &[
        ("atan2", atan2, 0.0, -0.0, pi),
        ("atan2", atan2, -0.0, -0.0, -pi),
        ("atan2", atan2, -0.0, 1.0, -0.0),
        ("atan2", atan2, inf, -inf, 0.75 * pi),
        ("atan2", atan2, -inf, inf, -0.25 * pi),
        ("atan2", atan2, 1.0, 0.0, 0.5 * pi),
        ("atan2", atan2, f64::NAN, 1.0, f64::NAN),
        ("pow", pow, f64::NAN, 0.0, 1.0),
        ("pow", pow, 1.0, f64::NAN, 1.0),
        ("pow", pow, -1.0, inf, 1.0),
        ("pow", pow, -8.0, 1.0 / 3.0, f64::NAN),
        ("pow", pow, -2.0, 3.0, -8.0),
        ("pow", pow, -0.0, -3.0, -inf),
        ("pow", pow, -0.0, 3.0, -0.0),
        ("pow", pow, 0.0, -2.0, inf),
        ("pow", pow, -inf, 3.0, -inf),
        ("pow", pow, -inf, 0.5, inf),
        ("pow", pow, 2.0, 10.0, 1024.0),
        ("pow", pow, 10.0, -2.0, 0.01),
        ("pow", pow, 0.5, inf, 0.0),
        ("pow", pow, 2.0, -inf, 0.0),
    ];
    for &(name, op, x, y, want) in bin {
        let got = run::<f64>(types::F64, false, Op::Binary(op), &[x], &[y])[0];
        assert!(
            same(got.to_bits(), want.to_bits(), want.is_nan()),
            "{name}({x}, {y}) = {got}, want {want}"
        );
        let got = run::<f32>(
            types::F32X4,
            false,
            Op::Binary(op),
            &[x as f32],
            &[y as f32],
        )[0] as f64;
        let want32 = want as f32 as f64;
        assert!(
            same(got.to_bits(), want32.to_bits(), want.is_nan()),
            "{name}({x}, {y}) = {got}, want {want32} (f32x4)"
        );
    }
}

fn unary_f32(op: Unary, x: f64) -> f64 {
    run::<f32>(types::F32X4, false, Op::Unary(op), &[x as f32], &[x as f32])[0] as f64
}

fn unary_f64(op: Unary, x: f64) -> f64 {
    run::<f64>(types::F64, false, Op::Unary(op), &[x], &[x])[0]
}
