//! `convolution` with strides, padding (negative too), lhs (base) and rhs (window)
//! dilation, window reversal, feature and batch groups, and any dimension labels.
//!
//! This is HloEvaluator's direct algorithm: for each output element, walk the window
//! positions in row-major order, skip positions that fall in the padding or in a hole of
//! the base dilation, and for each remaining one add `lhs * rhs` over the input features of
//! the element's feature group. Operands are first converted to the result type and summed
//! in its accumulator type, exactly as for `dot` (see `dot.rs`).
//!
//! Groups, in XLA's definition: with `feature_group_count = G` the input features and
//! the output features are split into G equal groups and group g of the output only sees
//! group g of the input (the kernel's input-feature dimension is the group size). With
//! `batch_group_count = G` the output features are split into G groups and output feature
//! group g reads input batch `b + g * (batch / G)`.
//! XLA: `xla/hlo/evaluator/hlo_evaluator_typed_visitor.h` (`HandleConvolutionWithLiterals`).

use super::dot::{Acc, AccVec, finish_f32, finish_i64, finish_u64};
use super::reduce::index::{dims_usize, next_index, row_major_strides};
use super::reduce::scalar_fn::array;
use super::{EvalError, EvalResult};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, ConvolutionDimensionNumbers, Literal, Shape, Window,
};

/// `convolution(lhs, rhs), window=..., dim_labels=...`.
pub fn convolution(
    shape: &Shape,
    lhs: &Literal,
    rhs: &Literal,
    window: &Window,
    dnums: &ConvolutionDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
) -> EvalResult {
    let lhs = array(lhs, "convolution lhs")?;
    let rhs = array(rhs, "convolution rhs")?;
    let out = shape
        .as_array()
        .ok_or_else(|| EvalError::new("convolution result must be an array"))?;
    let strides = |a: &ArrayShape| row_major_strides(&dims_usize(&a.dims));
    let plan = ConvolutionGeometry::new(
        (&lhs.shape, &strides(&lhs.shape)),
        (&rhs.shape, &strides(&rhs.shape)),
        out,
        window,
        dnums,
        feature_group_count,
        batch_group_count,
    )?;
    let ty = out.element_type;
    let all = |a: &ArrayLiteral| (0..a.data.len()).collect::<Vec<usize>>();
    let l = AccVec::convert(lhs, &all(lhs), ty)?;
    let r = AccVec::convert(rhs, &all(rhs), ty)?;
    let data = match l {
        AccVec::F32(l) => finish_f32(plan.run(&l, &r.f32()?), ty),
        AccVec::F64(l) => ArrayData::F64(plan.run(&l, &r.f64()?)),
        AccVec::I64(l) => finish_i64(plan.run(&l, &r.i64()?), ty),
        AccVec::U64(l) => finish_u64(plan.run(&l, &r.u64()?), ty),
        AccVec::C64(l) => ArrayData::C64(plan.run(&l, &r.c64()?)),
        AccVec::C128(l) => ArrayData::C128(plan.run(&l, &r.c128()?)),
    };
    Ok(Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(ty, &out.dims),
        data,
    }))
}

/// Everything the inner loops need, precomputed and checked once: which lhs and rhs
/// elements each output element multiplies, as element offsets under the operands' strides
/// (row-major here; the native loop convolution of the runtime passes physical strides, so
/// the two walk the same products in the same order).
pub struct ConvolutionGeometry {
    /// The result's dimensions.
    pub out_dims: Vec<usize>,
    /// Output dims of batch, feature, and each spatial dimension.
    out_batch: usize,
    out_feature: usize,
    out_spatial: Vec<usize>,
    /// Row-major strides of the operands at their batch / feature dimensions.
    lhs_batch_stride: usize,
    lhs_feature_stride: usize,
    rhs_in_stride: usize,
    rhs_out_stride: usize,
    /// Kernel spatial sizes (the window shape walked in row-major order).
    window_sizes: Vec<usize>,
    /// `[spatial dim][output coord][window coord]` → lhs linear contribution, or `None`
    /// when that position is padding or a dilation hole.
    lhs_offsets: Vec<Vec<Vec<Option<usize>>>>,
    /// `[spatial dim][window coord]` → rhs linear contribution (after reversal).
    rhs_offsets: Vec<Vec<usize>>,
    input_batch: usize,
    input_feature_group_size: usize,
    output_feature_group_size: usize,
    batch_group_size: usize,
    depthwise_multiplier: usize,
}

