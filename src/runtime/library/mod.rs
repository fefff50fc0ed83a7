//! Native library routines: the ops that are not kernels but run as hand-written loops
//! over the buffers, calling compiled scalar functions (`codegen::scalar_function`) where
//! the op has a computation: [`sort`], [`scatter`], [`select_and_scatter`], the LAPACK
//! custom calls in [`lapack`], XLA:CPU's `TopK` custom call in [`top_k`], dots with
//! integer or complex results in [`loop_dot`], convolutions with integer or complex
//! results in [`loop_convolution`], `fft` in [`fft`] (rustfft), elementwise ops over complex
//! numbers in [`complex_elementwise`], and the `rng` op in [`rng`]
//! (XLA:CPU's Philox expansion, run as a [`Thunk::Rng`](super::thunk::Thunk::Rng) because its
//! counters live in the run). No routine reads operands into literals or
//! calls the interpreter; each one reads and writes the plan's buffers in their physical
//! layouts.
//! XLA: `xla/backends/cpu/runtime/sort_thunk.cc`, the scatter and select-and-scatter
//! emitters of `xla/service/cpu/ir_emitter.cc`, and jaxlib's LAPACK FFI handlers
//! (`jaxlib/cpu/lapack_kernels.cc`).

pub mod complex_elementwise;
pub mod convolution;
pub mod dot;
pub mod dot_few_rows;
pub mod fft;
pub mod lapack;
pub mod loop_convolution;
pub mod loop_dot;
pub mod rng;
pub mod scatter;
pub mod select_and_scatter;
pub mod sort;
pub mod top_k;
pub mod transpose_copy;

use std::fmt::Write as _;

use super::RuntimeError;
use super::buffers::AlignedBuffer;
use super::memory::BufferRef;
use super::memory::Memory;
use crate::layout::Slice;

/// One library call.
#[derive(Clone, Debug)]
pub enum LibraryThunk {
    /// `sort` with a compiled comparator.
    Sort(sort::SortThunk),
    /// `scatter` with a compiled combiner.
    Scatter(scatter::ScatterThunk),
    /// `select-and-scatter` with compiled select and scatter.
    SelectAndScatter(select_and_scatter::SelectAndScatterThunk),
    /// A LAPACK custom call (`?potrf`, `?trsm`).
    Lapack(lapack::LapackThunk),
    /// XLA:CPU's `TopK` custom call (or the `topk` op).
    TopK(top_k::TopKThunk),
    /// A `dot` with an integer or complex result.
    LoopDot(loop_dot::LoopDotThunk),
    /// `fft` (rustfft).
    Fft(fft::FftThunk),
    /// A `convolution` with an integer or complex result.
    LoopConvolution(loop_convolution::LoopConvolutionThunk),
    /// An elementwise op that reads or writes complex numbers.
    ComplexElementwise(complex_elementwise::ComplexElementwiseThunk),
}

impl LibraryThunk {
    /// Runs the routine on the buffers of `memory`.
    pub fn run(&self, memory: &Memory) -> Result<(), RuntimeError> {
        match self {
            LibraryThunk::Sort(t) => sort::run(t, memory),
            LibraryThunk::Scatter(t) => scatter::run(t, memory),
            LibraryThunk::SelectAndScatter(t) => select_and_scatter::run(t, memory),
            LibraryThunk::Lapack(t) => lapack::run(t, memory),
            LibraryThunk::TopK(t) => top_k::run(t, memory),
            LibraryThunk::LoopDot(t) => loop_dot::run(t, memory),
            LibraryThunk::Fft(t) => fft::run(t, memory),
            LibraryThunk::LoopConvolution(t) => loop_convolution::run(t, memory),
            LibraryThunk::ComplexElementwise(t) => complex_elementwise::run(t, memory),
        }
    }

    /// The instruction the routine computes.
    pub fn name(&self) -> &str {
        match self {
            LibraryThunk::Sort(t) => &t.name,
            LibraryThunk::Scatter(t) => &t.name,
            LibraryThunk::SelectAndScatter(t) => &t.name,
            LibraryThunk::Lapack(t) => &t.name,
            LibraryThunk::TopK(t) => &t.name,
            LibraryThunk::LoopDot(t) => &t.name,
            LibraryThunk::Fft(t) => &t.name,
            LibraryThunk::LoopConvolution(t) => &t.name,
            LibraryThunk::ComplexElementwise(t) => &t.name,
        }
    }

