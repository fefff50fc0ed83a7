//! The prefetch queue a row kernel hands its block routines: the next row of each of the
//! kernel's row-shaped inputs and outputs, to be asked of the caches a few lines at a time
//! while the routine computes.
//!
//! Why: a row kernel that calls block routines works each row in phases (its inputs read into
//! a scratch row, the routine on that row, the main loop), so during the routines memory has
//! nothing to do, and the hardware prefetchers never cross into the next row on their own:
//! one f32 row of 1024 elements is exactly one 4 KiB page, the boundary the prefetchers stop
//! at. The first version asked for the whole next row at once (192 lines for three
//! streams): the 16 line-fill buffers filled after a few and the core stalled there, which a
//! `perf` profile showed as a third of the kernel's time inside that one loop. Spread over
//! the routine's loop, the same prefetches overlap the arithmetic. (XLA:CPU's LLVM code keeps
//! one streaming loop instead, which the prefetchers follow.) Cranelift has no prefetch
//! instruction, hence the native side.

/// How many streams a queue holds; a kernel with more row-shaped buffers names the first
/// ones (the prefetchers still follow the others' demand loads within each page).
pub const PREFETCH_STREAMS: usize = 4;

/// Byte ranges still to prefetch, filled by the kernel before each row and drained by the
/// block routines it calls for that row. Entry `i` is `[next[i], end[i])`; an entry with
/// `next >= end` (zeroed, or drained) is done. `#[repr(C)]`: generated code writes it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct PrefetchQueue {
    /// `[next, end)` addresses of each stream's remaining bytes.
    pub ranges: [[u64; 2]; PREFETCH_STREAMS],
}

/// The queue's size in bytes, for the kernel's stack slot.
pub const PREFETCH_QUEUE_BYTES: usize = std::mem::size_of::<PrefetchQueue>();

/// Bytes per prefetch: one cache line.
const LINE: u64 = 64;

/// One routine call's share of a queue: `lines` lines, `per_step` in each step of the
/// routine's loop.
pub(crate) struct Prefetcher {
    queue: *mut PrefetchQueue,
    left: u64,
    per_step: u64,
}

impl Prefetcher {
    /// A share of `lines` lines of `queue` (null: none) for a loop of `steps` steps.
    pub(crate) fn new(queue: *mut PrefetchQueue, lines: u64, steps: usize) -> Prefetcher {
        let left = if queue.is_null() { 0 } else { lines };
        Prefetcher {
            queue,
            left,
            per_step: left.div_ceil(steps.max(1) as u64),
        }
    }

    /// Issues the next step's prefetches (at most the share left).
    #[inline(always)]
    pub(crate) fn step(&mut self) {
        if self.left == 0 {
            return;
        }
        let mut todo = self.per_step.min(self.left);
        self.left -= todo;
        // SAFETY: non-null (`left > 0`), and the caller of the routine passes a valid queue.
        let q = unsafe { &mut *self.queue };
        for r in q.ranges.iter_mut() {
            while todo > 0 && r[0] < r[1] {
                prefetch(r[0] as *const u8);
                // On to the next line's start (a range need not start on a line).
                r[0] = (r[0] & !(LINE - 1)) + LINE;
                todo -= 1;
            }
        }
        if todo > 0 {
            // The queue ran dry before the share did: nothing more to do this call.
            self.left = 0;
        }
    }
}

/// One prefetch hint into all cache levels (T0).
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is a hint; it never faults or dereferences the pointer.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