impl ConvolutionGeometry {
    /// Checks the convolution's shapes, window and groups and precomputes its offsets;
    /// `lhs` and `rhs` come with their element strides.
    pub fn new(
        (lhs, ls): (&ArrayShape, &[usize]),
        (rhs, rs): (&ArrayShape, &[usize]),
        out: &ArrayShape,
        window: &Window,
        dn: &ConvolutionDimensionNumbers,
        feature_group_count: i64,
        batch_group_count: i64,
    ) -> EvalResult<ConvolutionGeometry> {
        let ld = dims_usize(&lhs.dims);
        let rd = dims_usize(&rhs.dims);
        let od = dims_usize(&out.dims);
        let n = dn.input_spatial_dimensions.len();
        let ranks_ok = ld.len() == n + 2
            && rd.len() == n + 2
            && od.len() == n + 2
            && dn.kernel_spatial_dimensions.len() == n
            && dn.output_spatial_dimensions.len() == n
            && window.dimensions.len() == n;
        let dims_ok = |dims: &[usize], ds: &[usize]| ds.iter().all(|&d| d < dims.len());
        let lhs_dims = [
            &[dn.input_batch_dimension, dn.input_feature_dimension][..],
            &dn.input_spatial_dimensions,
        ]
        .concat();
        let rhs_dims = [
            &[
                dn.kernel_input_feature_dimension,
                dn.kernel_output_feature_dimension,
            ][..],
            &dn.kernel_spatial_dimensions,
        ]
        .concat();
        let out_dims = [
            &[dn.output_batch_dimension, dn.output_feature_dimension][..],
            &dn.output_spatial_dimensions,
        ]
        .concat();
        if !ranks_ok
            || !dims_ok(&ld, &lhs_dims)
            || !dims_ok(&rd, &rhs_dims)
            || !dims_ok(&od, &out_dims)
        {
            return Err(EvalError::new(
                "convolution ranks, window and dim_labels do not agree",
            ));
        }
        if feature_group_count < 1 || batch_group_count < 1 {
            return Err(EvalError::new("convolution group counts must be positive"));
        }
        let (fgc, bgc) = (feature_group_count as usize, batch_group_count as usize);
        let input_batch = ld[dn.input_batch_dimension];
        let input_features = ld[dn.input_feature_dimension];
        let output_features = rd[dn.kernel_output_feature_dimension];
        if !input_features.is_multiple_of(fgc)
            || !output_features.is_multiple_of(fgc)
            || !input_batch.is_multiple_of(bgc)
            || !output_features.is_multiple_of(bgc)
        {
            return Err(EvalError::new(
                "convolution group counts do not divide the feature/batch sizes",
            ));
        }
        let input_feature_group_size = input_features / fgc;
        if rd[dn.kernel_input_feature_dimension] != input_feature_group_size {
            return Err(EvalError::new(format!(
                "kernel input features {} != input features {input_features} / feature_group_count {fgc}",
                rd[dn.kernel_input_feature_dimension]
            )));
        }
        if od[dn.output_feature_dimension] != output_features
            || od[dn.output_batch_dimension] != input_batch / bgc
        {
            return Err(EvalError::new(
                "convolution output batch/feature sizes do not match the operands",
            ));
        }

        if ls.len() != ld.len() || rs.len() != rd.len() {
            return Err(EvalError::new("convolution strides do not match the ranks"));
        }
        let window_sizes: Vec<usize> = dn
            .kernel_spatial_dimensions
            .iter()
            .map(|&d| rd[d])
            .collect();
        let mut lhs_offsets = Vec::with_capacity(n);
        let mut rhs_offsets = Vec::with_capacity(n);
        for k in 0..n {
            let wd = &window.dimensions[k];
            if wd.stride < 1
                || wd.window_dilation < 1
                || wd.base_dilation < 1
                || wd.size != window_sizes[k] as i64
            {
                return Err(EvalError::new(format!(
                    "invalid convolution window dimension {k}: {wd:?}"
                )));
            }
            let in_dim = dn.input_spatial_dimensions[k];
            let size = ld[in_dim] as i64;
            let per_out: Vec<Vec<Option<usize>>> = (0..od[dn.output_spatial_dimensions[k]] as i64)
                .map(|o| {
                    (0..wd.size)
                        .map(|w| {
                            let undilated = o * wd.stride - wd.padding_low + w * wd.window_dilation;
                            if undilated % wd.base_dilation != 0 {
                                return None;
                            }
                            let i = undilated / wd.base_dilation;
                            (0..size).contains(&i).then(|| i as usize * ls[in_dim])
                        })
                        .collect()
                })
                .collect();
            lhs_offsets.push(per_out);
            let kd = dn.kernel_spatial_dimensions[k];
            let w_count = window_sizes[k];
            rhs_offsets.push(
                (0..w_count)
                    .map(|w| if wd.window_reversal { w_count - 1 - w } else { w } * rs[kd])
                    .collect(),
            );
        }
        Ok(ConvolutionGeometry {
            out_dims: od,
            out_batch: dn.output_batch_dimension,
            out_feature: dn.output_feature_dimension,
            out_spatial: dn.output_spatial_dimensions.clone(),
            lhs_batch_stride: ls[dn.input_batch_dimension],
            lhs_feature_stride: ls[dn.input_feature_dimension],
            rhs_in_stride: rs[dn.kernel_input_feature_dimension],
            rhs_out_stride: rs[dn.kernel_output_feature_dimension],
            window_sizes,
            lhs_offsets,
            rhs_offsets,
            input_batch,
            input_feature_group_size,
            output_feature_group_size: output_features / fgc,
            batch_group_size: input_batch / bgc,
            depthwise_multiplier: if bgc > 1 { output_features / bgc } else { 1 },
        })
    }

