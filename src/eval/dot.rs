//! `dot` with general dimension numbers (batch and any number of contracting dimensions),
//! and the accumulator types dot and convolution share.
//!
//! As in HloEvaluator's `HandleDotSlowPath`, operands whose element type differs from the
//! result's are first converted to the result type; products are then summed in the
//! result type's `ElementwiseT` (f32 for bf16/f16, i64/u64 with wrap-around for integers)
//! starting from 0, over the contracting indices in row-major order of the listed
//! contracting dimensions, and rounded or truncated to the result type once at the end.
//! (The evaluator's Eigen fast path for rank-2 f32 dots only changes summation order.)
//! Result dimensions are: batch dims, lhs free dims, rhs free dims.
//! XLA: `xla/hlo/evaluator/hlo_evaluator_typed_visitor.h` (`HandleDot`,
//! `HandleDotSlowPathWithLiterals`).

use half::{bf16, f16};
use num_complex::Complex;

use super::reduce::index::{check_dims, dims_usize, linear_offsets, row_major_strides};
use super::reduce::scalar_fn::array;
use super::{EvalError, EvalResult};

mod narrow_float;
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, DotDimensionNumbers, Literal, PrimitiveType, Shape,
};

/// `dot(lhs, rhs)`: result dims are batch, lhs free, rhs free.
pub fn dot(shape: &Shape, lhs: &Literal, rhs: &Literal, dnums: &DotDimensionNumbers) -> EvalResult {
    // f8/f6/f4 results: computed in f32 and rounded once (see `narrow_float`).
    if let Some(result) = narrow_float::dot(shape, lhs, rhs, dnums) {
        return result;
    }
    let lhs = array(lhs, "dot lhs")?;
    let rhs = array(rhs, "dot rhs")?;
    let out = shape
        .as_array()
        .ok_or_else(|| EvalError::new("dot result must be an array"))?;
    let ld = dims_usize(&lhs.shape.dims);
    let rd = dims_usize(&rhs.shape.dims);
    let (lb, lc) = (
        &dnums.lhs_batch_dimensions,
        &dnums.lhs_contracting_dimensions,
    );
    let (rb, rc) = (
        &dnums.rhs_batch_dimensions,
        &dnums.rhs_contracting_dimensions,
    );
    check_dims(lb, ld.len(), "lhs batch dimension")?;
    check_dims(lc, ld.len(), "lhs contracting dimension")?;
    check_dims(rb, rd.len(), "rhs batch dimension")?;
    check_dims(rc, rd.len(), "rhs contracting dimension")?;
    let pairs_match = |a: &[usize], b: &[usize]| {
        a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| ld[x] == rd[y])
    };
    if !pairs_match(lb, rb) || !pairs_match(lc, rc) {
        return Err(EvalError::new(
            "dot batch or contracting dimensions do not match",
        ));
    }
    let free = |rank: usize, b: &[usize], c: &[usize]| -> Vec<usize> {
        (0..rank)
            .filter(|d| !b.contains(d) && !c.contains(d))
            .collect()
    };
    let (lf, rf) = (free(ld.len(), lb, lc), free(rd.len(), rb, rc));
    let size =
        |dims: &[usize], which: &[usize]| -> usize { which.iter().map(|&d| dims[d]).product() };
    let (b, m, n, k) = (size(&ld, lb), size(&ld, &lf), size(&rd, &rf), size(&ld, lc));
    let expected: Vec<i64> = lb
        .iter()
        .map(|&d| ld[d])
        .chain(lf.iter().map(|&d| ld[d]))
        .chain(rf.iter().map(|&d| rd[d]))
        .map(|d| d as i64)
        .collect();
    if out.dims != expected {
        return Err(EvalError::new(format!(
            "dot result dims {:?}, expected {expected:?}",
            out.dims
        )));
    }

    // Lay the operands out as [batch, free, contracting] so every output element is a
    // contiguous dot product of two rows.
    let order = |dims: &[usize], b: &[usize], f: &[usize], c: &[usize]| {
        let which: Vec<usize> = b.iter().chain(f).chain(c).copied().collect();
        linear_offsets(dims, &row_major_strides(dims), &which)
    };
    let lhs_order = order(&ld, lb, &lf, lc);
    let rhs_order = order(&rd, rb, &rf, rc);
    let ty = out.element_type;
    let data = match AccVec::convert(lhs, &lhs_order, ty)? {
        AccVec::F32(l) => finish_f32(
            dot_kernel(
                &l,
                &AccVec::convert(rhs, &rhs_order, ty)?.f32()?,
                b,
                m,
                n,
                k,
            ),
            ty,
        ),
        AccVec::F64(l) => ArrayData::F64(dot_kernel(
            &l,
            &AccVec::convert(rhs, &rhs_order, ty)?.f64()?,
            b,
            m,
            n,
            k,
        )),
        AccVec::I64(l) => finish_i64(
            dot_kernel(
                &l,
                &AccVec::convert(rhs, &rhs_order, ty)?.i64()?,
                b,
                m,
                n,
                k,
            ),
            ty,
        ),
        AccVec::U64(l) => finish_u64(
            dot_kernel(
                &l,
                &AccVec::convert(rhs, &rhs_order, ty)?.u64()?,
                b,
                m,
                n,
                k,
            ),
            ty,
        ),
        AccVec::C64(l) => ArrayData::C64(dot_kernel(
            &l,
            &AccVec::convert(rhs, &rhs_order, ty)?.c64()?,
            b,
            m,
            n,
            k,
        )),
        AccVec::C128(l) => ArrayData::C128(dot_kernel(
            &l,
            &AccVec::convert(rhs, &rhs_order, ty)?.c128()?,
            b,
            m,
            n,
            k,
        )),
    };
    Ok(Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(ty, &out.dims),
        data,
    }))
}

