//! The `fft` op: FFT / IFFT (complex to complex), RFFT (real to the non-redundant half of the
//! spectrum) and IRFFT (that half back to real) over the innermost `fft_length.len()`
//! dimensions. XLA: `xla/hlo/evaluator/hlo_evaluator.cc` (`HandleFft`).
//!
//! What it is not: fast. Each transformed axis is a plain O(n^2) DFT computed in f64, with
//! the twiddle angle reduced exactly (`k * n mod N`) so results are accurate to a few ulps.
//! IFFT and IRFFT divide by the transform length, as XLA does.

use num_complex::Complex;

use super::{EvalError, EvalResult};
use crate::ir::{ArrayData, ArrayLiteral, ArrayShape, FftType, Literal, PrimitiveType, Shape};

type C = Complex<f64>;

/// Runs `fft` of type `fft_type` on `operand`, producing `shape`.
pub fn fft(shape: &Shape, operand: &Literal, fft_type: FftType, fft_length: &[i64]) -> EvalResult {
    let out_shape = shape
        .as_array()
        .ok_or_else(|| EvalError::new("fft produces an array"))?;
    let a = operand
        .as_array()
        .ok_or_else(|| EvalError::new("fft of a non-array"))?;
    let rank = a.shape.rank();
    let k = fft_length.len();
    if k == 0 || k > 3 || k > rank {
        return Err(EvalError::new(format!(
            "fft over {k} dimensions of a rank-{rank} operand"
        )));
    }
    let mut data: Vec<C> = match &a.data {
        ArrayData::F32(v) => v.iter().map(|&x| C::new(f64::from(x), 0.0)).collect(),
        ArrayData::F64(v) => v.iter().map(|&x| C::new(x, 0.0)).collect(),
        ArrayData::C64(v) => v
            .iter()
            .map(|c| C::new(f64::from(c.re), f64::from(c.im)))
            .collect(),
        ArrayData::C128(v) => v.clone(),
        _ => {
            return Err(EvalError::new(format!(
                "fft is not defined for element type {}",
                a.element_type()
            )));
        }
    };
    let mut dims: Vec<usize> = a.shape.dims.iter().map(|&d| d as usize).collect();
    let lengths: Vec<usize> = fft_length.iter().map(|&l| l as usize).collect();
    let last = rank - 1;
    let n_last = lengths[k - 1];
    match fft_type {
        FftType::Fft | FftType::Ifft => {
            let inverse = fft_type == FftType::Ifft;
            for (i, &n) in lengths.iter().enumerate() {
                let axis = rank - k + i;
                data = dft_axis(&data, &mut dims, axis, n, n, inverse, false)?;
            }
        }
        FftType::Rfft => {
            // Real input: the last axis keeps only the n/2 + 1 non-redundant outputs.
            data = dft_axis(&data, &mut dims, last, n_last, n_last / 2 + 1, false, false)?;
            for (i, &n) in lengths[..k - 1].iter().enumerate() {
                data = dft_axis(&data, &mut dims, rank - k + i, n, n, false, false)?;
            }
        }
        FftType::Irfft => {
            // Inverse over the outer axes first: each row along the last axis is then the
            // half spectrum of a real sequence, which the last step extends and inverts.
            for (i, &n) in lengths[..k - 1].iter().enumerate() {
                data = dft_axis(&data, &mut dims, rank - k + i, n, n, true, false)?;
            }
            data = dft_axis(&data, &mut dims, last, n_last, n_last, true, true)?;
        }
    }
    if dims
        .iter()
        .map(|&d| d as i64)
        .ne(out_shape.dims.iter().copied())
    {
        return Err(EvalError::new(format!(
            "fft result dimensions {dims:?} differ from the shape {shape:?}"
        )));
    }
    let out = match out_shape.element_type {
        PrimitiveType::F32 => ArrayData::F32(data.iter().map(|c| c.re as f32).collect()),
        PrimitiveType::F64 => ArrayData::F64(data.iter().map(|c| c.re).collect()),
        PrimitiveType::C64 => ArrayData::C64(
            data.iter()
                .map(|c| Complex::new(c.re as f32, c.im as f32))
                .collect(),
        ),
        PrimitiveType::C128 => ArrayData::C128(data),
        ty => return Err(EvalError::new(format!("fft cannot produce {ty}"))),
    };
    Ok(Literal::Array(ArrayLiteral {
        // Row-major, as every value inside the evaluator.
        shape: ArrayShape::new(out_shape.element_type, &out_shape.dims),
        data: out,
    }))
}

