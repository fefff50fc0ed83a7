//! Edge cases of each check rule, with expected outcomes taken from the README's wording.

use num_complex::Complex;

use super::*;
use crate::ir::{ArrayData, ArrayShape, NativeType, PrimitiveType};

fn lit<T: NativeType>(v: &[T]) -> Literal {
    ArrayLiteral::from_vec(&[v.len() as i64], v.to_vec()).into()
}

fn raw(ty: PrimitiveType, bytes: &[u8]) -> Literal {
    ArrayLiteral {
        shape: ArrayShape::new(ty, &[bytes.len() as i64]),
        data: ArrayData::Raw(bytes.to_vec()),
    }
    .into()
}

#[test]
fn eq_integers_and_booleans_by_value() {
    assert!(expect_eq(&lit(&[1i64, -2, i64::MAX]), &lit(&[1i64, -2, i64::MAX])).is_ok());
    let err = expect_eq(&lit(&[1i32, 2, 3]), &lit(&[1i32, 2, 4])).unwrap_err();
    assert!(err.contains("element [2]: actual 3, expected 4"), "{err}");
    assert!(expect_eq(&lit(&[u64::MAX]), &lit(&[u64::MAX])).is_ok());
    assert!(expect_eq(&lit(&[true, false]), &lit(&[true, true])).is_err());
}

#[test]
fn eq_floats_are_ieee() {
    // +0 == -0; NaN never equals, not even itself.
    assert!(expect_eq(&lit(&[0.0f32]), &lit(&[-0.0f32])).is_ok());
    assert!(expect_eq(&lit(&[f64::NAN]), &lit(&[f64::NAN])).is_err());
    assert!(expect_eq(&lit(&[f32::INFINITY]), &lit(&[f32::INFINITY])).is_ok());
    assert!(expect_eq(&lit(&[1.0f32]), &lit(&[1.0000001f32])).is_err());
    // Complex: both parts.
    let c = |re: f64, im: f64| lit(&[Complex::new(re, im)]);
    assert!(expect_eq(&c(1.0, 2.0), &c(1.0, 2.0)).is_ok());
    assert!(expect_eq(&c(1.0, 2.0), &c(1.0, 3.0)).is_err());
}

#[test]
fn eq_needs_identical_types() {
    assert!(
        expect_eq(&lit(&[1i32]), &lit(&[1i64]))
            .unwrap_err()
            .contains("type mismatch")
    );
    assert!(expect_eq(&lit(&[1i32, 2]), &lit(&[1i32])).is_err());
}

#[test]
fn eq_of_sub_byte_types() {
    // i4 -1 is stored as 0xF; f8E4M3FNUZ has no -0 (0x80 is NaN).
    assert!(
        expect_eq(
            &raw(PrimitiveType::S4, &[0x0F]),
            &raw(PrimitiveType::S4, &[0x0F])
        )
        .is_ok()
    );
    assert!(
        expect_eq(
            &raw(PrimitiveType::F4E2M1FN, &[0x0]),
            &raw(PrimitiveType::F4E2M1FN, &[0x8])
        )
        .is_ok()
    );
    assert!(
        expect_eq(
            &raw(PrimitiveType::F8E4M3FNUZ, &[0x80]),
            &raw(PrimitiveType::F8E4M3FNUZ, &[0x80])
        )
        .is_err()
    );
}

#[test]
fn almost_eq_is_absolute() {
    // |a - b| <= t, absolute: 1e-4 apart passes at 1e-4, 2e-4 does not, at any magnitude.
    assert!(expect_almost_eq(&lit(&[1.0f64]), &lit(&[1.0001]), DEFAULT_TOLERANCE).is_ok());
    assert!(expect_almost_eq(&lit(&[1.0f64]), &lit(&[1.0002]), DEFAULT_TOLERANCE).is_err());
    assert!(expect_almost_eq(&lit(&[1e6f64]), &lit(&[1e6 + 1.0]), DEFAULT_TOLERANCE).is_err());
    assert!(expect_almost_eq(&lit(&[0.5f32]), &lit(&[0.55f32]), 0.1).is_ok());
}