    /// The `thunk-sequence.txt` line (without indentation).
    pub fn line(&self) -> String {
        let mut s = String::new();
        let _ = match self {
            LibraryThunk::Sort(t) => write!(
                s,
                "library sort {} (native, comparator {} compiled, {} operand{}{})",
                t.name,
                t.comparator_name,
                t.operands.len(),
                if t.operands.len() == 1 { "" } else { "s" },
                if t.is_stable { ", stable" } else { "" }
            ),
            LibraryThunk::Scatter(t) => write!(
                s,
                "library scatter {} (native, combiner {} compiled{})",
                t.name,
                t.combiner_name,
                if t.in_place { ", in place" } else { "" }
            ),
            LibraryThunk::SelectAndScatter(t) => write!(
                s,
                "library select-and-scatter {} (native, select {} and scatter {} compiled)",
                t.name, t.select_name, t.scatter_name
            ),
            LibraryThunk::Lapack(t) => write!(
                s,
                "library custom-call {} (native {})",
                t.name,
                t.describe()
            ),
            LibraryThunk::TopK(t) => write!(
                s,
                "library {} {} (native TopK, {} {} of {})",
                t.opcode,
                t.name,
                if t.largest { "largest" } else { "smallest" },
                t.values.shape.dims.last().copied().unwrap_or(0),
                t.operand.shape.element_type
            ),
            LibraryThunk::LoopDot(t) => write!(
                s,
                "library dot {} (native loop, {} x {} -> {})",
                t.name,
                t.lhs.shape.element_type,
                t.rhs.shape.element_type,
                t.out.shape.element_type
            ),
            LibraryThunk::Fft(t) => {
                write!(s, "library fft {} (native {})", t.name, t.describe())
            }
            LibraryThunk::LoopConvolution(t) => write!(
                s,
                "library convolution {} (native loop, {} x {} -> {})",
                t.name,
                t.lhs.shape.element_type,
                t.rhs.shape.element_type,
                t.out.shape.element_type
            ),
            LibraryThunk::ComplexElementwise(t) => write!(
                s,
                "library {} {} (native complex elementwise, {} -> {})",
                t.opcode,
                t.name,
                t.operands
                    .iter()
                    .map(|o| o.shape.element_type.to_string())
                    .collect::<Vec<_>>()
                    .join(" x "),
                t.out.shape.element_type
            ),
        };
        s
    }
}

/// Visits every index of `dims` (row-major), with dimension `skip` (if any) held at 0.
pub fn for_each_index(dims: &[usize], skip: Option<usize>, f: &mut dyn FnMut(&[usize])) {
    if dims
        .iter()
        .enumerate()
        .any(|(d, &n)| n == 0 && Some(d) != skip)
    {
        return;
    }
    let mut index = vec![0usize; dims.len()];
    loop {
        f(&index);
        let mut d = dims.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            if Some(d) == skip {
                continue;
            }
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// `sum(index[d] * strides[d])`.
pub fn offset(index: &[usize], strides: &[usize]) -> usize {
    index.iter().zip(strides).map(|(i, s)| i * s).sum()
}

/// The addresses to read `inputs` from while a routine writes `outputs`: each input's own
/// buffer, or, when it overlaps some output (a plan that reuses an input's bytes for the
/// result), a private copy made before anything is written. The copies live in the
/// returned vector.
pub fn inputs_safe_from(
    inputs: &[&BufferRef],
    outputs: &[BufferRef],
    memory: &Memory,
) -> (Vec<*mut u8>, Vec<AlignedBuffer>) {
    let overlaps = |a: &Slice, b: &Slice| {
        a.allocation == b.allocation && a.offset < b.offset + b.size && b.offset < a.offset + a.size
    };
    let mut staged = Vec::new();
    let mut ptrs = Vec::with_capacity(inputs.len());
    for i in inputs {
        let p = memory.ptr(i.slice);
        if outputs.iter().any(|o| overlaps(&i.slice, &o.slice)) {
            let copy = AlignedBuffer::new(i.slice.size);
            // SAFETY: the slice holds `size` bytes; the copy is fresh memory.
            unsafe { std::ptr::copy_nonoverlapping(p, copy.ptr(), i.slice.size) };
            ptrs.push(copy.ptr());
            staged.push(copy);
        } else {
            ptrs.push(p);
        }
    }
    (ptrs, staged)
}

/// A raw pointer that may cross threads: routines hand disjoint parts of a buffer to
/// different tasks.
#[derive(Clone, Copy)]
pub struct SendPtr(pub *mut u8);
// SAFETY: only used for disjoint regions of plan buffers, which outlive the run.
unsafe impl Send for SendPtr {}
// SAFETY: as above.
unsafe impl Sync for SendPtr {}

#[cfg(test)]
mod tests;
