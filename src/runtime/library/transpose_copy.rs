//! The copy of a column-major `m x n` block into a destination with other strides: how a
//! flipped GEMM (see `dot.rs`'s `flip_destination`) puts its column-major temporary into
//! the row-major output. GPT-2's tied logits (`x @ wte.T`, 128 x 50257) copy 25.7 MB this
//! way on every run; element by element the copy took a tenth of the dot's time (5.5 of
//! 55 ms, one strided scalar store per element), so 4-byte elements into rows of
//! contiguous columns go through 8 x 8 in-register transposes (AVX2: eight column loads,
//! three rounds of shuffles, eight row stores). A pure copy: every path moves the same
//! bits.
//! XLA: the 8 x 8 AVX kernels of `xla/pjrt/transpose_kernels.h` (its `TransposePlan`).

use super::SendPtr;

/// [`transpose_into`] cut into column blocks run on the kernels' pool: the copy is
/// memory-bound and as large as the output, so one thread alone left the other core idle
/// for it. No bit depends on the cut.
///
/// # Safety
/// As [`transpose_into`]; the column blocks write disjoint parts of `dst`.
pub(crate) unsafe fn transpose_into_parallel<T: Copy>(
    src: *const T,
    (m, n): (usize, usize),
    dst: *mut T,
    (rs, cs): (isize, isize),
) {
    use rayon::prelude::*;
    const MIN_BLOCK_ELEMENTS: usize = 1 << 16;
    let blocks = (m * n / MIN_BLOCK_ELEMENTS).clamp(1, 4 * crate::runtime::memory::cores());
    if blocks == 1 {
        // SAFETY: the caller's guarantees.
        return unsafe { transpose_into(src, (m, n), dst, (rs, cs)) };
    }
    let columns = n.div_ceil(blocks).div_ceil(32) * 32;
    let (dst, src) = (SendPtr(dst as *mut u8), SendPtr(src as *mut u8));
    (0..n.div_ceil(columns)).into_par_iter().for_each(|c| {
        // Whole `SendPtr`s, so the closure captures them and not their raw pointers.
        let (dst, src): (SendPtr, SendPtr) = (dst, src);
        let (dst, src) = (dst.0 as *mut T, src.0 as *const T);
        let j0 = c * columns;
        let width = columns.min(n - j0);
        // SAFETY: columns `j0..j0 + width` of the source (column-major, `m` per column)
        // and of the destination; blocks are disjoint.
        unsafe {
            transpose_into(
                src.add(j0 * m),
                (m, width),
                dst.offset(j0 as isize * cs),
                (rs, cs),
            )
        };
    });
}

/// Copies a column-major `m x n` block into `dst` with row and column strides `(rs, cs)`:
/// 4-byte elements into contiguous columns (`cs == 1`) in 8 x 8 register transposes where
/// the machine has AVX2, anything else in square tiles so both sides stay in cache.
///
/// # Safety
/// `src` must hold `m * n` elements; `dst` must be valid at every `i * rs + j * cs`.
pub(crate) unsafe fn transpose_into<T: Copy>(
    src: *const T,
    (m, n): (usize, usize),
    dst: *mut T,
    (rs, cs): (isize, isize),
) {
    #[cfg(target_arch = "x86_64")]
    if std::mem::size_of::<T>() == 4 && cs == 1 && has_avx2() {
        // SAFETY: the caller's guarantees; 4-byte elements are moved as `f32` bit patterns
        // (loads and stores only, no arithmetic), and AVX2 is present.
        return unsafe { avx2::transpose_x32(src as *const f32, (m, n), dst as *mut f32, rs) };
    }
    // SAFETY: the caller's guarantees.
    unsafe { transpose_tiles(src, (m, n), dst, (rs, cs)) }
}

/// The portable copy, in 32 x 32 tiles.
///
/// # Safety
/// As [`transpose_into`].
unsafe fn transpose_tiles<T: Copy>(
    src: *const T,
    (m, n): (usize, usize),
    dst: *mut T,
    (rs, cs): (isize, isize),
) {
    const TILE: usize = 32;
    for j0 in (0..n).step_by(TILE) {
        for i0 in (0..m).step_by(TILE) {
            for i in i0..(i0 + TILE).min(m) {
                for j in j0..(j0 + TILE).min(n) {
                    // SAFETY: `i < m` and `j < n`, as the caller guarantees.
                    unsafe {
                        *dst.offset(i as isize * rs + j as isize * cs) = *src.add(i + j * m);
                    }
                }
            }
        }
    }
}

