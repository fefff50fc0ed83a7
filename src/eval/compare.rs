//! Comparing results with expected values, the way XLA's `literal_comparison::Near` does:
//! an element mismatches only if its absolute error exceeds `atol` AND its relative error
//! exceeds `rtol`. Integers and booleans must match exactly; NaN matches NaN; infinities
//! must match in sign. The per-type default tolerances live here and nowhere else.
//! XLA: `xla/literal_comparison.cc`, `xla/tools/run_hlo_module.cc`.

use std::fmt;

use half::{bf16, f16};

use crate::ir::{ArrayData, ArrayLiteral, Module, PrimitiveType, Shape};

/// Error bounds for floating-point comparison.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Tolerance {
    /// Relative bound: `|actual - expected| / |expected|`.
    pub rtol: f64,
    /// Absolute bound: `|actual - expected|`.
    pub atol: f64,
}

impl Tolerance {
    /// The default bounds for comparing xlac with XLA:CPU on an element type.
    ///
    /// XLA:CPU evaluates transcendental functions with its own polynomial approximations
    /// (a few ULP) and accumulates dots and convolutions in f32 in its own order: on
    /// `testdata/conv_batch_group` its f32 result is 1.55e-5 relative from the exact value.
    /// So f32 gets 2e-5. bf16 and f16 keep 8 and 11 significant bits, so about 1e-2, with
    /// the same absolute bound because rounding errors add up in sums (`testdata/bf16_mixed`
    /// sums 8 bf16 values: 7.4e-3 apart from XLA:CPU, which sums them unrounded in f32).
    pub fn for_type(ty: PrimitiveType) -> Tolerance {
        match ty {
            PrimitiveType::BF16 | PrimitiveType::F16 => Tolerance {
                rtol: 1e-2,
                atol: 1e-2,
            },
            PrimitiveType::F64 | PrimitiveType::C128 => Tolerance {
                rtol: 1e-10,
                atol: 1e-12,
            },
            _ => Tolerance {
                rtol: 2e-5,
                atol: 1e-6,
            },
        }
    }

    /// The bounds for an output of type `ty` of `module`: those of `ty`, loosened to bf16's
    /// when the module computes in bf16 or f16 anywhere. An f32 sum of bf16 values is only
    /// as precise as bf16, and XLA:CPU keeps some bf16 intermediates in f32 (it removes
    /// f32→bf16→f32 convert pairs) where the interpreter rounds each one.
    pub fn for_output(module: &Module, ty: PrimitiveType) -> Tolerance {
        let narrow = |s: &Shape| {
            s.leaves()
                .iter()
                .any(|a| matches!(a.element_type, PrimitiveType::BF16 | PrimitiveType::F16))
        };
        let computes_narrow = module
            .order
            .iter()
            .any(|&c| module.computations[c].iter().any(|(_, i)| narrow(&i.shape)));
        if computes_narrow && (ty.is_float() || ty.is_complex()) {
            Tolerance::for_type(PrimitiveType::BF16)
        } else {
            Tolerance::for_type(ty)
        }
    }

    /// No tolerance at all: bit-for-bit equal values (NaN still matches NaN).
    pub const EXACT: Tolerance = Tolerance {
        rtol: 0.0,
        atol: 0.0,
    };
}

/// The result of comparing one array.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayComparison {
    /// Number of elements compared.
    pub elements: usize,
    /// Number of elements outside the tolerance.
    pub mismatches: usize,
    /// Largest absolute error over all elements (0 for integers that match).
    pub max_abs_error: f64,
    /// Largest relative error over all elements.
    pub max_rel_error: f64,
    /// The first mismatch: (row-major index, actual, expected).
    pub first_mismatch: Option<(usize, f64, f64)>,
}

impl ArrayComparison {
    /// True if every element is within tolerance.
    pub fn ok(&self) -> bool {
        self.mismatches == 0
    }
}

impl fmt::Display for ArrayComparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} elements differ; max abs error {:.3e}, max rel error {:.3e}",
            self.mismatches, self.elements, self.max_abs_error, self.max_rel_error
        )?;
        if let Some((i, a, e)) = self.first_mismatch {
            write!(f, "; first at index {i}: got {a}, expected {e}")?;
        }
        Ok(())
    }
}

