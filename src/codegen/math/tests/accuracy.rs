//! ULP accuracy of every function against higher-precision references (see `tests/mod.rs`).
//! Test points follow XLA's accuracy tests: specials, powers of 2 and 10, log-spaced
//! magnitudes over the whole range, and dense ranges around the tricky points.

use std::f64::consts::{FRAC_1_SQRT_2, SQRT_2};

use super::*;

// Test points (XLA's accuracy tests use the same classes: specials, powers of 2 and 10,
// log-spaced ranges over the whole domain, dense ranges around tricky points).

/// Specials, powers of 2 and 10, and log-spaced magnitudes of both signs over the type's range.
fn points<T: Lane>(dense: &[(f64, f64, usize)]) -> Vec<T> {
    let (min_exp2, max_exp2, min_exp10, max_exp10) = if T::LANES == 4 {
        (-149, 127, -45, 38)
    } else {
        (-1074, 1023, -323, 308)
    };
    let mut v: Vec<f64> = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        T::min_normal(),
        -T::min_normal(),
        1.0,
        -1.0,
    ];
    if T::LANES == 4 {
        v.extend([f32::MAX as f64, f32::MIN as f64, 1e-40, -1e-40]);
    } else {
        v.extend([f64::MAX, f64::MIN, 1e-310, -1e-310]);
    }
    for e in min_exp2..=max_exp2 {
        v.extend([(e as f64).exp2(), -(e as f64).exp2()]);
    }
    for e in min_exp10..=max_exp10 {
        let p: f64 = format!("1e{e}").parse().unwrap();
        v.extend([p, -p]);
    }
    let (lo, hi) = (2f64.powi(min_exp2).ln(), 2f64.powi(max_exp2).ln() + 0.69);
    for x in linspace(lo, hi, 6000) {
        v.extend([x.exp(), -x.exp()]);
    }
    for &(lo, hi, n) in dense {
        v.extend(linspace(lo, hi, n));
    }
    v.into_iter().map(T::from_f64).collect()
}

/// f32 reference: the f64 function rounded once.
fn via_f64(f: fn(f64) -> f64) -> impl Fn(f32) -> f32 {
    move |x| f(x as f64) as f32
}

const ZERO_DENSE: (f64, f64, usize) = (-1e-3, 1e-3, 4001);
const SMALL_DENSE: (f64, f64, usize) = (-2.0, 2.0, 8001);

#[test]
fn exp_accuracy() {
    let d = [
        SMALL_DENSE,
        (-110.0, 110.0, 20001),
        (-750.0, 715.0, 20001),
        (86.0, 89.0, 3001),
        (708.0, 710.0, 3001),
    ];
    check_unary::<f32>("exp", exp, &points(&d), via_f64(f64::exp), 1);
    check_unary::<f64>("exp", exp, &points(&d), f64::exp, 1);
}

#[test]
fn expm1_accuracy() {
    let d = [
        ZERO_DENSE,
        SMALL_DENSE,
        (-45.0, 100.0, 20001),
        (86.0, 89.0, 3001),
        (705.0, 710.0, 3001),
    ];
    check_unary::<f32>("expm1", expm1, &points(&d), via_f64(f64::exp_m1), 1);
    check_unary::<f64>("expm1", expm1, &points(&d), f64::exp_m1, 2);
}

#[test]
fn log_accuracy() {
    let d = [(0.5, 2.0, 20001), (0.999, 1.001, 4001), (0.0, 100.0, 10001)];
    check_unary::<f32>("log", log, &points(&d), via_f64(f64::ln), 1);
    check_unary::<f64>("log", log, &points(&d), f64::ln, 1);
}

#[test]
fn log1p_accuracy() {
    let d = [ZERO_DENSE, (-1.0, 2.0, 20001), (-1.0, -0.999, 2001)];
    check_unary::<f32>("log1p", log1p, &points(&d), via_f64(f64::ln_1p), 2);
    check_unary::<f64>("log1p", log1p, &points(&d), f64::ln_1p, 2);
}

#[test]
fn tanh_accuracy() {
    let d = [ZERO_DENSE, SMALL_DENSE, (-25.0, 25.0, 20001)];
    // f32 is Eigen's rational (XLA:CPU's tanh): worst at its clamp, |x| ≈ 7.9.
    check_unary::<f32>("tanh", tanh, &points(&d), via_f64(f64::tanh), 5);
    check_unary::<f64>("tanh", tanh, &points(&d), f64::tanh, 3);
}

