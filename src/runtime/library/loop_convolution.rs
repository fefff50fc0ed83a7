//! `convolution`s the GEMM path does not take (integer results; complex results, with
//! complex or real operands) as a native direct loop, with every attribute XLA has: any
//! dimension labels, strides, padding (negative too), base and window dilation, window
//! reversal, feature and batch groups.
//!
//! The algorithm is HloEvaluator's (and `eval::convolution`'s): for each output element,
//! walk the window positions in row-major order, skip those in the padding or in a hole of
//! the base dilation, and add `lhs * rhs` over the input features of the element's feature
//! group, in the accumulators of [`loop_dot`](super::loop_dot): integers in wrapping
//! `i64`, truncated once at the store (bit-exact whatever the order), complex numbers in
//! the result's type in the interpreter's order (so the two backends agree to the bit).
//! Operands and result are read and written through their physical layouts; output
//! elements are split across the thread pool.
//! XLA: `xla/backends/cpu/runtime/convolution_thunk.cc` (Eigen's contraction for these
//! types); semantics of `HandleConvolutionWithLiterals` in
//! `xla/hlo/evaluator/hlo_evaluator_typed_visitor.h`.

use rayon::prelude::*;

use super::loop_dot::{self, Accumulator};
use super::{SendPtr, inputs_safe_from};
use crate::ir::{ConvolutionDimensionNumbers, PrimitiveType, Window};
use crate::runtime::RuntimeError;
use crate::runtime::execute::Memory;
use crate::runtime::thunk::BufferRef;

/// A `convolution` on buffers, computed by the direct loop (integer or complex).
#[derive(Debug)]
pub struct LoopConvolutionThunk {
    /// The convolution instruction.
    pub name: String,
    /// The input.
    pub lhs: BufferRef,
    /// The kernel.
    pub rhs: BufferRef,
    /// The result.
    pub out: BufferRef,
    /// Strides, padding, dilations and reversal per spatial dimension.
    pub window: Window,
    /// Which dimension is which.
    pub dimension_numbers: ConvolutionDimensionNumbers,
    /// `feature_group_count` (at least 1).
    pub feature_group_count: usize,
    /// `batch_group_count` (at least 1).
    pub batch_group_count: usize,
}

/// True when the loop computes a convolution of these element types (those of
/// [`loop_dot::supported`]).
pub fn supported(lhs: PrimitiveType, rhs: PrimitiveType, out: PrimitiveType) -> bool {
    loop_dot::supported(lhs, rhs, out)
}

/// Runs a loop convolution.
pub fn run(t: &LoopConvolutionThunk, memory: &Memory) -> Result<(), RuntimeError> {
    let plan = Plan::new(t).map_err(|m| RuntimeError::new(format!("{}: {m}", t.name)))?;
    match t.out.shape.element_type {
        PrimitiveType::C64 => plan.run::<num_complex::Complex<f32>>(t, memory),
        PrimitiveType::C128 => plan.run::<num_complex::Complex<f64>>(t, memory),
        _ => plan.run::<i64>(t, memory),
    }
    Ok(())
}

/// Everything the inner loop needs, checked once: strides are physical element strides.
struct Plan {
    out_dims: Vec<usize>,
    out_strides: Vec<usize>,
    out_batch: usize,
    out_feature: usize,
    out_spatial: Vec<usize>,
    lhs_batch_stride: usize,
    lhs_feature_stride: usize,
    rhs_in_stride: usize,
    rhs_out_stride: usize,
    /// Kernel spatial sizes (the window walked in row-major order).
    window_sizes: Vec<usize>,
    /// `[spatial dim][output coord][window coord]` → lhs offset, or `None` in the padding
    /// or a dilation hole.
    lhs_offsets: Vec<Vec<Vec<Option<usize>>>>,
    /// `[spatial dim][window coord]` → rhs offset (after reversal).
    rhs_offsets: Vec<Vec<usize>>,
    input_batch: usize,
    input_feature_group_size: usize,
    output_feature_group_size: usize,
    batch_group_size: usize,
    depthwise_multiplier: usize,
}

