//! f32 GEMMs with a few lhs rows (2 to 8: an RNN step's batch, a handful of tokens) and a
//! row-major rhs and output: `dst[m x n] = lhs[m x k] * rhs[k x n]`. The `gemm` crate
//! computes such a product as its transpose with a 6-column micro-kernel, so 8 rows take
//! a 6-column and a 2-column pass over the rhs, and packs the small operand every call;
//! here each block of 48 output columns keeps all its rows' accumulators in AVX-512
//! registers and reads the rhs rows once, straight from memory (an LSTM step's
//! `[8,512]x[512,2048]`: 173 us in the `gemm` crate, 147 us here, one core).
//!
//! Every output element is one FMA chain over `k` in order, whatever block or task
//! computes it, so results do not depend on how the columns are split over threads.
//! XLA: the matrix-vector emitters of `xla/service/cpu/tiled_dot_emitter.cc`, for a few
//! vectors at once.

/// The most lhs rows the kernel takes (its accumulators: 8 rows x 3 vectors).
pub const MAX_ROWS: usize = 8;

/// Whether the kernel runs `m x n x k` with these strides on this machine: 2 to
/// [`MAX_ROWS`] rows, unit column strides of the rhs and the output, and AVX-512.
pub fn applies(m: usize, n: usize, k: usize, dst_cs: isize, rhs_cs: isize) -> bool {
    (2..=MAX_ROWS).contains(&m) && n >= 16 && k > 0 && dst_cs == 1 && rhs_cs == 1 && has_avx512()
}

#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| std::arch::is_x86_feature_detected!("avx512f"))
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx512() -> bool {
    false
}

/// One product: the operands with their element strides (output and rhs columns are
/// contiguous).
#[derive(Clone, Copy)]
pub struct FewRows {
    /// Rows (2 to [`MAX_ROWS`]).
    pub m: usize,
    /// Contraction length.
    pub k: usize,
    /// Output (row-major: unit column stride).
    pub dst: *mut f32,
    /// Output row stride.
    pub dst_rs: isize,
    /// Lhs (any strides).
    pub lhs: *const f32,
    /// Lhs row stride.
    pub lhs_rs: isize,
    /// Lhs column stride.
    pub lhs_cs: isize,
    /// Rhs (row-major: unit column stride).
    pub rhs: *const f32,
    /// Rhs row stride.
    pub rhs_rs: isize,
}

// SAFETY: a product only reads its operands; the tasks it is shared by write disjoint
// columns of the output (`dot::Gemm::run_few_rows`).
unsafe impl Send for FewRows {}
// SAFETY: as above.
unsafe impl Sync for FewRows {}

