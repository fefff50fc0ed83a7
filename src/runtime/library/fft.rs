//! The `fft` op as a native routine: FFT and IFFT (complex to complex), RFFT (real to the
//! `n/2 + 1` non-redundant outputs of the last axis) and IRFFT (that half spectrum back to
//! real) over the innermost 1 to 3 dimensions, every other dimension a batch, for
//! f32/c64 and f64/c128, on the plan's buffers in any physical layout.
//!
//! The transforms are `rustfft`'s (O(n log n) for every length: mixed radix, Rader and
//! Bluestein, SIMD), planned once when the thunk is built, as XLA:CPU plans DUCC's. They
//! run in the element type's own precision (c64 in f32, as DUCC), one axis at a time on a
//! logical row-major work array: the last axis first for RFFT (real input, half output),
//! last for IRFFT (its input extended by conjugate symmetry, `X[n - j] = conj(X[j])`, and
//! the real part kept, which is what a c2r transform computes: the imaginary parts of
//! `X[0]` and `X[n/2]` drop out). Inverse transforms divide by the product of the
//! lengths, as XLA does. Rows of one axis are split across the thread pool.
//!
//! What it is not: a shape checker. A shape XLA's shape inference would refuse (lengths
//! that do not match the dimensions) gets no thunk here and stays on the reference path,
//! whose error names it. The interpreter keeps its own plain DFT (`eval::fft`, in f64),
//! which the tests use as the oracle.
//! XLA: `xla/backends/cpu/runtime/fft_thunk.cc` (DUCC's `c2c`, `r2c`, `c2r`).

use std::fmt;
use std::sync::Arc;

use num_complex::Complex;
use rayon::prelude::*;
use rustfft::{Fft, FftDirection, FftNum, FftPlanner};

use super::{for_each_index, inputs_safe_from, offset};
use crate::ir::{ArrayShape, FftType, PrimitiveType};
use crate::runtime::RuntimeError;
use crate::runtime::memory::BufferRef;
use crate::runtime::memory::Memory;

/// An `fft` on buffers.
#[derive(Clone, Debug)]
pub struct FftThunk {
    /// The fft instruction.
    pub name: String,
    /// Direction and real/complex.
    pub fft_type: FftType,
    /// The transform length of each of the innermost dimensions.
    pub lengths: Vec<usize>,
    /// The operand.
    pub operand: BufferRef,
    /// The result.
    pub result: BufferRef,
    /// One planned transform per transformed dimension.
    plans: Plans,
}

/// The planned transforms, in the precision of the element type (shared by clones:
/// rustfft's plans keep no state between calls).
#[derive(Clone)]
enum Plans {
    F32(Vec<Arc<dyn Fft<f32>>>),
    F64(Vec<Arc<dyn Fft<f64>>>),
}

impl fmt::Debug for Plans {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Plans::F32(p) => write!(f, "F32({} plans)", p.len()),
            Plans::F64(p) => write!(f, "F64({} plans)", p.len()),
        }
    }
}

impl FftThunk {
    /// The thunk for `fft(operand)` into `result`, or `None` when the types or dimensions
    /// are not those shape inference gives `fft_type` and `fft_length`.
    pub fn new(
        name: &str,
        fft_type: FftType,
        fft_length: &[i64],
        operand: &BufferRef,
        result: &BufferRef,
    ) -> Option<FftThunk> {
        use PrimitiveType::*;
        let (a, r) = (operand.shape.element_type, result.shape.element_type);
        let single = match (fft_type, a, r) {
            (FftType::Fft | FftType::Ifft, C64, C64) | (FftType::Rfft, F32, C64) => true,
            (FftType::Irfft, C64, F32) => true,
            (FftType::Fft | FftType::Ifft, C128, C128) | (FftType::Rfft, F64, C128) => false,
            (FftType::Irfft, C128, F64) => false,
            _ => return None,
        };
        let k = fft_length.len();
        let (ind, outd) = (&operand.shape.dims, &result.shape.dims);
        let rank = ind.len();
        if k == 0 || k > 3 || k > rank || outd.len() != rank || fft_length.iter().any(|&n| n < 1) {
            return None;
        }
        let lengths: Vec<usize> = fft_length.iter().map(|&n| n as usize).collect();
        let n_last = fft_length[k - 1];
        let half = n_last / 2 + 1;
        let batch = rank - k;
        let outer_ok = ind[batch..rank - 1] == fft_length[..k - 1]
            && outd[batch..rank - 1] == fft_length[..k - 1]
            && ind[..batch] == outd[..batch];
        let last_ok = match fft_type {
            FftType::Fft | FftType::Ifft => ind[rank - 1] == n_last && outd[rank - 1] == n_last,
            FftType::Rfft => ind[rank - 1] == n_last && outd[rank - 1] == half,
            FftType::Irfft => ind[rank - 1] == half && outd[rank - 1] == n_last,
        };
        if !outer_ok || !last_ok {
            return None;
        }
        let direction = match fft_type {
            FftType::Fft | FftType::Rfft => FftDirection::Forward,
            FftType::Ifft | FftType::Irfft => FftDirection::Inverse,
        };
        let plans = if single {
            Plans::F32(plan(&lengths, direction))
        } else {
            Plans::F64(plan(&lengths, direction))
        };
        Some(FftThunk {
            name: name.to_string(),
            fft_type,
            lengths,
            operand: operand.clone(),
            result: result.clone(),
            plans,
        })
    }