impl Plan {
    fn new(t: &LoopConvolutionThunk) -> Result<Plan, String> {
        let dims = |b: &BufferRef| -> Vec<usize> {
            b.shape.dims.iter().map(|&d| d.max(0) as usize).collect()
        };
        let (ld, rd, od) = (dims(&t.lhs), dims(&t.rhs), dims(&t.out));
        let dn = &t.dimension_numbers;
        let n = dn.input_spatial_dimensions.len();
        let in_range = |d: &[usize], ds: &[usize]| ds.iter().all(|&x| x < d.len());
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
        if ld.len() != n + 2
            || rd.len() != n + 2
            || od.len() != n + 2
            || dn.kernel_spatial_dimensions.len() != n
            || dn.output_spatial_dimensions.len() != n
            || t.window.dimensions.len() != n
            || !in_range(&ld, &lhs_dims)
            || !in_range(&rd, &rhs_dims)
            || !in_range(&od, &out_dims)
        {
            return Err("convolution ranks, window and dim_labels do not agree".into());
        }
        let (fgc, bgc) = (t.feature_group_count, t.batch_group_count);
        let input_batch = ld[dn.input_batch_dimension];
        let input_features = ld[dn.input_feature_dimension];
        let output_features = rd[dn.kernel_output_feature_dimension];
        if fgc == 0
            || bgc == 0
            || !input_features.is_multiple_of(fgc)
            || !output_features.is_multiple_of(fgc)
            || !input_batch.is_multiple_of(bgc)
            || !output_features.is_multiple_of(bgc)
            || rd[dn.kernel_input_feature_dimension] != input_features / fgc
            || od[dn.output_feature_dimension] != output_features
            || od[dn.output_batch_dimension] != input_batch / bgc
        {
            return Err("convolution group counts do not divide the feature sizes".into());
        }
        let ls = t.lhs.shape.physical_strides();
        let rs = t.rhs.shape.physical_strides();
        let window_sizes: Vec<usize> = dn
            .kernel_spatial_dimensions
            .iter()
            .map(|&d| rd[d])
            .collect();
        let mut lhs_offsets = Vec::with_capacity(n);
        let mut rhs_offsets = Vec::with_capacity(n);
        for k in 0..n {
            let wd = &t.window.dimensions[k];
            if wd.stride < 1
                || wd.window_dilation < 1
                || wd.base_dilation < 1
                || wd.size != window_sizes[k] as i64
            {
                return Err(format!("invalid convolution window dimension {k}"));
            }
            let in_dim = dn.input_spatial_dimensions[k];
            let size = ld[in_dim] as i64;
            lhs_offsets.push(
                (0..od[dn.output_spatial_dimensions[k]] as i64)
                    .map(|o| {
                        (0..wd.size)
                            .map(|w| {
                                let undilated =
                                    o * wd.stride - wd.padding_low + w * wd.window_dilation;
                                if undilated % wd.base_dilation != 0 {
                                    return None;
                                }
                                let i = undilated / wd.base_dilation;
                                (0..size).contains(&i).then(|| i as usize * ls[in_dim])
                            })
                            .collect()
                    })
                    .collect(),
            );
            let kd = dn.kernel_spatial_dimensions[k];
            let count = window_sizes[k];
            rhs_offsets.push(
                (0..count)
                    .map(|w| if wd.window_reversal { count - 1 - w } else { w } * rs[kd])
                    .collect(),
            );
        }
        Ok(Plan {
            out_strides: t.out.shape.physical_strides(),
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
            input_feature_group_size: input_features / fgc,
            output_feature_group_size: output_features / fgc,
            batch_group_size: input_batch / bgc,
            depthwise_multiplier: if bgc > 1 { output_features / bgc } else { 1 },
        })
    }