impl FewRows {
    /// Computes output columns `columns` (all rows).
    ///
    /// # Safety
    /// [`applies`] held for the product; the pointers and strides describe valid
    /// matrices with at least `columns.end` columns.
    pub unsafe fn run(&self, columns: std::ops::Range<usize>) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX-512 was detected (`applies`); the rest is the caller's.
        unsafe {
            match self.m {
                2 => avx512::columns::<2>(self, columns),
                3 => avx512::columns::<3>(self, columns),
                4 => avx512::columns::<4>(self, columns),
                5 => avx512::columns::<5>(self, columns),
                6 => avx512::columns::<6>(self, columns),
                7 => avx512::columns::<7>(self, columns),
                8 => avx512::columns::<8>(self, columns),
                _ => unreachable!("few-rows GEMM of {} rows", self.m),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = columns;
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::FewRows;

    /// Rhs rows ahead of the one being read that are prefetched: the rows are a whole
    /// rhs row apart, farther than the hardware prefetchers follow.
    const PREFETCH_ROWS: isize = 8;

    /// Columns `columns` of an `M`-row product: 48-column blocks, then one of 32 and one
    /// of 16 columns as they fit, then a masked tail.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn columns<const M: usize>(p: &FewRows, columns: std::ops::Range<usize>) {
        let mut j = columns.start;
        // SAFETY (all blocks): the columns are inside the matrices (the caller's promise).
        unsafe {
            while j + 48 <= columns.end {
                block::<M, 3>(p, j, 0xffff);
                j += 48;
            }
            if j + 32 <= columns.end {
                block::<M, 2>(p, j, 0xffff);
                j += 32;
            }
            while j + 16 <= columns.end {
                block::<M, 1>(p, j, 0xffff);
                j += 16;
            }
            if j < columns.end {
                block::<M, 1>(p, j, (1u16 << (columns.end - j)) - 1);
            }
        }
    }

    /// Output columns `[j, j + 16·V)` (the last vector masked by `mask`) of all `M` rows:
    /// `M x V` accumulators over the whole contraction, then one store each.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn block<const M: usize, const V: usize>(p: &FewRows, j: usize, mask: u16) {
        let mut acc = [[_mm512_setzero_ps(); V]; M];
        // SAFETY: every address read or written is an element of the matrices (the last
        // vector's lanes outside `mask` are neither loaded nor stored); prefetches of
        // rows past the end do not fault.
        unsafe {
            let mut r = p.rhs.add(j);
            let mut l = p.lhs;
            for _ in 0..p.k {
                let ahead = r.offset(PREFETCH_ROWS * p.rhs_rs);
                for v in 0..V {
                    _mm_prefetch::<_MM_HINT_T0>(ahead.add(16 * v) as *const i8);
                }
                let mut w = [_mm512_setzero_ps(); V];
                for (v, w) in w.iter_mut().enumerate() {
                    *w = if v + 1 == V {
                        _mm512_maskz_loadu_ps(mask, r.add(16 * v))
                    } else {
                        _mm512_loadu_ps(r.add(16 * v))
                    };
                }
                for (i, row) in acc.iter_mut().enumerate() {
                    let x = _mm512_set1_ps(*l.offset(i as isize * p.lhs_rs));
                    for (a, &w) in row.iter_mut().zip(&w) {
                        *a = _mm512_fmadd_ps(x, w, *a);
                    }
                }
                r = r.offset(p.rhs_rs);
                l = l.offset(p.lhs_cs);
            }
            for (i, row) in acc.iter().enumerate() {
                let d = p.dst.offset(i as isize * p.dst_rs).add(j);
                for (v, &a) in row.iter().enumerate() {
                    if v + 1 == V {
                        _mm512_mask_storeu_ps(d.add(16 * v), mask, a);
                    } else {
                        _mm512_storeu_ps(d.add(16 * v), a);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FewRows, applies};

    /// Every row count, column tails of 1 to 47 lanes past whole blocks, column ranges
    /// that start inside the matrix, a transposed lhs: against a plain f64 loop.
    #[test]
    fn matches_a_plain_product() {
        if !applies(2, 16, 1, 1, 1) {
            return; // no AVX-512 here: the `gemm` crate runs these products
        }
        for (m, n, k) in [
            (2, 16, 1),
            (3, 17, 5),
            (8, 2048, 64),
            (8, 95, 33),
            (5, 130, 7),
        ] {
            for lhs_transposed in [false, true] {
                let lhs: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
                let rhs: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 11) as f32 * 0.25).collect();
                // A row stride of n + 3: the rows of the output are not packed.
                let drs = n + 3;
                let mut dst = vec![f32::NAN; m * drs];
                let (lhs_rs, lhs_cs) = if lhs_transposed { (1, m) } else { (k, 1) };
                let p = FewRows {
                    m,
                    k,
                    dst: dst.as_mut_ptr(),
                    dst_rs: drs as isize,
                    lhs: lhs.as_ptr(),
                    lhs_rs: lhs_rs as isize,
                    lhs_cs: lhs_cs as isize,
                    rhs: rhs.as_ptr(),
                    rhs_rs: n as isize,
                };
                let cut = n / 3;
                // SAFETY: the strides describe the vectors above.
                unsafe {
                    p.run(cut..n);
                    p.run(0..cut);
                }
                for i in 0..m {
                    for j in 0..n {
                        let want: f64 = (0..k)
                            .map(|q| lhs[i * lhs_rs + q * lhs_cs] as f64 * rhs[q * n + j] as f64)
                            .sum();
                        let got = dst[i * drs + j] as f64;
                        assert!(
                            (got - want).abs() <= 1e-4 * want.abs().max(1.0),
                            "{m}x{n}x{k} ({i},{j}): {got} vs {want}"
                        );
                    }
                    // The padding between rows is never written.
                    assert!(dst[i * drs + n..(i + 1) * drs].iter().all(|x| x.is_nan()));
                }
            }
        }
    }
}