    /// Calls `f(lhs_offset, rhs_offset)` for every product that output element
    /// `out_index` sums, in HloEvaluator's order (window positions in row-major order,
    /// then the input features of the element's group); `w` is scratch of one entry per
    /// spatial dimension.
    #[inline]
    pub fn for_each_product(
        &self,
        out_index: &[usize],
        w: &mut [usize],
        mut f: impl FnMut(usize, usize),
    ) {
        let n = self.window_sizes.len();
        let window_count: usize = self.window_sizes.iter().product();
        let batch = out_index[self.out_batch];
        let z = out_index[self.out_feature];
        let feature_group = z / self.output_feature_group_size;
        let batch_group = z / self.depthwise_multiplier;
        // The lhs batch this output reads: its own, shifted into its batch group.
        let lhs_batch = batch + (batch_group * self.batch_group_size) % self.input_batch;
        let lhs_base = lhs_batch * self.lhs_batch_stride
            + feature_group * self.input_feature_group_size * self.lhs_feature_stride;
        let rhs_base = z * self.rhs_out_stride;
        w.fill(0);
        for _ in 0..window_count {
            // Sum the spatial contributions; skip the position if any is invalid.
            let mut lhs_pos = Some(lhs_base);
            let mut rhs_pos = rhs_base;
            for k in 0..n {
                let o = out_index[self.out_spatial[k]];
                lhs_pos = lhs_pos
                    .zip(self.lhs_offsets[k][o][w[k]])
                    .map(|(a, b)| a + b);
                rhs_pos += self.rhs_offsets[k][w[k]];
            }
            if let Some(lp) = lhs_pos {
                for iz in 0..self.input_feature_group_size {
                    f(
                        lp + iz * self.lhs_feature_stride,
                        rhs_pos + iz * self.rhs_in_stride,
                    );
                }
            }
            next_index(w, &self.window_sizes);
        }
    }

    /// Multiply-adds one output element computes (at least 1).
    pub fn work_per_element(&self) -> usize {
        (self.window_sizes.iter().product::<usize>() * self.input_feature_group_size).max(1)
    }

    /// Number of spatial dimensions (the length of [`Self::for_each_product`]'s scratch).
    pub fn spatial_rank(&self) -> usize {
        self.window_sizes.len()
    }

