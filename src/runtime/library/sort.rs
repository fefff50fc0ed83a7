//! `sort` as a native routine: the operands are copied into the result buffers (relaid out
//! if their layouts differ), then every 1-D slice along the sort dimension is sorted in
//! place: a permutation is computed with a stable bottom-up merge sort whose "less than" is
//! the comparator compiled to native code (`codegen::scalar_function`), called with the 2N
//! scalar pointers `(a0, b0, a1, b1, ...)`, and the permutation is applied to every result
//! buffer. Slices are independent, so large sorts spread them over the rayon pool.
//!
//! The sort is always stable, also for `is_stable=false`: any order of equal elements is
//! valid then, and the reference interpreter picks the stable one too (`eval::sort`), so
//! both backends agree element for element. The merge sort is the interpreter's: it never
//! assumes the comparator is a consistent order, so an inconsistent one gives some
//! permutation, never a panic (Rust's `sort_by` may panic on such comparators).
//! XLA: `xla/backends/cpu/runtime/sort_thunk.cc` (sorts in place on the results, calls the
//! compiled `less_than` with `void**` of 2N pointers).

use std::convert::Infallible;

use rayon::prelude::*;

use super::{SendPtr, for_each_index, offset};
use crate::codegen::ScalarFn;
use crate::codegen::denormals::with_flushed_denormals;
use crate::eval::merge_sort;
use crate::runtime::RuntimeError;
use crate::runtime::memory::{BufferRef, ParallelCopy};
use crate::runtime::memory::{Memory, parallel_copy};

/// Sorts with fewer elements than this run on the calling thread.
const PARALLEL_ELEMENTS: usize = 1 << 14;

/// A `sort` on buffers.
#[derive(Clone, Debug)]
pub struct SortThunk {
    /// The sort instruction.
    pub name: String,
    /// The sorted dimension.
    pub dimension: usize,
    /// `is_stable=true` in the HLO (the routine is stable either way).
    pub is_stable: bool,
    /// The compiled comparator `(a0, b0, a1, b1, ...) -> pred`.
    pub comparator: ScalarFn,
    /// The comparator computation's name.
    pub comparator_name: String,
    /// Operands, in operand order.
    pub operands: Vec<BufferRef>,
    /// Results, one per operand (the sort happens in these buffers).
    pub results: Vec<BufferRef>,
}

/// Runs a sort.
pub fn run(t: &SortThunk, memory: &Memory) -> Result<(), RuntimeError> {
    let fail = |m: &str| RuntimeError::new(format!("{}: {m}", t.name));
    let Some(first) = t.results.first() else {
        return Err(fail("sort has no operands"));
    };
    if t.operands.len() != t.results.len()
        || t.results.iter().any(|r| r.shape.dims != first.shape.dims)
    {
        return Err(fail("sort operands and results must have equal dimensions"));
    }
    let dims: Vec<usize> = first
        .shape
        .dims
        .iter()
        .map(|&d| d.max(0) as usize)
        .collect();
    if t.dimension >= dims.len() {
        return Err(fail("the sort dimension is out of range"));
    }
    parallel_copy(&ParallelCopy::new(&t.operands, &t.results), memory);
    let len = dims[t.dimension];
    if len <= 1 {
        return Ok(());
    }
    let strides: Vec<Vec<usize>> = t
        .results
        .iter()
        .map(|r| r.shape.physical_strides())
        .collect();
    let sizes: Vec<usize> = t
        .results
        .iter()
        .map(|r| r.shape.element_type.byte_size())
        .collect();
    let bases: Vec<SendPtr> = t
        .results
        .iter()
        .map(|r| SendPtr(memory.ptr(r.slice)))
        .collect();
    // The element offset of each slice's first element, per result.
    let mut starts: Vec<Vec<usize>> = Vec::new();
    for_each_index(&dims, Some(t.dimension), &mut |index| {
        starts.push(strides.iter().map(|s| offset(index, s)).collect());
    });
    let slice = SliceSort {
        comparator: t.comparator,
        len,
        steps: strides.iter().map(|s| s[t.dimension]).collect(),
        sizes,
        bases,
    };
    let total = starts.len() * len;
    if total >= PARALLEL_ELEMENTS && starts.len() > 1 {
        starts
            .par_iter()
            .for_each(|s| with_flushed_denormals(|| slice.sort(s)));
    } else {
        with_flushed_denormals(|| starts.iter().for_each(|s| slice.sort(s)));
    }
    Ok(())
}

/// Everything needed to sort one slice, shared by all slices of a sort.
struct SliceSort {
    comparator: ScalarFn,
    len: usize,
    /// Element stride along the sort dimension, per result.
    steps: Vec<usize>,
    /// Element byte sizes, per result.
    sizes: Vec<usize>,
    bases: Vec<SendPtr>,
}

impl SliceSort {
    /// The address of element `j` of the slice starting at `start` in result `i`.
    fn at(&self, i: usize, start: &[usize], j: usize) -> *mut u8 {
        let e = start[i] + j * self.steps[i];
        // SAFETY: `e` indexes an element of result `i` (the slice lies inside its dims).
        unsafe { self.bases[i].0.add(e * self.sizes[i]) }
    }

    /// Sorts the slice whose first elements are at `start` (element offsets per result).
    fn sort(&self, start: &[usize]) {
        let n = self.bases.len();
        let mut params: Vec<*const u8> = vec![std::ptr::null(); 2 * n];
        let mut result = 0u8;
        let out: [*mut u8; 1] = [&mut result];
        let mut less = |x: usize, y: usize| -> Result<bool, Infallible> {
            for i in 0..n {
                params[2 * i] = self.at(i, start, x);
                params[2 * i + 1] = self.at(i, start, y);
            }
            // SAFETY: the comparator reads one scalar through each of the 2N pointers (each
            // an element of the matching result) and writes one byte through `out`.
            unsafe { (self.comparator)(params.as_ptr(), out.as_ptr()) };
            // SAFETY: `result` was just written through `out[0]`.
            Ok(result != 0)
        };
        let mut perm: Vec<usize> = (0..self.len).collect();
        let Ok(()) = merge_sort(&mut perm, &mut less);
        // Apply the permutation to every result through a temporary.
        for i in 0..n {
            let size = self.sizes[i];
            let mut tmp = vec![0u8; self.len * size];
            for (j, &src) in perm.iter().enumerate() {
                // SAFETY: both are elements of this slice; `tmp` holds `len` elements.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        self.at(i, start, src),
                        tmp.as_mut_ptr().add(j * size),
                        size,
                    )
                };
            }
            for j in 0..self.len {
                // SAFETY: as above.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        tmp.as_ptr().add(j * size),
                        self.at(i, start, j),
                        size,
                    )
                };
            }
        }
    }
}
