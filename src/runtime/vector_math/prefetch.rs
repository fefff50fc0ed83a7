//! `xlac_prefetch`: asks the caches for a range of memory ahead of use. A row kernel that
//! calls the block routines spends most of each row computing on data already in L1, and
//! the hardware prefetchers only run ahead of *demand* loads, so memory would sit idle while
//! the routines run. Before each row's work the kernel names the next row of its inputs and
//! output here; the lines arrive while this row computes (XLA:CPU's LLVM code keeps a single
//! streaming loop instead, which the prefetchers follow). Cranelift has no prefetch
//! instruction, hence a call.

/// Prefetches `bytes` bytes from `ptr` into the caches, one hint per 64-byte line.
///
/// # Safety
/// None needed for correctness: a prefetch never faults and never changes memory, whatever
/// the address. The function is `unsafe extern "C"` only because kernels call it by address.
pub unsafe extern "C" fn xlac_prefetch(ptr: *const u8, bytes: u64) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let mut offset = 0u64;
        while offset < bytes {
            // SAFETY: prefetch is a hint; it does not dereference the pointer.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr.wrapping_add(offset as usize) as *const i8) };
            offset += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (ptr, bytes);
    }
}
