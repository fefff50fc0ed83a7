//! The addresses of one run: where each array lives ([`BufferRef`]), the base address of
//! every allocation ([`Memory`]) and the copies between buffers ([`ParallelCopy`]). The
//! low-level types every thunk kind and library routine reads, kept apart from the thunk
//! kinds and the executor so that those can use the routines without a circle.

use crate::ir::ArrayShape;
use crate::layout::Slice;

use super::buffers::copy_array;

/// An array in a buffer: where it lives and how it is laid out there.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferRef {
    /// The bytes.
    pub slice: Slice,
    /// Dimensions, element type and physical layout.
    pub shape: ArrayShape,
}

/// A list of copies that happen "at once": when some source overlaps some other copy's
/// destination (a loop body that swaps two state elements), all sources are staged through
/// a temporary first. Sources equal to their destination were dropped when it was built.
#[derive(Clone, Debug, Default)]
pub struct ParallelCopy {
    /// (source, destination) pairs.
    pub pairs: Vec<(BufferRef, BufferRef)>,
    /// Some source overlaps another pair's destination: stage through temporaries.
    pub staged: bool,
}

impl ParallelCopy {
    /// The copies needed to move `from` (leaf by leaf) into `to`, skipping leaves that the
    /// plan already put in the same place.
    pub fn new(from: &[BufferRef], to: &[BufferRef]) -> ParallelCopy {
        let pairs: Vec<(BufferRef, BufferRef)> = from
            .iter()
            .zip(to)
            .filter(|(s, d)| s.slice != d.slice || s.shape.layout != d.shape.layout)
            .map(|(s, d)| (s.clone(), d.clone()))
            .collect();
        let overlaps = |a: &Slice, b: &Slice| {
            a.allocation == b.allocation
                && a.offset < b.offset + b.size
                && b.offset < a.offset + a.size
        };
        let staged = pairs.iter().enumerate().any(|(i, (s, _))| {
            pairs
                .iter()
                .enumerate()
                .any(|(j, (_, d))| overlaps(&s.slice, &d.slice) && (i != j || s.slice != d.slice))
        });
        ParallelCopy { pairs, staged }
    }

    /// True when nothing needs copying.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

/// Base address of every allocation for one run.
pub struct Memory {
    /// By allocation index.
    pub bases: Vec<*mut u8>,
}

impl Memory {
    /// The address of a slice.
    pub fn ptr(&self, s: Slice) -> *mut u8 {
        // SAFETY: slices come from the plan, inside their allocation.
        unsafe { self.bases[s.allocation].add(s.offset) }
    }
}

/// Performs the copies of a [`ParallelCopy`], through temporaries when they overlap.
pub fn parallel_copy(copy: &ParallelCopy, memory: &Memory) {
    if !copy.staged {
        for (s, d) in &copy.pairs {
            // SAFETY: disjoint slices of the plan, sized for their shapes.
            unsafe { copy_array(memory.ptr(s.slice), &s.shape, memory.ptr(d.slice), &d.shape) };
        }
        return;
    }
    let staged: Vec<Vec<u8>> = copy
        .pairs
        .iter()
        .map(|(s, _)| {
            let mut v = vec![0u8; s.slice.size];
            // SAFETY: the source slice holds `size` bytes.
            unsafe { std::ptr::copy(memory.ptr(s.slice), v.as_mut_ptr(), s.slice.size) };
            v
        })
        .collect();
    for ((s, d), bytes) in copy.pairs.iter().zip(&staged) {
        // SAFETY: the temporary holds the source's bytes; the destination its shape.
        unsafe { copy_array(bytes.as_ptr(), &s.shape, memory.ptr(d.slice), &d.shape) };
    }
}

/// The machine's cores, as the standard library counts them (affinity and cgroup quotas),
/// whatever the size of the kernels' pool.
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