#[test]
fn almost_eq_nan_and_infinity_rules() {
    // Both NaN (any sign): pass. NaN vs number: fail.
    assert!(expect_almost_eq(&lit(&[f32::NAN]), &lit(&[-f32::NAN]), DEFAULT_TOLERANCE).is_ok());
    assert!(expect_almost_eq(&lit(&[f32::NAN]), &lit(&[0.0f32]), DEFAULT_TOLERANCE).is_err());
    // An infinity matches only the same infinity, whatever the tolerance.
    let inf = f64::INFINITY;
    assert!(expect_almost_eq(&lit(&[inf]), &lit(&[inf]), DEFAULT_TOLERANCE).is_ok());
    assert!(expect_almost_eq(&lit(&[inf]), &lit(&[-inf]), 1e300).is_err());
    assert!(expect_almost_eq(&lit(&[inf]), &lit(&[f64::MAX]), 1e300).is_err());
    // Complex: each part separately.
    let c = |re: f32, im: f32| lit(&[Complex::new(re, im)]);
    assert!(expect_almost_eq(&c(1.0, f32::NAN), &c(1.00005, f32::NAN), DEFAULT_TOLERANCE).is_ok());
    assert!(expect_almost_eq(&c(1.0, 2.0), &c(1.0, 2.01), DEFAULT_TOLERANCE).is_err());
}

#[test]
fn ulp_distance_rules() {
    let f = |x: f32| match Elements::of(lit(&[x]).as_array().unwrap()).unwrap() {
        Elements::Floats(v) => v[0],
        _ => unreachable!(),
    };
    // Adjacent f32 values are 1 apart; +0/-0 are 0 apart; across zero the magnitudes add.
    assert_eq!(
        ulp_distance(f(1.0), f(f32::from_bits(1.0f32.to_bits() + 3))),
        3
    );
    assert_eq!(ulp_distance(f(0.0), f(-0.0)), 0);
    let tiny = f32::from_bits(1);
    assert_eq!(ulp_distance(f(tiny), f(-tiny)), 2);
    // Both NaN: 0. NaN vs number, or an infinity vs a different value: infinite.
    assert_eq!(ulp_distance(f(f32::NAN), f(-f32::NAN)), 0);
    assert_eq!(ulp_distance(f(f32::NAN), f(1.0)), u64::MAX);
    assert_eq!(ulp_distance(f(f32::INFINITY), f(f32::MAX)), u64::MAX);
    assert_eq!(ulp_distance(f(f32::INFINITY), f(f32::INFINITY)), 0);
}

#[test]
fn expect_close_bounds() {
    let one = 1.0f32;
    let next = |k: u32| f32::from_bits(one.to_bits() + k);
    assert!(expect_close(&lit(&[one, next(2)]), &lit(&[next(3), next(2)]), 3, 0).is_ok());
    let err = expect_close(&lit(&[one]), &lit(&[next(4)]), 3, 0).unwrap_err();
    assert!(err.contains("ULP distance 4 outside [0, 3]"), "{err}");
    // min_ulp_difference: equal values fail when at least 1 ULP is demanded.
    assert!(expect_close(&lit(&[one]), &lit(&[one]), 3, 1).is_err());
    assert!(expect_close(&lit(&[one]), &lit(&[next(1)]), 3, 1).is_ok());
    // Complex: the larger part's distance.
    let c = |re: f32, im: f32| lit(&[Complex::new(re, im)]);
    assert!(expect_close(&c(one, one), &c(next(1), next(4)), 3, 0).is_err());
    // Integers are not allowed.
    assert!(expect_close(&lit(&[1i32]), &lit(&[1i32]), 3, 0).is_err());
    // bf16 steps: 1.0 and 1.0078125 are adjacent.
    let b = |x: f32| lit(&[half::bf16::from_f32(x)]);
    assert!(expect_close(&b(1.0), &b(1.0078125), 1, 1).is_ok());
}

#[test]
fn check_eq_of_the_quantized_files() {
    assert!(check_eq(&lit(&[3i8]), &lit(&[3i8])).is_ok());
    assert!(check_eq(&lit(&[3i8]), &lit(&[4i8])).is_err());
    assert!(check_eq(&lit(&[0.25f32]), &lit(&[0.25005f32])).is_ok());
    assert!(check_eq(&lit(&[0.25f32]), &lit(&[0.2503f32])).is_err());
}