/// Compares `actual` with `expected` element by element (in logical order, whatever the
/// layouts). The dimensions must agree. Element types must agree, except that an expected
/// f32 array may stand for a bf16 or f16 result (npz files have no bf16).
pub fn compare_arrays(
    actual: &ArrayLiteral,
    expected: &ArrayLiteral,
    tol: Tolerance,
) -> Result<ArrayComparison, String> {
    if actual.shape.dims != expected.shape.dims {
        return Err(format!(
            "dimensions differ: got {:?}, expected {:?}",
            actual.shape.dims, expected.shape.dims
        ));
    }
    let (at, et) = (actual.element_type(), expected.element_type());
    let widened =
        matches!(at, PrimitiveType::BF16 | PrimitiveType::F16) && et == PrimitiveType::F32;
    if at != et && !widened {
        return Err(format!("element types differ: got {at}, expected {et}"));
    }
    let actual = actual.to_row_major();
    let expected = expected.to_row_major();
    let mut cmp = ArrayComparison {
        elements: actual.data.len(),
        mismatches: 0,
        max_abs_error: 0.0,
        max_rel_error: 0.0,
        first_mismatch: None,
    };
    if at.is_float() || at.is_complex() {
        let (a, e) = (as_f64(&actual.data), as_f64(&expected.data));
        for (i, (&x, &y)) in a.iter().zip(&e).enumerate() {
            let (abs, rel) = errors(x, y);
            cmp.max_abs_error = cmp.max_abs_error.max(abs);
            cmp.max_rel_error = cmp.max_rel_error.max(rel);
            if abs > tol.atol && rel > tol.rtol {
                cmp.mismatches += 1;
                cmp.first_mismatch
                    .get_or_insert((i / if at.is_complex() { 2 } else { 1 }, x, y));
            }
        }
    } else if actual.data != expected.data {
        let (a, e) = (as_f64(&actual.data), as_f64(&expected.data));
        let differing = |i: usize| {
            crate::with_array_data!(&actual.data, v => format!("{:?}", v[i]))
                != crate::with_array_data!(&expected.data, v => format!("{:?}", v[i]))
        };
        for i in 0..a.len() {
            if differing(i) {
                cmp.mismatches += 1;
                cmp.max_abs_error = cmp.max_abs_error.max((a[i] - e[i]).abs());
                cmp.first_mismatch.get_or_insert((i, a[i], e[i]));
            }
        }
    }
    Ok(cmp)
}

/// Absolute and relative error of one element; NaN matches NaN, infinities match only
/// themselves (any other combination is an infinite error).
fn errors(actual: f64, expected: f64) -> (f64, f64) {
    if actual.is_nan() && expected.is_nan() {
        return (0.0, 0.0);
    }
    if actual.is_nan() || expected.is_nan() || actual.is_infinite() || expected.is_infinite() {
        return if actual == expected {
            (0.0, 0.0)
        } else {
            (f64::INFINITY, f64::INFINITY)
        };
    }
    let abs = (actual - expected).abs();
    let rel = if expected == 0.0 {
        if abs == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        abs / expected.abs()
    };
    (abs, rel)
}

/// Every element widened to f64 (complex numbers as consecutive re, im pairs).
fn as_f64(data: &ArrayData) -> Vec<f64> {
    match data {
        ArrayData::Pred(v) => v.iter().map(|&x| x as u8 as f64).collect(),
        ArrayData::S8(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::S16(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::S64(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::U8(v) | ArrayData::Raw(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::U16(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::U64(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::F16(v) => v.iter().map(|&x| f16::to_f64(x)).collect(),
        ArrayData::BF16(v) => v.iter().map(|&x| bf16::to_f64(x)).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| x as f64).collect(),
        ArrayData::F64(v) => v.clone(),
        ArrayData::C64(v) => v.iter().flat_map(|c| [c.re as f64, c.im as f64]).collect(),
        ArrayData::C128(v) => v.iter().flat_map(|c| [c.re, c.im]).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_needs_both_bounds_exceeded() {
        let tol = Tolerance {
            rtol: 1e-3,
            atol: 1e-3,
        };
        let e = ArrayLiteral::from_vec(&[3], vec![1000.0f32, 0.0, f32::NAN]);
        // 1000.5 is 5e-4 relative (within rtol); 5e-4 vs 0 is within atol; NaN matches NaN.
        let a = ArrayLiteral::from_vec(&[3], vec![1000.5f32, 5e-4, f32::NAN]);
        assert!(compare_arrays(&a, &e, tol).unwrap().ok());
        let bad = ArrayLiteral::from_vec(&[3], vec![1002.0f32, 0.0, 1.0]);
        let c = compare_arrays(&bad, &e, tol).unwrap();
        assert_eq!(c.mismatches, 2);
        assert_eq!(c.first_mismatch.map(|m| m.0), Some(0));
    }

    #[test]
    fn integers_compare_exactly_and_types_must_match() {
        let e = ArrayLiteral::from_vec(&[2], vec![i64::MAX, -1]);
        let a = ArrayLiteral::from_vec(&[2], vec![i64::MAX - 1, -1]);
        // Both round to the same f64, but the integers differ.
        assert_eq!(
            compare_arrays(&a, &e, Tolerance::EXACT).unwrap().mismatches,
            1
        );
        let f = ArrayLiteral::from_vec(&[2], vec![1.0f32, 2.0]);
        assert!(compare_arrays(&f, &e, Tolerance::EXACT).is_err());
    }

    #[test]
    fn infinities_must_match_sign() {
        let e = ArrayLiteral::from_vec(&[1], vec![f32::INFINITY]);
        let a = ArrayLiteral::from_vec(&[1], vec![f32::NEG_INFINITY]);
        assert!(
            !compare_arrays(&a, &e, Tolerance::for_type(PrimitiveType::F32))
                .unwrap()
                .ok()
        );
    }
}