    /// Computes every output element, in parallel runs of the row-major output order.
    fn run<A: Accumulator>(&self, t: &LoopConvolutionThunk, memory: &Memory) {
        let count: usize = self.out_dims.iter().product();
        if count == 0 {
            return;
        }
        let (lt, rt, ot) = (
            t.lhs.shape.element_type,
            t.rhs.shape.element_type,
            t.out.shape.element_type,
        );
        // Operands that share bytes with the result are read from copies, kept alive
        // until every element is written.
        let (ptrs, _staged) =
            inputs_safe_from(&[&t.lhs, &t.rhs], std::slice::from_ref(&t.out), memory);
        let (lp, rp, op) = (
            SendPtr(ptrs[0]),
            SendPtr(ptrs[1]),
            SendPtr(memory.ptr(t.out.slice)),
        );
        let window_count: usize = self.window_sizes.iter().product();
        let work_per_element = (window_count * self.input_feature_group_size).max(1);
        let per_task = (MIN_TASK_WORK / work_per_element).max(1);
        let starts: Vec<usize> = (0..count).step_by(per_task).collect();
        starts.par_iter().for_each(|&start| {
            let (lp, rp, op) = (lp, rp, op);
            let mut out_index = unravel(start, &self.out_dims);
            let mut w = vec![0usize; self.window_sizes.len()];
            for _ in start..(start + per_task).min(count) {
                // SAFETY: the plan's offsets index elements inside each buffer (checked
                // against the shapes in `Plan::new`); output elements are disjoint per task.
                unsafe {
                    self.element::<A>(&out_index, &mut w, (lp.0, lt), (rp.0, rt), (op.0, ot))
                };
                advance(&mut out_index, &self.out_dims);
            }
        });
    }

    /// One output element.
    ///
    /// # Safety
    /// The buffers hold the thunk's shapes.
    unsafe fn element<A: Accumulator>(
        &self,
        out_index: &[usize],
        w: &mut [usize],
        (lp, lt): (*mut u8, PrimitiveType),
        (rp, rt): (*mut u8, PrimitiveType),
        (op, ot): (*mut u8, PrimitiveType),
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
        let mut acc = A::zero();
        for _ in 0..window_count {
            let mut lhs_pos = Some(lhs_base);
            let mut rhs_pos = rhs_base;
            for k in 0..n {
                let o = out_index[self.out_spatial[k]];
                lhs_pos = lhs_pos
                    .zip(self.lhs_offsets[k][o][w[k]])
                    .map(|(a, b)| a + b);
                rhs_pos += self.rhs_offsets[k][w[k]];
            }
            if let Some(l0) = lhs_pos {
                for iz in 0..self.input_feature_group_size {
                    // SAFETY: as the caller promises.
                    let (a, b) = unsafe {
                        (
                            A::load(lp, lt, l0 + iz * self.lhs_feature_stride),
                            A::load(rp, rt, rhs_pos + iz * self.rhs_in_stride),
                        )
                    };
                    acc = acc.mul_add(a, b);
                }
            }
            advance(w, &self.window_sizes);
        }
        let at: usize = out_index
            .iter()
            .zip(&self.out_strides)
            .map(|(i, s)| i * s)
            .sum();
        // SAFETY: `out_index` is an index of the result.
        unsafe { acc.store(op, ot, at) };
    }
}

/// Multiply-adds per parallel task: below this a task is not worth its overhead.
const MIN_TASK_WORK: usize = 1 << 15;

/// The row-major index of `linear` over `dims`.
fn unravel(mut linear: usize, dims: &[usize]) -> Vec<usize> {
    let mut index = vec![0usize; dims.len()];
    for d in (0..dims.len()).rev() {
        index[d] = linear % dims[d];
        linear /= dims[d];
    }
    index
}

/// Steps `index` to the next row-major index over `dims` (wrapping to zeros at the end).
fn advance(index: &mut [usize], dims: &[usize]) {
    for d in (0..dims.len()).rev() {
        index[d] += 1;
        if index[d] < dims[d] {
            return;
        }
        index[d] = 0;
    }
}
