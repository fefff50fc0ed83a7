//! The comparison rules of the `check` dialect, exactly as the conformance README §3.2 and
//! §4.2 state them (they follow `stablehlo/reference/Tensor.cpp` and `check/CheckOps.cpp`
//! of the StableHLO repository):
//!
//! * `expect_eq`: every element exactly equal; floats by IEEE equality (`+0 == -0`, NaN
//!   never equal), complex numbers part by part.
//! * `expect_almost_eq`: per float part, IEEE-equal, or both NaN, or both finite with
//!   `|a - b| <= tolerance` in f64 (an absolute tolerance, default 1e-4; 1e-3 for the
//!   custom-call spelling). An infinity matches only the same infinity.
//! * `expect_close`: `min_ulp <= ulp(a, b) <= max_ulp` per element (see [`ulp_distance`]).
//! * `check.eq` (quantized files): integers exactly, anything else almost-equal at 1e-4.
//!
//! Each rule returns `Err` with the first mismatch: its index, the actual and expected
//! values, and for `expect_close` the distance. Both values must have the same type.

use super::elements::{Elements, FloatBits};
use crate::eval::index::multi_index;
use crate::ir::{ArrayLiteral, Literal};

/// The default tolerance of `check.expect_almost_eq` (README §3.2).
pub const DEFAULT_TOLERANCE: f64 = 1e-4;

/// The tolerance of the custom-call `@check.expect_almost_eq` (README §4.2).
pub const CUSTOM_CALL_TOLERANCE: f64 = 1e-3;

/// The `max_ulp_difference` of the custom-call `@check.expect_close` (README §4.2).
pub const CUSTOM_CALL_MAX_ULP: u64 = 3;

/// `check.expect_eq`: exact equality.
pub fn expect_eq(actual: &Literal, expected: &Literal) -> Result<(), String> {
    compare(actual, expected, &|a, b| match (a, b) {
        (Elem::Int(x), Elem::Int(y)) => x == y,
        (Elem::Float(x), Elem::Float(y)) => x.value == y.value,
        (Elem::Complex(x), Elem::Complex(y)) => x.0.value == y.0.value && x.1.value == y.1.value,
        _ => false,
    })
}

/// `check.expect_almost_eq` with an absolute `tolerance`. Integers (which the reference
/// rejects) compare exactly.
pub fn expect_almost_eq(
    actual: &Literal,
    expected: &Literal,
    tolerance: f64,
) -> Result<(), String> {
    compare(actual, expected, &|a, b| match (a, b) {
        (Elem::Int(x), Elem::Int(y)) => x == y,
        (Elem::Float(x), Elem::Float(y)) => almost_eq(x.value, y.value, tolerance),
        (Elem::Complex(x), Elem::Complex(y)) => {
            almost_eq(x.0.value, y.0.value, tolerance) && almost_eq(x.1.value, y.1.value, tolerance)
        }
        _ => false,
    })
    .map_err(|e| format!("{e} (tolerance {tolerance:e})"))
}

/// `check.expect_close`: `min_ulp <= ulp(actual, expected) <= max_ulp` for every element.
pub fn expect_close(
    actual: &Literal,
    expected: &Literal,
    max_ulp: u64,
    min_ulp: u64,
) -> Result<(), String> {
    let distance = |a: Elem, b: Elem| match (a, b) {
        (Elem::Float(x), Elem::Float(y)) => Some(ulp_distance(x, y)),
        (Elem::Complex(x), Elem::Complex(y)) => {
            Some(ulp_distance(x.0, y.0).max(ulp_distance(x.1, y.1)))
        }
        _ => None,
    };
    let (a, b) = arrays(actual, expected)?;
    let (ea, eb) = (Elements::of(&a)?, Elements::of(&b)?);
    if let Elements::Ints(_) = ea {
        return Err("expect_close needs floating-point or complex elements".into());
    }
    for i in 0..ea.len() {
        let d = distance(elem(&ea, i), elem(&eb, i)).unwrap_or(u64::MAX);
        if d < min_ulp || d > max_ulp {
            let shown = if d == u64::MAX {
                "infinite".to_string()
            } else {
                d.to_string()
            };
            return Err(format!(
                "{}: ULP distance {shown} outside [{min_ulp}, {max_ulp}]",
                mismatch(&a, &ea, &eb, i)
            ));
        }
    }
    Ok(())
}