/// `out[b][m][n] = sum_k l[b][m][k] * r[b][n][k]`, summed in order from 0.
fn dot_kernel<A: Acc>(l: &[A], r: &[A], b: usize, m: usize, n: usize, k: usize) -> Vec<A> {
    let mut out = Vec::with_capacity(b * m * n);
    for bi in 0..b {
        for mi in 0..m {
            let lrow = &l[(bi * m + mi) * k..][..k];
            for ni in 0..n {
                let rrow = &r[(bi * n + ni) * k..][..k];
                out.push(
                    lrow.iter()
                        .zip(rrow)
                        .fold(A::default(), |acc, (&x, &y)| acc.mul_add(x, y)),
                );
            }
        }
    }
    out
}

/// An accumulator type: HloEvaluator's `ElementwiseT` of a result type.
pub(super) trait Acc: Copy + Default {
    /// `self + a * b` (wrapping for integers; two roundings for floats, no FMA).
    fn mul_add(self, a: Self, b: Self) -> Self;
}

impl Acc for f32 {
    #[inline]
    fn mul_add(self, a: f32, b: f32) -> f32 {
        self + a * b
    }
}
impl Acc for f64 {
    #[inline]
    fn mul_add(self, a: f64, b: f64) -> f64 {
        self + a * b
    }
}
impl Acc for i64 {
    #[inline]
    fn mul_add(self, a: i64, b: i64) -> i64 {
        self.wrapping_add(a.wrapping_mul(b))
    }
}
impl Acc for u64 {
    #[inline]
    fn mul_add(self, a: u64, b: u64) -> u64 {
        self.wrapping_add(a.wrapping_mul(b))
    }
}
impl Acc for Complex<f32> {
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        self + a * b
    }
}
impl Acc for Complex<f64> {
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        self + a * b
    }
}

/// Operand values converted to the result type and widened to its accumulator type.
pub(super) enum AccVec {
    /// For f32, bf16 and f16 results.
    F32(Vec<f32>),
    /// For f64 results.
    F64(Vec<f64>),
    /// For signed integer results.
    I64(Vec<i64>),
    /// For unsigned integer results.
    U64(Vec<u64>),
    /// For c64 results.
    C64(Vec<Complex<f32>>),
    /// For c128 results.
    C128(Vec<Complex<f64>>),
}

