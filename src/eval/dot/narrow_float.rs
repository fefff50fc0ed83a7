//! `dot` on the narrow float formats (f8/f6/f4, stored as `Raw` codes): the operands are
//! decoded to f32, the dot runs with an f32 result, and each element is rounded once to the
//! result format (nearest, ties to even; out of range gives inf, or NaN for formats
//! without inf). This matches XLA's evaluator, which accumulates these types in f32
//! (their `ElementwiseT`) and converts once at the end.
//! What it is not: the other ops on these formats (only `dot` is routed here).

use super::super::{EvalError, EvalResult};
use crate::front::hlo_text::minifloat::MiniFloat;
use crate::ir::{ArrayData, ArrayLiteral, ArrayShape, DotDimensionNumbers, Literal, Shape};

/// `dot` with a narrow-float result, or `None` when the result type is not one.
pub fn dot(
    shape: &Shape,
    lhs: &Literal,
    rhs: &Literal,
    dnums: &DotDimensionNumbers,
) -> Option<EvalResult> {
    let out = shape.as_array()?;
    let format = MiniFloat::of(out.element_type)?;
    Some((|| {
        let wide_shape = Shape::Array(ArrayShape {
            element_type: crate::ir::PrimitiveType::F32,
            ..out.clone()
        });
        let result = super::dot(&wide_shape, &decode(lhs)?, &decode(rhs)?, dnums)?;
        let values = result
            .as_array()
            .and_then(|a| a.values::<f32>())
            .ok_or_else(|| EvalError::new("f32 dot gave no f32 values"))?;
        let codes = values
            .iter()
            .map(|&v| encode(format, f64::from(v)))
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(|| EvalError::new(format!("{} has no NaN", out.element_type)))?;
        Ok(Literal::Array(ArrayLiteral {
            shape: ArrayShape::new(out.element_type, &out.dims),
            data: ArrayData::Raw(codes),
        }))
    })())
}

/// The nearest code to `v`; beyond the finite range, the format's inf of that sign, else NaN.
fn encode(format: MiniFloat, v: f64) -> Option<u8> {
    format
        .encode(v)
        .or_else(|| format.encode(f64::INFINITY.copysign(v)))
        .or_else(|| format.encode(f64::NAN))
}

/// A narrow-float (or already native) operand as f32.
fn decode(lit: &Literal) -> EvalResult<Literal> {
    let a = lit
        .as_array()
        .ok_or_else(|| EvalError::new("dot operand must be an array"))?;
    let ty = a.element_type();
    match (&a.data, MiniFloat::of(ty)) {
        (ArrayData::Raw(codes), Some(format)) => {
            let v: Vec<f32> = codes.iter().map(|&c| format.decode(c) as f32).collect();
            Ok(Literal::Array(ArrayLiteral::from_vec(&a.shape.dims, v)))
        }
        _ => Ok(lit.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::PrimitiveType;

    /// A rank-1 narrow-float literal of `values`, each exactly representable.
    fn raw(ty: PrimitiveType, values: &[f64]) -> Literal {
        let format = MiniFloat::of(ty).unwrap();
        let codes: Vec<u8> = values.iter().map(|&v| format.encode(v).unwrap()).collect();
        Literal::Array(ArrayLiteral {
            shape: ArrayShape::new(ty, &[values.len() as i64]),
            data: ArrayData::Raw(codes),
        })
    }

    fn scalar_value(l: &Literal) -> f64 {
        let a = l.as_array().unwrap();
        let ArrayData::Raw(c) = &a.data else {
            panic!("not raw")
        };
        MiniFloat::of(a.element_type()).unwrap().decode(c[0])
    }

    fn vector_dot() -> DotDimensionNumbers {
        DotDimensionNumbers {
            lhs_contracting_dimensions: vec![0],
            rhs_contracting_dimensions: vec![0],
            ..Default::default()
        }
    }

    #[test]
    fn f8_dots_of_the_conformance_corpus() {
        // dot_general.mlir: 0+1+4+9 = 14 in f8e3m4; 0+1+4+...+49 = 140 in f8e4m3, whose
        // step in [128, 256) is 16, so 140 rounds to 144 (the corpus's `dense<140.0>`
        // constant of type f8E4M3 is 144 too).
        let ty = PrimitiveType::F8E3M4;
        let x = raw(ty, &[0.0, 1.0, 2.0, 3.0]);
        let r = dot(&Shape::scalar(ty), &x, &x, &vector_dot())
            .unwrap()
            .unwrap();
        assert_eq!(scalar_value(&r), 14.0);
        let ty = PrimitiveType::F8E4M3;
        let x = raw(ty, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        let r = dot(&Shape::scalar(ty), &x, &x, &vector_dot())
            .unwrap()
            .unwrap();
        assert_eq!(scalar_value(&r), 144.0);
    }

    #[test]
    fn rounds_once_to_the_format() {
        // f8e4m3 has 3 mantissa bits, so [16, 32) has step 2: 1*1 + 16*1 = 17 ties between
        // 16 (mantissa code 0) and 18 (code 1) and rounds to the even code, 16.
        let ty = PrimitiveType::F8E4M3;
        let a = raw(ty, &[1.0, 16.0]);
        let b = raw(ty, &[1.0, 1.0]);
        let r = dot(&Shape::scalar(ty), &a, &b, &vector_dot())
            .unwrap()
            .unwrap();
        assert_eq!(scalar_value(&r), 16.0);
        // Not a narrow-float result: not handled here.
        assert!(dot(&Shape::scalar(PrimitiveType::F32), &a, &b, &vector_dot()).is_none());
    }
}