/// Whether the machine has AVX2 (checked once).
#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| std::arch::is_x86_feature_detected!("avx2"))
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// [`super::transpose_into`] for 4-byte elements into rows of contiguous columns: the
    /// whole 8 x 8 blocks in registers, column strip by column strip (each strip writes
    /// 32 bytes of each of the `m` destination rows, so the next strip finishes their
    /// cache lines while they are still in L1), the ragged edges element by element.
    ///
    /// # Safety
    /// As [`super::transpose_into`] with `cs == 1`; the machine must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn transpose_x32(
        src: *const f32,
        (m, n): (usize, usize),
        dst: *mut f32,
        rs: isize,
    ) {
        let (m8, n8) = (m / 8 * 8, n / 8 * 8);
        // SAFETY (all accesses): indices stay below `m` and `n` as the caller guarantees.
        unsafe {
            for j0 in (0..n8).step_by(8) {
                for i0 in (0..m8).step_by(8) {
                    let column = |c: usize| _mm256_loadu_ps(src.add(i0 + (j0 + c) * m));
                    let rows = transpose8([
                        column(0),
                        column(1),
                        column(2),
                        column(3),
                        column(4),
                        column(5),
                        column(6),
                        column(7),
                    ]);
                    for (r, row) in rows.into_iter().enumerate() {
                        _mm256_storeu_ps(dst.offset((i0 + r) as isize * rs + j0 as isize), row);
                    }
                }
                for i in m8..m {
                    for j in j0..j0 + 8 {
                        *dst.offset(i as isize * rs + j as isize) = *src.add(i + j * m);
                    }
                }
            }
            for j in n8..n {
                for i in 0..m {
                    *dst.offset(i as isize * rs + j as isize) = *src.add(i + j * m);
                }
            }
        }
    }

    /// Eight vectors of eight lanes transposed: lane `c` of result `r` is lane `r` of
    /// input `c`.
    #[target_feature(enable = "avx2")]
    fn transpose8(v: [__m256; 8]) -> [__m256; 8] {
        // Pairs of inputs interleaved, then pairs of pairs, then the 128-bit halves.
        let t0 = _mm256_unpacklo_ps(v[0], v[1]);
        let t1 = _mm256_unpackhi_ps(v[0], v[1]);
        let t2 = _mm256_unpacklo_ps(v[2], v[3]);
        let t3 = _mm256_unpackhi_ps(v[2], v[3]);
        let t4 = _mm256_unpacklo_ps(v[4], v[5]);
        let t5 = _mm256_unpackhi_ps(v[4], v[5]);
        let t6 = _mm256_unpacklo_ps(v[6], v[7]);
        let t7 = _mm256_unpackhi_ps(v[6], v[7]);
        let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        [
            _mm256_permute2f128_ps::<0x20>(u0, u4),
            _mm256_permute2f128_ps::<0x20>(u1, u5),
            _mm256_permute2f128_ps::<0x20>(u2, u6),
            _mm256_permute2f128_ps::<0x20>(u3, u7),
            _mm256_permute2f128_ps::<0x31>(u0, u4),
            _mm256_permute2f128_ps::<0x31>(u1, u5),
            _mm256_permute2f128_ps::<0x31>(u2, u6),
            _mm256_permute2f128_ps::<0x31>(u3, u7),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element lands at `i * rs + j * cs` and the padding between rows is left as
    /// it was: ragged edges on both sides (m and n not multiples of 8), whole blocks only,
    /// a single row and column, padded destination rows, 4-byte elements whose bits are
    /// NaN payloads (moved, never computed), and 8-byte ones (the portable path).
    #[test]
    fn copies_every_element_of_column_major_blocks_into_rows() {
        fn check<T: Copy + PartialEq + std::fmt::Debug>(
            m: usize,
            n: usize,
            pad: usize,
            value: impl Fn(usize) -> T,
            fill: T,
        ) {
            let src: Vec<T> = (0..m * n).map(&value).collect();
            let rs = n + pad;
            let mut dst = vec![fill; m * rs];
            // SAFETY: `src` holds m * n elements and `dst` m rows of `rs`.
            unsafe {
                transpose_into_parallel(src.as_ptr(), (m, n), dst.as_mut_ptr(), (rs as isize, 1))
            };
            for i in 0..m {
                for j in 0..rs {
                    let want = if j < n { src[i + j * m] } else { fill };
                    assert_eq!(dst[i * rs + j], want, "{m}x{n} (+{pad}) at ({i}, {j})");
                }
            }
        }
        let nan_bits = |x: usize| f32::from_bits(0x7fc0_0000 | x as u32);
        for &(m, n, pad) in &[
            (13, 21, 0),
            (16, 24, 3),
            (8, 8, 0),
            (1, 9, 1),
            (9, 1, 0),
            (37, 530, 5),
        ] {
            check(m, n, pad, |x| x as u32, u32::MAX);
            check(m, n, pad, |x| x as f64 + 0.5, -1.0);
            let src: Vec<f32> = (0..m * n).map(nan_bits).collect();
            let mut dst = vec![0f32; m * (n + pad)];
            // SAFETY: as above.
            unsafe {
                transpose_into(
                    src.as_ptr(),
                    (m, n),
                    dst.as_mut_ptr(),
                    ((n + pad) as isize, 1),
                )
            };
            for i in 0..m {
                for j in 0..n {
                    assert_eq!(dst[i * (n + pad) + j].to_bits(), src[i + j * m].to_bits());
                }
            }
        }
        // Large enough to cut into column blocks over the pool.
        check(128, 2000, 7, |x| x as u32, 0);
    }
}