impl AccVec {
    /// The elements of `a` at positions `order`, converted to result type `ty` (rounding
    /// like XLA's `Convert`: to a half type through f32, to a narrower integer by
    /// truncation) and then widened to `ty`'s accumulator.
    pub(super) fn convert(
        a: &ArrayLiteral,
        order: &[usize],
        ty: PrimitiveType,
    ) -> EvalResult<AccVec> {
        use PrimitiveType as P;
        let unsupported = || {
            EvalError::new(format!(
                "cannot use {} operands for a {ty} result",
                a.element_type()
            ))
        };
        Ok(match ty {
            P::F32 | P::BF16 | P::F16 => {
                let v = real_as_f32(&a.data, order).ok_or_else(unsupported)?;
                AccVec::F32(match ty {
                    P::BF16 => v.into_iter().map(|x| bf16::from_f32(x).to_f32()).collect(),
                    P::F16 => v.into_iter().map(|x| f16::from_f32(x).to_f32()).collect(),
                    _ => v,
                })
            }
            P::F64 => AccVec::F64(real_as_f64(&a.data, order).ok_or_else(unsupported)?),
            P::S8 | P::S16 | P::S32 | P::S64 => {
                let bits = 64 - ty.bit_width() as u32;
                let v = int_as_i64(&a.data, order).ok_or_else(unsupported)?;
                // Truncate to the result width, then sign-extend back.
                AccVec::I64(v.into_iter().map(|x| (x << bits) >> bits).collect())
            }
            // A pred result sums in bool arithmetic (HloEvaluator's ElementwiseT is bool):
            // OR of ANDs, i.e. a nonzero count of true products.
            P::Pred => {
                let v = match int_as_i64(&a.data, order) {
                    Some(v) => v.into_iter().map(|x| u64::from(x != 0)).collect(),
                    None => real_as_f64(&a.data, order)
                        .ok_or_else(unsupported)?
                        .into_iter()
                        .map(|x| u64::from(x != 0.0))
                        .collect(),
                };
                AccVec::U64(v)
            }
            P::U8 | P::U16 | P::U32 | P::U64 => {
                let bits = 64 - ty.bit_width() as u32;
                let v = int_as_i64(&a.data, order).ok_or_else(unsupported)?;
                AccVec::U64(
                    v.into_iter()
                        .map(|x| ((x as u64) << bits) >> bits)
                        .collect(),
                )
            }
            P::C64 => match &a.data {
                ArrayData::C64(v) => AccVec::C64(order.iter().map(|&i| v[i]).collect()),
                _ => AccVec::C64(
                    real_as_f32(&a.data, order)
                        .ok_or_else(unsupported)?
                        .into_iter()
                        .map(|x| Complex::new(x, 0.0))
                        .collect(),
                ),
            },
            P::C128 => match &a.data {
                ArrayData::C128(v) => AccVec::C128(order.iter().map(|&i| v[i]).collect()),
                _ => AccVec::C128(
                    real_as_f64(&a.data, order)
                        .ok_or_else(unsupported)?
                        .into_iter()
                        .map(|x| Complex::new(x, 0.0))
                        .collect(),
                ),
            },
            _ => return Err(unsupported()),
        })
    }

    fn mismatch() -> EvalError {
        EvalError::new("dot operands converted to different accumulator types")
    }
}

/// `AccVec::f32(self)` and its siblings: the vector if it is of that accumulator type.
macro_rules! acc_vec_as {
    ($($name:ident => $variant:ident, $t:ty;)*) => {
        impl AccVec {
            $(
                #[doc = concat!("The values if they are `", stringify!($variant), "`.")]
                pub(super) fn $name(self) -> EvalResult<Vec<$t>> {
                    match self {
                        AccVec::$variant(v) => Ok(v),
                        _ => Err(Self::mismatch()),
                    }
                }
            )*
        }
    };
}

acc_vec_as! {
    f32 => F32, f32;
    f64 => F64, f64;
    i64 => I64, i64;
    u64 => U64, u64;
    c64 => C64, Complex<f32>;
    c128 => C128, Complex<f64>;
}