    /// Computes every output element (row-major).
    fn run<A: Acc>(&self, l: &[A], r: &[A]) -> Vec<A> {
        let count: usize = self.out_dims.iter().product();
        let mut out = Vec::with_capacity(count);
        if count == 0 {
            return out;
        }
        let mut out_index = vec![0usize; self.out_dims.len()];
        let mut w = vec![0usize; self.spatial_rank()];
        loop {
            let mut acc = A::default();
            self.for_each_product(&out_index, &mut w, |lp, rp| acc = acc.mul_add(l[lp], r[rp]));
            out.push(acc);
            if !next_index(&mut out_index, &self.out_dims) {
                return out;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{PrimitiveType as P, WindowDimension};

    fn lit(dims: &[i64], v: Vec<f32>) -> Literal {
        Literal::Array(ArrayLiteral::from_vec(dims, v))
    }

    fn values(l: &Literal) -> Vec<f32> {
        l.as_array().unwrap().values::<f32>().unwrap().to_vec()
    }

    /// `b01f_01io->b01f` for `n` spatial dims (`n` = 1 or 2).
    fn nhwc(n: usize) -> ConvolutionDimensionNumbers {
        let sp: Vec<usize> = (1..=n).collect();
        ConvolutionDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: n + 1,
            input_spatial_dimensions: sp.clone(),
            kernel_input_feature_dimension: n,
            kernel_output_feature_dimension: n + 1,
            kernel_spatial_dimensions: (0..n).collect(),
            output_batch_dimension: 0,
            output_feature_dimension: n + 1,
            output_spatial_dimensions: sp,
        }
    }

    fn wd(
        size: i64,
        stride: i64,
        lo: i64,
        hi: i64,
        lhs: i64,
        rhs: i64,
        rev: bool,
    ) -> WindowDimension {
        WindowDimension {
            size,
            stride,
            padding_low: lo,
            padding_high: hi,
            base_dilation: lhs,
            window_dilation: rhs,
            window_reversal: rev,
        }
    }

    /// 1-D single-channel convolution of `x` with kernel `k`.
    fn conv1d(x: Vec<f32>, k: Vec<f32>, out: i64, w: WindowDimension) -> Vec<f32> {
        let (n, ks) = (x.len() as i64, k.len() as i64);
        let window = Window {
            dimensions: vec![w],
        };
        let r = convolution(
            &Shape::array(P::F32, &[1, out, 1]),
            &lit(&[1, n, 1], x),
            &lit(&[ks, 1, 1], k),
            &window,
            &nhwc(1),
            1,
            1,
        )
        .unwrap();
        values(&r)
    }

    #[test]
    fn one_dimensional_windows() {
        let x = vec![1.0, 2.0, 3.0, 4.0, 5.0];
        let k = vec![1.0, 10.0];
        // Cross-correlation, no flip: y[i] = x[i] + 10 x[i+1].
        assert_eq!(
            conv1d(x.clone(), k.clone(), 4, wd(2, 1, 0, 0, 1, 1, false)),
            vec![21.0, 32.0, 43.0, 54.0]
        );
        // Padding 1 on both sides.
        assert_eq!(
            conv1d(x.clone(), k.clone(), 6, wd(2, 1, 1, 1, 1, 1, false)),
            vec![10.0, 21.0, 32.0, 43.0, 54.0, 5.0]
        );
        // Negative low padding drops x[0]; stride 2.
        assert_eq!(
            conv1d(x.clone(), k.clone(), 2, wd(2, 2, -1, 0, 1, 1, false)),
            vec![32.0, 54.0]
        );
        // Window (rhs) dilation 2: y[i] = x[i] + 10 x[i+2].
        assert_eq!(
            conv1d(x.clone(), k.clone(), 3, wd(2, 1, 0, 0, 1, 2, false)),
            vec![31.0, 42.0, 53.0]
        );
        // Base (lhs) dilation 2: base is [1,_,2,_,3]; y = [1+0, 0+20, 2+0, 0+30].
        assert_eq!(
            conv1d(
                vec![1.0, 2.0, 3.0],
                k.clone(),
                4,
                wd(2, 1, 0, 0, 2, 1, false)
            ),
            vec![1.0, 20.0, 2.0, 30.0]
        );
        // Window reversal flips the kernel: y[i] = 10 x[i] + x[i+1].
        assert_eq!(
            conv1d(x, k, 4, wd(2, 1, 0, 0, 1, 1, true)),
            vec![12.0, 23.0, 34.0, 45.0]
        );
    }

    #[test]
    fn two_dimensional_with_channels() {
        // x: [1, 2, 2, 2] (b, h, w, f), k: [1, 1, 2, 2] (h, w, i, o): a 1x1 conv is a
        // per-pixel matrix product with [[1, 2], [3, 4]].
        let x = lit(&[1, 2, 2, 2], vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 3.0]);
        let k = lit(&[1, 1, 2, 2], vec![1.0, 2.0, 3.0, 4.0]);
        let window = Window {
            dimensions: vec![WindowDimension::of_size(1), WindowDimension::of_size(1)],
        };
        let r = convolution(
            &Shape::array(P::F32, &[1, 2, 2, 2]),
            &x,
            &k,
            &window,
            &nhwc(2),
            1,
            1,
        )
        .unwrap();
        assert_eq!(values(&r), vec![1.0, 2.0, 3.0, 4.0, 4.0, 6.0, 11.0, 16.0]);
    }

    #[test]
    fn other_dim_labels() {
        // bf0_oi0->bf0 with the same numbers as the first 1-D case.
        let dn = ConvolutionDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: 1,
            input_spatial_dimensions: vec![2],
            kernel_input_feature_dimension: 1,
            kernel_output_feature_dimension: 0,
            kernel_spatial_dimensions: vec![2],
            output_batch_dimension: 0,
            output_feature_dimension: 1,
            output_spatial_dimensions: vec![2],
        };
        let x = lit(&[1, 1, 5], vec![1.0, 2.0, 3.0, 4.0, 5.0]);
        let k = lit(&[1, 1, 2], vec![1.0, 10.0]);
        let window = Window {
            dimensions: vec![WindowDimension::of_size(2)],
        };
        let r = convolution(
            &Shape::array(P::F32, &[1, 1, 4]),
            &x,
            &k,
            &window,
            &dn,
            1,
            1,
        )
        .unwrap();
        assert_eq!(values(&r), vec![21.0, 32.0, 43.0, 54.0]);
    }