/// A DFT of length `n` along `axis` of the row-major `data` (dimensions `dims`, updated to
/// `n_out` along `axis`). The input row holds `dims[axis]` elements; rows shorter than `n`
/// are zero-padded and longer ones truncated, as XLA does. With `hermitian`, the input row
/// is the first `n/2 + 1` outputs of a real signal's DFT and is extended by conjugate
/// symmetry (`X[n - j] = conj(X[j])`) before the inverse transform.
fn dft_axis(
    data: &[C],
    dims: &mut [usize],
    axis: usize,
    n: usize,
    n_out: usize,
    inverse: bool,
    hermitian: bool,
) -> Result<Vec<C>, EvalError> {
    let n_in = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    if n == 0 {
        // A transform of length 0 (`jnp.fft.fft` of an empty axis): no input to read; any
        // outputs (an rfft's one bin) are zero, as XLA:CPU gives.
        dims[axis] = n_out;
        return Ok(vec![C::new(0.0, 0.0); outer * n_out * inner]);
    }
    let sign = if inverse { 1.0 } else { -1.0 };
    let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
    // twiddle[j] = e^(sign * 2 pi i j / n)
    let twiddle: Vec<C> = (0..n)
        .map(|j| C::from_polar(1.0, sign * 2.0 * std::f64::consts::PI * j as f64 / n as f64))
        .collect();
    let mut out = vec![C::new(0.0, 0.0); outer * n_out * inner];
    let mut row = vec![C::new(0.0, 0.0); n];
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| data[(o * n_in + j) * inner + i];
            for (j, r) in row.iter_mut().enumerate() {
                *r = if hermitian {
                    let half = n_in;
                    if j < half {
                        at(j)
                    } else if n - j < half {
                        at(n - j).conj()
                    } else {
                        C::new(0.0, 0.0)
                    }
                } else if j < n_in {
                    at(j)
                } else {
                    C::new(0.0, 0.0)
                };
            }
            for kk in 0..n_out {
                let mut sum = C::new(0.0, 0.0);
                for (j, r) in row.iter().enumerate() {
                    sum += r * twiddle[(kk * j) % n];
                }
                out[(o * n_out + kk) * inner + i] = sum * scale;
            }
        }
    }
    dims[axis] = n_out;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c128(dims: &[i64], v: &[(f64, f64)]) -> Literal {
        let v: Vec<C> = v.iter().map(|&(re, im)| C::new(re, im)).collect();
        Literal::Array(ArrayLiteral::from_vec(dims, v))
    }

    fn close(l: &Literal, want: &[(f64, f64)]) {
        let a = l.as_array().unwrap();
        let got: Vec<C> = match &a.data {
            ArrayData::C128(v) => v.clone(),
            ArrayData::F64(v) => v.iter().map(|&x| C::new(x, 0.0)).collect(),
            other => panic!("{other:?}"),
        };
        assert_eq!(got.len(), want.len());
        for (g, &(re, im)) in got.iter().zip(want) {
            assert!(
                (g.re - re).abs() < 1e-12 && (g.im - im).abs() < 1e-12,
                "{got:?}"
            );
        }
    }

    // Expected values: fft.mlir of the StableHLO interpreter tests.
    #[test]
    fn fft_and_ifft_1d() {
        let x = c128(&[2], &[(1.0, 2.0), (3.0, -4.0)]);
        let shape = Shape::array(PrimitiveType::C128, &[2]);
        let y = fft(&shape, &x, FftType::Fft, &[2]).unwrap();
        close(&y, &[(4.0, -2.0), (-2.0, 6.0)]);
        let back = fft(&shape, &y, FftType::Ifft, &[2]).unwrap();
        close(&back, &[(1.0, 2.0), (3.0, -4.0)]);
    }

    #[test]
    fn an_empty_transform_is_empty() {
        // jnp.fft.fft(jnp.zeros((3, 0), jnp.complex64)) on XLA:CPU: shape (3, 0).
        let x = c128(&[3, 0], &[]);
        let shape = Shape::array(PrimitiveType::C128, &[3, 0]);
        let y = fft(&shape, &x, FftType::Fft, &[0]).unwrap();
        assert_eq!(y.shape(), shape);
    }

    #[test]
    fn rfft_and_irfft_1d() {
        let x = Literal::Array(ArrayLiteral::from_vec(&[4], vec![1.0f64, 2.0, 3.0, 4.0]));
        let y = fft(
            &Shape::array(PrimitiveType::C128, &[3]),
            &x,
            FftType::Rfft,
            &[4],
        )
        .unwrap();
        close(&y, &[(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0)]);
        let back = fft(
            &Shape::array(PrimitiveType::F64, &[4]),
            &y,
            FftType::Irfft,
            &[4],
        )
        .unwrap();
        close(&back, &[(1.0, 0.0), (2.0, 0.0), (3.0, 0.0), (4.0, 0.0)]);
    }

    #[test]
    fn fft_2d() {
        // [[a, b], [c, d]] -> [[a+b+c+d, a-b+c-d], [a+b-c-d, a-b-c+d]] with a..d = 1..4.
        let x = c128(&[2, 2], &[(1.0, 0.0), (2.0, 0.0), (3.0, 0.0), (4.0, 0.0)]);
        let shape = Shape::array(PrimitiveType::C128, &[2, 2]);
        let y = fft(&shape, &x, FftType::Fft, &[2, 2]).unwrap();
        close(&y, &[(10.0, 0.0), (-2.0, 0.0), (-4.0, 0.0), (0.0, 0.0)]);
        // A 2x4 real signal round-trips through RFFT (2x3) and IRFFT.
        let r: Vec<f64> = vec![1.0, -2.0, 0.5, 3.0, 4.0, 0.0, -1.0, 2.5];
        let x = Literal::Array(ArrayLiteral::from_vec(&[2, 4], r.clone()));
        let y = fft(
            &Shape::array(PrimitiveType::C128, &[2, 3]),
            &x,
            FftType::Rfft,
            &[2, 4],
        )
        .unwrap();
        let back = fft(
            &Shape::array(PrimitiveType::F64, &[2, 4]),
            &y,
            FftType::Irfft,
            &[2, 4],
        )
        .unwrap();
        let want: Vec<(f64, f64)> = r.iter().map(|&x| (x, 0.0)).collect();
        close(&back, &want);
    }
}