/// Real elements as f32 (`static_cast<float>`); `None` for pred, complex and raw data.
fn real_as_f32(data: &ArrayData, order: &[usize]) -> Option<Vec<f32>> {
    macro_rules! cast {
        ($v:expr, |$x:ident| $e:expr) => {
            Some(
                order
                    .iter()
                    .map(|&i| {
                        let $x = $v[i];
                        $e
                    })
                    .collect(),
            )
        };
    }
    match data {
        ArrayData::F32(v) => cast!(v, |x| x),
        ArrayData::F64(v) => cast!(v, |x| x as f32),
        ArrayData::BF16(v) => cast!(v, |x| x.to_f32()),
        ArrayData::F16(v) => cast!(v, |x| x.to_f32()),
        ArrayData::S8(v) => cast!(v, |x| x as f32),
        ArrayData::S16(v) => cast!(v, |x| x as f32),
        ArrayData::S32(v) => cast!(v, |x| x as f32),
        ArrayData::S64(v) => cast!(v, |x| x as f32),
        ArrayData::U8(v) => cast!(v, |x| x as f32),
        ArrayData::U16(v) => cast!(v, |x| x as f32),
        ArrayData::U32(v) => cast!(v, |x| x as f32),
        ArrayData::U64(v) => cast!(v, |x| x as f32),
        _ => None,
    }
}

/// Real elements as f64; `None` for pred, complex and raw data.
fn real_as_f64(data: &ArrayData, order: &[usize]) -> Option<Vec<f64>> {
    match data {
        ArrayData::F64(v) => Some(order.iter().map(|&i| v[i]).collect()),
        ArrayData::S64(v) => Some(order.iter().map(|&i| v[i] as f64).collect()),
        ArrayData::U64(v) => Some(order.iter().map(|&i| v[i] as f64).collect()),
        // Every other real type converts to f32 exactly.
        _ => real_as_f32(data, order).map(|v| v.into_iter().map(f64::from).collect()),
    }
}

/// Integer (or pred) elements as i64, unsigned ones reinterpreted; `None` for floats.
fn int_as_i64(data: &ArrayData, order: &[usize]) -> Option<Vec<i64>> {
    macro_rules! cast {
        ($v:expr) => {
            Some(order.iter().map(|&i| $v[i] as i64).collect())
        };
    }
    match data {
        ArrayData::Pred(v) => cast!(v),
        ArrayData::S8(v) => cast!(v),
        ArrayData::S16(v) => cast!(v),
        ArrayData::S32(v) => cast!(v),
        ArrayData::S64(v) => cast!(v),
        ArrayData::U8(v) => cast!(v),
        ArrayData::U16(v) => cast!(v),
        ArrayData::U32(v) => cast!(v),
        ArrayData::U64(v) => cast!(v),
        _ => None,
    }
}

/// f32 accumulators rounded to an f32, bf16 or f16 result.
pub(super) fn finish_f32(v: Vec<f32>, ty: PrimitiveType) -> ArrayData {
    match ty {
        PrimitiveType::BF16 => ArrayData::BF16(v.into_iter().map(bf16::from_f32).collect()),
        PrimitiveType::F16 => ArrayData::F16(v.into_iter().map(f16::from_f32).collect()),
        _ => ArrayData::F32(v),
    }
}

/// i64 accumulators truncated to a signed result type (two's complement wrap).
pub(super) fn finish_i64(v: Vec<i64>, ty: PrimitiveType) -> ArrayData {
    match ty {
        PrimitiveType::S8 => ArrayData::S8(v.into_iter().map(|x| x as i8).collect()),
        PrimitiveType::S16 => ArrayData::S16(v.into_iter().map(|x| x as i16).collect()),
        PrimitiveType::S32 => ArrayData::S32(v.into_iter().map(|x| x as i32).collect()),
        _ => ArrayData::S64(v),
    }
}