    /// What the thunk line says after "native": `rustfft RFFT 4x6 of f32`.
    pub fn describe(&self) -> String {
        let lengths: Vec<String> = self.lengths.iter().map(|n| n.to_string()).collect();
        format!(
            "rustfft {} {} of {}",
            self.fft_type,
            lengths.join("x"),
            self.operand.shape.element_type
        )
    }
}

fn plan<T: FftNum>(lengths: &[usize], direction: FftDirection) -> Vec<Arc<dyn Fft<T>>> {
    let mut planner = FftPlanner::<T>::new();
    lengths
        .iter()
        .map(|&n| planner.plan_fft(n, direction))
        .collect()
}

/// Runs an fft thunk.
pub fn run(t: &FftThunk, memory: &Memory) -> Result<(), RuntimeError> {
    match &t.plans {
        Plans::F32(p) => transform(t, p, memory),
        Plans::F64(p) => transform(t, p, memory),
    }
    Ok(())
}

/// Moves one precision's elements between buffers and complex work values.
trait Precision: FftNum {
    /// The real element type (`f32`, `f64`).
    const REAL: PrimitiveType;

    /// # Safety
    /// `base` holds an element of type `REAL` (or its complex type) at element offset `e`.
    unsafe fn load(base: *const u8, complex: bool, e: usize) -> Complex<Self> {
        // SAFETY: as the caller promises.
        unsafe {
            if complex {
                base.cast::<Complex<Self>>().add(e).read_unaligned()
            } else {
                Complex::new(base.cast::<Self>().add(e).read_unaligned(), Self::zero())
            }
        }
    }

    /// # Safety
    /// As `load`, writable.
    unsafe fn store(base: *mut u8, complex: bool, e: usize, v: Complex<Self>) {
        // SAFETY: as the caller promises.
        unsafe {
            if complex {
                base.cast::<Complex<Self>>().add(e).write_unaligned(v)
            } else {
                base.cast::<Self>().add(e).write_unaligned(v.re)
            }
        }
    }

    /// `x` rounded to this precision.
    fn of_f64(x: f64) -> Self;
}

impl Precision for f32 {
    const REAL: PrimitiveType = PrimitiveType::F32;
    fn of_f64(x: f64) -> f32 {
        x as f32
    }
}

impl Precision for f64 {
    const REAL: PrimitiveType = PrimitiveType::F64;
    fn of_f64(x: f64) -> f64 {
        x
    }
}

fn dims_of(s: &ArrayShape) -> Vec<usize> {
    s.dims.iter().map(|&d| d.max(0) as usize).collect()
}

/// The element offset in `s`'s buffer of every logical index, in row-major order; `None`
/// when the layout is row-major already (the offset is the index).
fn physical_offsets(s: &ArrayShape) -> Option<Vec<usize>> {
    let dims = dims_of(s);
    let row_major = (0..dims.len()).rev().collect::<Vec<_>>();
    if s.layout.minor_to_major == row_major {
        return None;
    }
    let strides = s.physical_strides();
    let mut v = Vec::with_capacity(dims.iter().product());
    for_each_index(&dims, None, &mut |i| v.push(offset(i, &strides)));
    Some(v)
}

