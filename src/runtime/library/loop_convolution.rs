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
use crate::eval::{ConvolutionGeometry, EvalError};
use crate::ir::{ConvolutionDimensionNumbers, PrimitiveType, Window};
use crate::runtime::RuntimeError;
use crate::runtime::memory::BufferRef;
use crate::runtime::memory::Memory;

/// A `convolution` on buffers, computed by the direct loop (integer or complex).
#[derive(Clone, Debug)]
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
    let plan = Plan::new(t).map_err(|e| RuntimeError::new(format!("{}: {}", t.name, e.message)))?;
    match t.out.shape.element_type {
        PrimitiveType::C64 => plan.run::<num_complex::Complex<f32>>(t, memory),
        PrimitiveType::C128 => plan.run::<num_complex::Complex<f64>>(t, memory),
        _ => plan.run::<i64>(t, memory),
    }
    Ok(())
}

/// The convolution's geometry (the interpreter's, over physical strides) and the result's
/// physical strides.
struct Plan {
    geometry: ConvolutionGeometry,
    out_strides: Vec<usize>,
}

impl Plan {
    fn new(t: &LoopConvolutionThunk) -> Result<Plan, EvalError> {
        let geometry = ConvolutionGeometry::new(
            (&t.lhs.shape, &t.lhs.shape.physical_strides()),
            (&t.rhs.shape, &t.rhs.shape.physical_strides()),
            &t.out.shape,
            &t.window,
            &t.dimension_numbers,
            t.feature_group_count as i64,
            t.batch_group_count as i64,
        )?;
        Ok(Plan {
            geometry,
            out_strides: t.out.shape.physical_strides(),
        })
    }

    /// Computes every output element, in parallel runs of the row-major output order.
    fn run<A: Accumulator>(&self, t: &LoopConvolutionThunk, memory: &Memory) {
        let g = &self.geometry;
        let count: usize = g.out_dims.iter().product();
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
        let per_task = (MIN_TASK_WORK / g.work_per_element()).max(1);
        let starts: Vec<usize> = (0..count).step_by(per_task).collect();
        starts.par_iter().for_each(|&start| {
            let (lp, rp, op) = (lp, rp, op);
            let mut out_index = unravel(start, &g.out_dims);
            let mut w = vec![0usize; g.spatial_rank()];
            for _ in start..(start + per_task).min(count) {
                // SAFETY: the plan's offsets index elements inside each buffer (checked
                // against the shapes in `Plan::new`); output elements are disjoint per task.
                unsafe {
                    self.element::<A>(&out_index, &mut w, (lp.0, lt), (rp.0, rt), (op.0, ot))
                };
                advance(&mut out_index, &g.out_dims);
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
        let mut acc = A::zero();
        self.geometry.for_each_product(out_index, w, |l, r| {
            // SAFETY: as the caller promises.
            let (a, b) = unsafe { (A::load(lp, lt, l), A::load(rp, rt, r)) };
            acc = acc.mul_add(a, b);
        });
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