/// u64 accumulators truncated to an unsigned result type.
pub(super) fn finish_u64(v: Vec<u64>, ty: PrimitiveType) -> ArrayData {
    match ty {
        PrimitiveType::U8 => ArrayData::U8(v.into_iter().map(|x| x as u8).collect()),
        PrimitiveType::U16 => ArrayData::U16(v.into_iter().map(|x| x as u16).collect()),
        PrimitiveType::U32 => ArrayData::U32(v.into_iter().map(|x| x as u32).collect()),
        PrimitiveType::Pred => ArrayData::Pred(v.into_iter().map(|x| x != 0).collect()),
        _ => ArrayData::U64(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::PrimitiveType as P;

    fn dnums(lb: &[usize], rb: &[usize], lc: &[usize], rc: &[usize]) -> DotDimensionNumbers {
        DotDimensionNumbers {
            lhs_batch_dimensions: lb.to_vec(),
            rhs_batch_dimensions: rb.to_vec(),
            lhs_contracting_dimensions: lc.to_vec(),
            rhs_contracting_dimensions: rc.to_vec(),
        }
    }

    fn lit<T: crate::ir::NativeType>(dims: &[i64], v: Vec<T>) -> Literal {
        Literal::Array(ArrayLiteral::from_vec(dims, v))
    }

    fn values<T: crate::ir::NativeType>(l: &Literal) -> Vec<T> {
        l.as_array().unwrap().values::<T>().unwrap().to_vec()
    }

    #[test]
    fn matrix_product() {
        // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]
        let a = lit(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let b = lit(&[3, 2], vec![7.0f32, 8.0, 9.0, 10.0, 11.0, 12.0]);
        let r = dot(
            &Shape::array(P::F32, &[2, 2]),
            &a,
            &b,
            &dnums(&[], &[], &[1], &[0]),
        )
        .unwrap();
        assert_eq!(values::<f32>(&r), vec![58.0, 64.0, 139.0, 154.0]);
        // Contracting lhs dim 0 computes a^T b^T-style products: a^T (3x2) x a (2x3).
        let r = dot(
            &Shape::array(P::F32, &[3, 3]),
            &a,
            &a,
            &dnums(&[], &[], &[0], &[0]),
        )
        .unwrap();
        assert_eq!(
            values::<f32>(&r),
            vec![17.0, 22.0, 27.0, 22.0, 29.0, 36.0, 27.0, 36.0, 45.0]
        );
    }

    #[test]
    fn pred_dot_is_or_of_ands() {
        // [[t,f],[f,f]] x [[f,t],[t,f]]: row 0 hits (0,0)&(0,1) -> [f,t]; row 1 has no true.
        let a = lit(&[2, 2], vec![true, false, false, false]);
        let b = lit(&[2, 2], vec![false, true, true, false]);
        let r = dot(
            &Shape::array(P::Pred, &[2, 2]),
            &a,
            &b,
            &dnums(&[], &[], &[1], &[0]),
        )
        .unwrap();
        assert_eq!(values::<bool>(&r), vec![false, true, false, false]);
        // Two true products still give true (no wrap to 0 as in u1 arithmetic).
        let ones = lit(&[1, 2], vec![true, true]);
        let col = lit(&[2, 1], vec![true, true]);
        let r = dot(
            &Shape::array(P::Pred, &[1, 1]),
            &ones,
            &col,
            &dnums(&[], &[], &[1], &[0]),
        )
        .unwrap();
        assert_eq!(values::<bool>(&r), vec![true]);
    }

    #[test]
    fn batch_dims_come_first_and_may_be_anywhere() {
        // lhs [2(m), 2(batch), 2(k)], rhs [2(batch), 2(k)]: out[b][m] = sum_k l[m][b][k]*r[b][k]
        let l = lit(&[2, 2, 2], vec![1i32, 2, 3, 4, 5, 6, 7, 8]);
        let r = lit(&[2, 2], vec![1i32, 10, 100, 1000]);
        let out = dot(
            &Shape::array(P::S32, &[2, 2]),
            &l,
            &r,
            &dnums(&[1], &[0], &[2], &[1]),
        )
        .unwrap();
        // b=0: m=0: 1*1+2*10=21, m=1: 5+60=65; b=1: m=0: 300+4000=4300, m=1: 700+8000=8700
        assert_eq!(values::<i32>(&out), vec![21, 65, 4300, 8700]);
    }

    #[test]
    fn two_contracting_dims_and_outer_product() {
        // Full contraction of two [2,2] arrays = sum of elementwise products.
        let a = lit(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0]);
        let b = lit(&[2, 2], vec![5.0f64, 6.0, 7.0, 8.0]);
        let r = dot(
            &Shape::array(P::F64, &[]),
            &a,
            &b,
            &dnums(&[], &[], &[0, 1], &[0, 1]),
        )
        .unwrap();
        assert_eq!(values::<f64>(&r), vec![70.0]);
        // Contracting (1,0) against (0,1) pairs a[i][j] with b[j][i].
        let r = dot(
            &Shape::array(P::F64, &[]),
            &a,
            &b,
            &dnums(&[], &[], &[1, 0], &[0, 1]),
        )
        .unwrap();
        assert_eq!(values::<f64>(&r), vec![5.0 + 14.0 + 18.0 + 32.0]);
        // No contraction: outer product.
        let x = lit(&[2], vec![1.0f64, 2.0]);
        let y = lit(&[3], vec![3.0f64, 4.0, 5.0]);
        let r = dot(
            &Shape::array(P::F64, &[2, 3]),
            &x,
            &y,
            &dnums(&[], &[], &[], &[]),
        )
        .unwrap();
        assert_eq!(values::<f64>(&r), vec![3.0, 4.0, 5.0, 6.0, 8.0, 10.0]);
    }

    #[test]
    fn integer_dot_wraps_in_the_result_type() {
        let a = lit(&[2], vec![i32::MAX, 2]);
        let b = lit(&[2], vec![1i32, 1]);
        let r = dot(
            &Shape::array(P::S32, &[]),
            &a,
            &b,
            &dnums(&[], &[], &[0], &[0]),
        )
        .unwrap();
        assert_eq!(values::<i32>(&r), vec![i32::MIN + 1]);
        // s8 operands into an s32 result: no wrap at 8 bits.
        let a = lit(&[2], vec![100i8, 100]);
        let r = dot(
            &Shape::array(P::S32, &[]),
            &a,
            &a,
            &dnums(&[], &[], &[0], &[0]),
        )
        .unwrap();
        assert_eq!(values::<i32>(&r), vec![20000]);
    }

    #[test]
    fn bf16_dot_accumulates_in_f32_and_rounds_once() {
        // 256 + 1 + 1 in bf16: step-by-step rounding would stay at 256 (the bf16 spacing
        // at 256 is 2); summed in f32 it is 258, which bf16 represents.
        let a = lit(&[3], vec![bf16::from_f32(256.0), bf16::ONE, bf16::ONE]);
        let ones = lit(&[3], vec![bf16::ONE; 3]);
        let r = dot(
            &Shape::array(P::BF16, &[]),
            &a,
            &ones,
            &dnums(&[], &[], &[0], &[0]),
        )
        .unwrap();
        assert_eq!(values::<bf16>(&r), vec![bf16::from_f32(258.0)]);
        // bf16 operands with an f32 result are widened exactly.
        let x = lit(&[1], vec![bf16::from_f32(1.5)]);
        let r = dot(
            &Shape::array(P::F32, &[]),
            &x,
            &x,
            &dnums(&[], &[], &[0], &[0]),
        )
        .unwrap();
        assert_eq!(values::<f32>(&r), vec![2.25]);
        // f32 operands into a bf16 result are rounded to bf16 first: 1 + 2^-9 becomes 1.
        let y = lit(&[1], vec![1.0f32 + 1.0 / 512.0]);
        let r = dot(
            &Shape::array(P::BF16, &[]),
            &y,
            &y,
            &dnums(&[], &[], &[0], &[0]),
        )
        .unwrap();
        assert_eq!(values::<bf16>(&r), vec![bf16::ONE]);
    }

    #[test]
    fn mismatched_dimensions_are_an_error() {
        let a = lit(&[2], vec![1.0f32, 2.0]);
        let b = lit(&[3], vec![1.0f32, 2.0, 3.0]);
        assert!(
            dot(
                &Shape::array(P::F32, &[]),
                &a,
                &b,
                &dnums(&[], &[], &[0], &[0])
            )
            .is_err()
        );
    }
}