fn transform<T: Precision>(t: &FftThunk, plans: &[Arc<dyn Fft<T>>], memory: &Memory) {
    let in_dims = dims_of(&t.operand.shape);
    let out_dims = dims_of(&t.result.shape);
    let out_count: usize = out_dims.iter().product();
    if out_count == 0 {
        return;
    }
    let inputs = [&t.operand];
    // Kept alive until the operand has been read.
    let (ptrs, _staged) = inputs_safe_from(&inputs, std::slice::from_ref(&t.result), memory);
    let complex_in = t.operand.shape.element_type != T::REAL;
    let complex_out = t.result.shape.element_type != T::REAL;
    let mut data: Vec<Complex<T>> = match physical_offsets(&t.operand.shape) {
        // SAFETY: offsets (or indices) of the operand's elements, of the operand's type.
        None => (0..in_dims.iter().product())
            .map(|e| unsafe { T::load(ptrs[0], complex_in, e) })
            .collect(),
        Some(offsets) => offsets
            .into_iter()
            .map(|e| unsafe { T::load(ptrs[0], complex_in, e) })
            .collect(),
    };
    let rank = in_dims.len();
    let k = t.lengths.len();
    let mut dims = in_dims;
    match t.fft_type {
        FftType::Fft | FftType::Ifft => {
            for (i, p) in plans.iter().enumerate() {
                along(&mut data, &dims, rank - k + i, p.as_ref());
            }
        }
        FftType::Rfft => {
            // The full transform of the real rows, then only their first n/2 + 1 outputs.
            along(&mut data, &dims, rank - 1, plans[k - 1].as_ref());
            let n = dims[rank - 1];
            let half = n / 2 + 1;
            data = data
                .chunks_exact(n)
                .flat_map(|row| row[..half].iter().copied())
                .collect();
            dims[rank - 1] = half;
            for (i, p) in plans[..k - 1].iter().enumerate() {
                along(&mut data, &dims, rank - k + i, p.as_ref());
            }
        }
        FftType::Irfft => {
            for (i, p) in plans[..k - 1].iter().enumerate() {
                along(&mut data, &dims, rank - k + i, p.as_ref());
            }
            let half = dims[rank - 1];
            let n = t.lengths[k - 1];
            let mut full = Vec::with_capacity(data.len() / half * n);
            for row in data.chunks_exact(half) {
                full.extend_from_slice(row);
                full.extend((half..n).map(|j| row[n - j].conj()));
            }
            data = full;
            dims[rank - 1] = n;
            along(&mut data, &dims, rank - 1, plans[k - 1].as_ref());
        }
    }
    if matches!(t.fft_type, FftType::Ifft | FftType::Irfft) {
        let total: usize = t.lengths.iter().product();
        let scale = T::of_f64(1.0 / total as f64);
        data.par_iter_mut().for_each(|c| *c = *c * scale);
    }
    debug_assert_eq!(dims, out_dims);
    let dst = memory.ptr(t.result.slice);
    match physical_offsets(&t.result.shape) {
        // SAFETY: offsets (or indices) of the result's elements, of the result's type.
        None => {
            for (e, &v) in data.iter().enumerate() {
                unsafe { T::store(dst, complex_out, e, v) };
            }
        }
        Some(offsets) => {
            for (e, &v) in offsets.into_iter().zip(&data) {
                unsafe { T::store(dst, complex_out, e, v) };
            }
        }
    }
}

/// Elements of work per parallel task: below this a task is not worth its overhead.
const MIN_TASK_ELEMENTS: usize = 1 << 14;

/// Transforms every line of the row-major `data` (dimensions `dims`) along `axis` with
/// `fft`, whose length is `dims[axis]`, in place.
fn along<T: FftNum>(data: &mut [Complex<T>], dims: &[usize], axis: usize, fft: &dyn Fft<T>) {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    if data.is_empty() || n == 0 {
        return;
    }
    let scratch_len = fft.get_inplace_scratch_len();
    if inner == 1 {
        // Contiguous rows: rustfft transforms a run of them in one call.
        let rows = data.len() / n;
        let per_task = rows
            .div_ceil(rayon::current_num_threads())
            .max(MIN_TASK_ELEMENTS / n)
            .max(1);
        data.par_chunks_mut(per_task * n).for_each(|chunk| {
            let mut scratch = vec![Complex::new(T::zero(), T::zero()); scratch_len];
            fft.process_with_scratch(chunk, &mut scratch);
        });
        return;
    }
    // A block of `n × inner` per outer index: transpose it so that its lines are
    // contiguous, transform them all, transpose back.
    let block = n * inner;
    let per_task = (MIN_TASK_ELEMENTS / block).max(1);
    data.par_chunks_mut(per_task * block).for_each(|chunk| {
        let mut scratch = vec![Complex::new(T::zero(), T::zero()); scratch_len];
        let mut lines = vec![Complex::new(T::zero(), T::zero()); block];
        for b in chunk.chunks_exact_mut(block) {
            for j in 0..n {
                for i in 0..inner {
                    lines[i * n + j] = b[j * inner + i];
                }
            }
            fft.process_with_scratch(&mut lines, &mut scratch);
            for j in 0..n {
                for i in 0..inner {
                    b[j * inner + i] = lines[i * n + j];
                }
            }
        }
    });
}