fn logistic_ref(x: f64) -> f64 {
    // Both forms are within ~1.5 ULP in f64; the f32 reference rounds it once more.
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        x.exp() / (1.0 + x.exp())
    }
}

#[test]
fn logistic_accuracy() {
    let d = [SMALL_DENSE, (-110.0, 110.0, 20001), (-750.0, 750.0, 10001)];
    check_unary::<f32>("logistic", logistic, &points(&d), via_f64(logistic_ref), 3);
    check_unary::<f64>("logistic", logistic, &points(&d), logistic_ref, 3);
}

#[test]
fn erf_accuracy() {
    let d = [
        ZERO_DENSE,
        SMALL_DENSE,
        (-7.0, 7.0, 20001),
        (0.8, 1.3, 4001),
        (2.7, 2.9, 2001),
    ];
    check_unary::<f32>("erf", erf, &points(&d), via_f64(libm::erf), 1);
    check_unary::<f64>("erf", erf, &points(&d), libm::erf, 1);
}

/// Dense points around multiples of π/2 up to |x| = 1e4, where sin/cos/tan cancel.
fn trig_points<T: Lane>() -> Vec<T> {
    let mut d = vec![SMALL_DENSE, (-1e4, 1e4, 40001)];
    for k in [1.0, 2.0, 3.0, 10.0, 100.0, 1000.0, 6000.0] {
        let c = k * std::f64::consts::FRAC_PI_2;
        d.push((c - 1e-3, c + 1e-3, 201));
    }
    points::<T>(&d)
        .into_iter()
        .filter(|x| x.to_f64().is_nan() || x.to_f64().abs() <= 1e4)
        .collect()
}

#[test]
fn sin_cos_tan_accuracy() {
    check_unary::<f32>("sin", sin, &trig_points(), via_f64(f64::sin), 1);
    check_unary::<f64>("sin", sin, &trig_points(), f64::sin, 2);
    check_unary::<f32>("cos", cos, &trig_points(), via_f64(f64::cos), 1);
    check_unary::<f64>("cos", cos, &trig_points(), f64::cos, 2);
    check_unary::<f32>("tan", tan, &trig_points(), via_f64(f64::tan), 1);
    check_unary::<f64>("tan", tan, &trig_points(), f64::tan, 3);
}

/// 1e4 < |x| ≤ 1.6e6: still inside the range where n·(π/2 parts) is exact.
#[test]
fn sin_cos_tan_accuracy_large() {
    fn pts<T: Lane>() -> Vec<T> {
        let mut v: Vec<f64> = linspace(1e4f64.ln(), 1.6e6f64.ln(), 20001)
            .map(f64::exp)
            .collect();
        for k in [1e4, 1e5, 1e6] {
            let c = (k * std::f64::consts::FRAC_2_PI).round() * std::f64::consts::FRAC_PI_2;
            v.extend(linspace(c - 1e-2, c + 1e-2, 2001));
        }
        v.extend(v.clone().into_iter().map(|x| -x));
        v.into_iter().map(T::from_f64).collect()
    }
    check_unary::<f32>("sin", sin, &pts(), via_f64(f64::sin), 1);
    check_unary::<f64>("sin", sin, &pts(), f64::sin, 2);
    check_unary::<f32>("cos", cos, &pts(), via_f64(f64::cos), 1);
    check_unary::<f64>("cos", cos, &pts(), f64::cos, 2);
    check_unary::<f32>("tan", tan, &pts(), via_f64(f64::tan), 1);
    check_unary::<f64>("tan", tan, &pts(), f64::tan, 3);
}

/// Out of the reduction's exact range the results are not accurate, but they are finite and
/// bounded for finite inputs.
#[test]
fn sin_cos_large_arguments_stay_bounded() {
    let xs: Vec<f64> = (0..200)
        .map(|i| 1e5 * 1.37f64.powi(i))
        .filter(|x| x.is_finite())
        .collect();
    for op in [sin as Unary, cos as Unary] {
        for v in run(types::F64X2, false, Op::Unary(op), &xs, &xs) {
            assert!((-1.0..=1.0).contains(&v), "{v}");
        }
    }
}