/// `@check.eq` of the quantized files: integer elements exactly, others almost-equal with
/// the default tolerance.
pub fn check_eq(actual: &Literal, expected: &Literal) -> Result<(), String> {
    expect_almost_eq(actual, expected, DEFAULT_TOLERANCE)
}

/// The ULP distance of two floats of one type (README §3.2): 0 if bitwise identical or
/// both NaN; for two finite values, the distance between the magnitudes' bit patterns when
/// the signs agree and their sum when they differ (so `+0`/`-0` are 0 apart); `u64::MAX`
/// (infinite) in every other case.
pub fn ulp_distance(a: FloatBits, b: FloatBits) -> u64 {
    if a.bits == b.bits || (a.value.is_nan() && b.value.is_nan()) {
        return 0;
    }
    if !a.value.is_finite() || !b.value.is_finite() {
        return u64::MAX;
    }
    let (ua, ub) = (a.magnitude(), b.magnitude());
    if a.negative() == b.negative() {
        ua.abs_diff(ub)
    } else {
        ua.saturating_add(ub)
    }
}

fn almost_eq(a: f64, b: f64, tolerance: f64) -> bool {
    a == b
        || (a.is_nan() && b.is_nan())
        || (a.is_finite() && b.is_finite() && (a - b).abs() <= tolerance)
}

/// One element, whichever kind.
#[derive(Copy, Clone)]
enum Elem {
    Int(i128),
    Float(FloatBits),
    Complex((FloatBits, FloatBits)),
}

fn elem(e: &Elements, i: usize) -> Elem {
    match e {
        Elements::Ints(v) => Elem::Int(v[i]),
        Elements::Floats(v) => Elem::Float(v[i]),
        Elements::Complex(v) => Elem::Complex(v[i]),
    }
}

/// Checks `same(a[i], b[i])` for every element; the first failure is the error.
fn compare(
    actual: &Literal,
    expected: &Literal,
    same: &dyn Fn(Elem, Elem) -> bool,
) -> Result<(), String> {
    let (a, b) = arrays(actual, expected)?;
    let (ea, eb) = (Elements::of(&a)?, Elements::of(&b)?);
    for i in 0..ea.len() {
        if !same(elem(&ea, i), elem(&eb, i)) {
            return Err(mismatch(&a, &ea, &eb, i));
        }
    }
    Ok(())
}

/// Both values as row-major arrays of one type and shape.
fn arrays(actual: &Literal, expected: &Literal) -> Result<(ArrayLiteral, ArrayLiteral), String> {
    let (Literal::Array(a), Literal::Array(b)) = (actual, expected) else {
        return Err("check ops compare arrays, got a tuple or token".into());
    };
    if a.element_type() != b.element_type() || a.shape.dims != b.shape.dims {
        return Err(format!(
            "type mismatch: actual {}{:?}, expected {}{:?}",
            a.element_type(),
            a.shape.dims,
            b.element_type(),
            b.shape.dims
        ));
    }
    Ok((a.to_row_major(), b.to_row_major()))
}

/// `element [i, j]: actual x, expected y`.
fn mismatch(a: &ArrayLiteral, ea: &Elements, eb: &Elements, i: usize) -> String {
    let mut index = vec![0i64; a.shape.rank()];
    multi_index(&a.shape.dims, i, &mut index);
    format!(
        "element {index:?}: actual {}, expected {}",
        ea.show(i),
        eb.show(i)
    )
}

#[cfg(test)]
mod tests;