    #[test]
    fn feature_groups_see_only_their_inputs() {
        // 2 input features, 2 groups, 2 output features, 1x1 window: out f0 = 2 * in f0,
        // out f1 = 3 * in f1 (kernel [1, 1(i), 2(o)] = [2, 3]).
        let x = lit(&[1, 1, 2], vec![5.0, 7.0]);
        let k = lit(&[1, 1, 2], vec![2.0, 3.0]);
        let window = Window {
            dimensions: vec![WindowDimension::of_size(1)],
        };
        let r = convolution(
            &Shape::array(P::F32, &[1, 1, 2]),
            &x,
            &k,
            &window,
            &nhwc(1),
            2,
            1,
        )
        .unwrap();
        assert_eq!(values(&r), vec![10.0, 21.0]);
    }

    #[test]
    fn batch_groups_read_their_batch() {
        // Input batch 2, batch_group_count 2, 2 output features: output feature g reads
        // input batch g. x[b][s][f]: batch 0 = [1, 2], batch 1 = [10, 20] over 2 spatial
        // positions, 1 feature; kernel size 2, 1 input feature, 2 outputs: [[1, 1], [1, -1]]
        // as k[s][i][o] = [[1, 1], [1, -1]] → out f0 = x0[0] + x0[1] = 3,
        // out f1 = x1[0] - x1[1] = -10.
        let x = lit(&[2, 2, 1], vec![1.0, 2.0, 10.0, 20.0]);
        let k = lit(&[2, 1, 2], vec![1.0, 1.0, 1.0, -1.0]);
        let window = Window {
            dimensions: vec![WindowDimension::of_size(2)],
        };
        let r = convolution(
            &Shape::array(P::F32, &[1, 1, 2]),
            &x,
            &k,
            &window,
            &nhwc(1),
            1,
            2,
        )
        .unwrap();
        assert_eq!(values(&r), vec![3.0, -10.0]);
    }

    #[test]
    fn bad_groups_are_errors() {
        let x = lit(&[1, 1, 3], vec![1.0, 2.0, 3.0]);
        let k = lit(&[1, 1, 2], vec![2.0, 3.0]);
        let window = Window {
            dimensions: vec![WindowDimension::of_size(1)],
        };
        assert!(
            convolution(
                &Shape::array(P::F32, &[1, 1, 2]),
                &x,
                &k,
                &window,
                &nhwc(1),
                2,
                1
            )
            .is_err()
        );
    }
}