#[test]
fn atan2_accuracy() {
    fn grid<T: Lane>() -> (Vec<T>, Vec<T>) {
        let mut vals: Vec<f64> = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.0,
            -1.0,
        ];
        vals.extend((-60..=60).map(|e| 1.7f64.powi(e)));
        vals.extend((-60..=60).map(|e| -(1.3f64.powi(e))));
        vals.extend(linspace(-3.0, 3.0, 61));
        let (mut ys, mut xs) = (vec![], vec![]);
        for &y in &vals {
            for &x in &vals {
                ys.push(T::from_f64(y));
                xs.push(T::from_f64(x));
            }
        }
        (ys, xs)
    }
    let (y, x) = grid::<f32>();
    check_binary::<f32>(
        "atan2",
        atan2,
        &y,
        &x,
        |y, x| (y as f64).atan2(x as f64) as f32,
        1,
    );
    let (y, x) = grid::<f64>();
    check_binary::<f64>("atan2", atan2, &y, &x, f64::atan2, 2);
}

#[test]
fn pow_accuracy() {
    fn grid<T: Lane>() -> (Vec<T>, Vec<T>) {
        let mut xs_base: Vec<f64> = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.0,
            -1.0,
            0.5,
            2.0,
            -2.0,
        ];
        xs_base.extend((-40..=40).map(|e| 1.9f64.powi(e)));
        xs_base.extend((-20..=20).map(|e| -(2.3f64.powi(e))));
        xs_base.extend(linspace(0.9, 1.1, 41));
        let mut ys_base: Vec<f64> = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            0.5,
            -0.5,
            1.0 / 3.0,
        ];
        ys_base.extend((-10..=10).map(|i| i as f64));
        ys_base.extend(linspace(-300.0, 300.0, 61));
        ys_base.extend((-30..=30).map(|e| 1.5f64.powi(e)));
        ys_base.extend([
            1e6,
            -1e6,
            1e300,
            -1e300,
            3.0e9,
            2f64.powi(53) + 2.0,
            2f64.powi(52) + 1.0,
        ]);
        let (mut xs, mut ys) = (vec![], vec![]);
        for &x in &xs_base {
            for &y in &ys_base {
                xs.push(T::from_f64(x));
                ys.push(T::from_f64(y));
            }
        }
        // y·log x near the over/underflow limits, where log's error is amplified most;
        // x near √2 and √½ (the ends of log's reduced range).
        let big_t = if T::LANES == 4 {
            [1.0, 10.0, 40.0, 80.0, 88.0, -80.0, -100.0]
        } else {
            [1.0, 10.0, 100.0, 300.0, 700.0, -700.0, -740.0]
        };
        for x in [
            1.0001,
            1.05,
            1.3,
            1.4143,
            SQRT_2,
            FRAC_1_SQRT_2,
            0.7072,
            0.9,
            3.0,
            1e10,
            1e-10,
            1e100,
            7e-300,
        ] {
            let x = T::from_f64(x).to_f64();
            for t in big_t {
                for i in 0..40 {
                    let y = t / x.ln() * (1.0 + i as f64 * 1e-4);
                    xs.push(T::from_f64(x));
                    ys.push(T::from_f64(y));
                }
            }
        }
        (xs, ys)
    }
    let (x, y) = grid::<f32>();
    check_binary::<f32>(
        "pow",
        pow,
        &x,
        &y,
        |x, y| (x as f64).powf(y as f64) as f32,
        1,
    );
    let (x, y) = grid::<f64>();
    check_binary::<f64>("pow", pow, &x, &y, f64::powf, 1);
}

#[test]
fn cbrt_accuracy() {
    let d = [SMALL_DENSE, (-1000.0, 1000.0, 20001)];
    check_unary::<f32>("cbrt", cbrt, &points(&d), via_f64(f64::cbrt), 1);
    check_unary::<f64>("cbrt", cbrt, &points(&d), f64::cbrt, 1);
}

#[test]
fn sqrt_rsqrt_accuracy() {
    let d = [(0.0, 100.0, 10001)];
    check_unary::<f32>("sqrt", sqrt, &points(&d), f32::sqrt, 0);
    check_unary::<f64>("sqrt", sqrt, &points(&d), f64::sqrt, 0);
    check_unary::<f32>("rsqrt", rsqrt, &points(&d), via_f64(|x| 1.0 / x.sqrt()), 1);
    // 1/sqrt(x) in f64 is itself two roundings away from the true value.
    check_unary::<f64>("rsqrt", rsqrt, &points(&d), |x| 1.0 / x.sqrt(), 1);
}
