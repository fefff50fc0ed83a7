//! One GEMM call and how it is cut: the blocks a threaded GEMM is split into (by the
//! machine's cores, so results do not depend on `--threads`), whether it computes into a
//! column-major temporary, and the call of the `gemm` crate on each block.

use super::*;

/// How many blocks a threaded GEMM is cut into: the machine's cores, whatever the size of
/// the thread pool that runs them (`--threads`). The cut decides which sub-GEMMs the `gemm`
/// crate sees, and its blocking of the contracting dimension (and its small-matrix and
/// matrix-vector paths) depends on their sizes: cutting by the pool's size made results
/// depend on it (a 128x64x1000 dot differed in half its elements between one thread and
/// two). With fewer threads than blocks, rayon runs the blocks' tiles in turn.
pub(super) fn split_blocks() -> usize {
    crate::runtime::memory::cores()
}

/// Whether a GEMM computes into a column-major temporary (then copied into the row-major
/// output) instead of the output itself. The `gemm` crate computes a row-major
/// destination as its transpose, so the operand it packs into row panels is then the
/// rhs, read along the columns: with a transposed rhs (`g @ W.T`, `rhs_contracting_dims=
/// {1}`) that is a gather of every element of `W` through a stride of a whole row. A
/// column-major destination makes it pack the lhs instead. Flipped when that is cheaper
/// counting gathered elements (the packed operand's, when its rows are not contiguous)
/// plus the `m x n` copy: 128x1024 by a transposed 1024x1024 went from 1.39 to 0.93 ms
/// (two threads, the GEMM alone; 1.09 ms untransposed), while at 1024^3 the copy would
/// cost more than the gather saves. Only for GEMMs big enough to thread, so the small
/// matrix paths of the crate (whose choice depends on the orientation) are never in play.
/// A flipped GEMM's lhs is put in column-major order first ([`transposed_view`]).
pub(super) fn flip_destination<T>(
    direct: bool,
    dst_rs: isize,
    dst_cs: isize,
    l: &View<T>,
    r: &View<T>,
    (m, n, k): (usize, usize, usize),
) -> bool {
    if !direct || m * n * k < PARALLEL_FLOPS || m <= 1 || n <= 1 || dst_cs.abs() >= dst_rs.abs() {
        return false;
    }
    let gathered = |contiguous: bool, elements: usize| if contiguous { 0 } else { elements };
    let as_is = gathered(r.second.abs() == 1, n * k);
    let flipped = gathered(l.first.abs() == 1, m * k) + m * n;
    flipped < as_is
}

/// The block length when `len` rows (or columns) split over `threads` threads into blocks
/// starting at multiples of `align`, if it makes at least two blocks.
pub(super) fn split_block(len: usize, threads: usize, align: usize) -> Option<usize> {
    let block = len.div_ceil(threads.max(1)).div_ceil(align) * align;
    (threads >= 2 && block < len).then_some(block)
}

/// How an `m x n` GEMM splits over `threads`: by rows (`true`, the longer side) or by
/// columns, in blocks of the given length; `None` when it stays one block. Column blocks
/// start at multiples of an epilogue's `unit_columns` too, so each is whole units.
pub(super) fn split_plan(
    m: usize,
    n: usize,
    threads: usize,
    unit_columns: Option<usize>,
) -> Option<(bool, usize)> {
    let rows = m >= n;
    let align = match (rows, unit_columns) {
        (false, Some(c)) if c > 0 => SPLIT_ALIGN / gcd(SPLIT_ALIGN, c) * c,
        _ => SPLIT_ALIGN,
    };
    split_block(if rows { m } else { n }, threads, align).map(|block| (rows, block))
}

pub(super) fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// One GEMM call's operands: `dst[m x n] = lhs[m x k] * rhs[k x n]`, element strides
/// column first as `gemm::gemm` takes them.
pub(super) struct Gemm<T> {
    pub(super) m: usize,
    pub(super) n: usize,
    pub(super) k: usize,
    pub(super) dst: *mut T,
    pub(super) dst_cs: isize,
    pub(super) dst_rs: isize,
    pub(super) lhs: *const T,
    pub(super) lhs_cs: isize,
    pub(super) lhs_rs: isize,
    pub(super) rhs: *const T,
    pub(super) rhs_cs: isize,
    pub(super) rhs_rs: isize,
}

// SAFETY: a `Gemm` is split into blocks that write disjoint parts of `dst` and only read
// the operands (see `run_split`).

/// Blocks of a split GEMM start at multiples of this many rows (or columns), a multiple
/// of the micro-kernel's tile so no block ends in a ragged tile that another could fill.
pub(super) const SPLIT_ALIGN: usize = 16;

/// Column chunks of a threaded few-rows GEMM start at multiples of this (whole 16-lane
/// vectors, mostly whole 48-column blocks).
pub(super) const FEW_ROWS_ALIGN: usize = 48;

impl<T: gemm_type::Gemm> Gemm<T> {
    /// This GEMM as a few-rows product, when it is f32 and that kernel takes it.
    pub(super) fn few_rows(&self) -> Option<FewRows> {
        let applies = std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>()
            && dot_few_rows::applies(self.m, self.n, self.k, self.dst_cs, self.rhs_cs);
        applies.then_some(FewRows {
            m: self.m,
            k: self.k,
            dst: self.dst as *mut f32,
            dst_rs: self.dst_rs,
            lhs: self.lhs as *const f32,
            lhs_rs: self.lhs_rs,
            lhs_cs: self.lhs_cs,
            rhs: self.rhs as *const f32,
            rhs_rs: self.rhs_rs,
        })
    }

    /// Runs `f` (this GEMM, see [`Self::few_rows`]), in column chunks over the pool when
    /// `parallel`: several chunks per core, so a core taken by another process leaves its
    /// share to the others (the split does not change a bit of the result). With
    /// `epilogue = (e, first)`, `e.done` follows each chunk (chunks are then whole
    /// epilogue units; one chunk when the epilogue takes whole rows only).
    pub(super) fn run_few_rows(
        &self,
        f: &FewRows,
        parallel: bool,
        epilogue: Option<(TileEpilogue<'_>, usize)>,
    ) {
        use rayon::prelude::*;
        let (m, n) = (self.m, self.n);
        let unit = match epilogue {
            Some((e, _)) => e.columns.unwrap_or(n),
            None => FEW_ROWS_ALIGN,
        };
        let tasks = if parallel { 4 * split_blocks() } else { 1 };
        let chunk = n.div_ceil(tasks).div_ceil(unit).max(1) * unit;
        let run = |c0: usize| {
            let c1 = (c0 + chunk).min(n);
            // SAFETY: the chunk's columns are inside the output; `few_rows` checked the
            // strides; chunks write disjoint columns.
            unsafe { f.run(c0..c1) };
            if let Some((e, first)) = epilogue {
                (e.done)(first..first + m, c0..c1);
            }
        };
        if chunk >= n {
            run(0);
        } else {
            (0..n)
                .step_by(chunk)
                .collect::<Vec<_>>()
                .into_par_iter()
                .for_each(run);
        }
    }

    /// The whole GEMM in one call.
    ///
    /// # Safety
    /// The pointers and strides must describe valid matrices.
    unsafe fn run(&self, parallelism: Parallelism) {
        // SAFETY: forwarded from the caller.
        unsafe {
            T::gemm(
                self.m,
                self.n,
                self.k,
                self.dst,
                self.dst_cs,
                self.dst_rs,
                self.lhs,
                self.lhs_cs,
                self.lhs_rs,
                self.rhs,
                self.rhs_cs,
                self.rhs_rs,
                parallelism,
            )
        }
    }

    /// The GEMM in one call, or with `epilogue = (e, row, column)` in output tiles of
    /// whole rows and as many columns as [`tile_columns`] allows, each followed by `e.done`
    /// on its rows and columns (numbered from `row` and `column`) while it is still in
    /// cache. Cutting the columns repacks the lhs once per tile, which measured no slower
    /// (256x2048x1024: 15.5 ms in one call, 14.1 in 512-column tiles; 512x1024x1024: the
    /// same 14.0 ms in one call and in 128-, 256- or 512-column tiles).
    ///
    /// # Safety
    /// The pointers and strides must describe valid matrices.
    pub(super) unsafe fn run_tiles(&self, epilogue: Option<(TileEpilogue<'_>, usize, usize)>) {
        let Some((e, row, column)) = epilogue else {
            // SAFETY: forwarded from the caller.
            unsafe { self.run(Parallelism::None) };
            return;
        };
        let rows = row..row + self.m;
        let width = tile_columns(self.m, self.n, e.columns, std::mem::size_of::<T>());
        for start in (0..self.n).step_by(width.max(1)) {
            let size = width.min(self.n - start);
            let s = start as isize;
            // SAFETY: `start` is inside the columns; the tile is a valid sub-GEMM.
            unsafe {
                Gemm {
                    n: size,
                    dst: self.dst.offset(s * self.dst_cs),
                    rhs: self.rhs.offset(s * self.rhs_cs),
                    ..*self
                }
                .run(Parallelism::None)
            };
            (e.done)(rows.clone(), column + start..column + start + size);
        }
    }

    /// The GEMM split into one block of output rows (or columns, whichever is longer) per
    /// thread, each a single-threaded GEMM. The `gemm` crate's own rayon split left
    /// 512x1024x2048 and 1024x1024x256 (k = 1024) as slow as one thread on the two-core
    /// machine; blocks of the output always split, at the cost of packing the shared
    /// operand once per block (and the other once per output tile: column tiles measured
    /// no slower, see [`Self::run_tiles`]). With `epilogue = (e, first)` (GEMM rows
    /// numbered from `first`), the epilogue runs on each tile as it finishes; a column
    /// split needs `e.columns` (the caller checked), and its blocks then start at unit
    /// boundaries.
    ///
    /// # Safety
    /// The pointers and strides must describe valid matrices.
    pub(super) unsafe fn run_split(&self, epilogue: Option<(TileEpilogue<'_>, usize)>) {
        use rayon::prelude::*;
        let unit_columns = epilogue.and_then(|(e, _)| e.columns);
        let Some((rows, block)) = split_plan(self.m, self.n, split_blocks(), unit_columns) else {
            // SAFETY: forwarded from the caller.
            unsafe { self.run_tiles(epilogue.map(|(e, first)| (e, first, 0))) };
            return;
        };
        let len = if rows { self.m } else { self.n };
        let blocks: Vec<(usize, Gemm<T>)> = (0..len)
            .step_by(block)
            .map(|start| {
                let size = block.min(len - start);
                let s = start as isize;
                // SAFETY (offsets): `start` is inside the split dimension.
                let g = unsafe {
                    if rows {
                        Gemm {
                            m: size,
                            dst: self.dst.offset(s * self.dst_rs),
                            lhs: self.lhs.offset(s * self.lhs_rs),
                            ..*self
                        }
                    } else {
                        Gemm {
                            n: size,
                            dst: self.dst.offset(s * self.dst_cs),
                            rhs: self.rhs.offset(s * self.rhs_cs),
                            ..*self
                        }
                    }
                };
                (start, g)
            })
            .collect();
        // Each block in output tiles (whole units for an epilogue), and the tiles of all
        // blocks scheduled by rayon's work stealing: each thread starts on its own block,
        // and one that finishes first takes tiles of the other's: a hedge against a core
        // the host takes away for part of the run, which a fixed half per thread pays in
        // full (matmul on the loaded VM: medians 13.9 -> 10.0 ms).
        let granularity = match epilogue {
            Some((e, _)) => e.columns,
            None => Some(SPLIT_ALIGN),
        };
        let size_of = std::mem::size_of::<T>();
        let mut tiles: Vec<(usize, usize, Gemm<T>)> = Vec::new();
        for (start, g) in blocks {
            let (row, column) = if rows { (start, 0) } else { (0, start) };
            let width = tile_columns(g.m, g.n, granularity, size_of).max(1);
            for c in (0..g.n).step_by(width) {
                // SAFETY (offsets): `c` is inside the block's columns.
                let tile = unsafe {
                    Gemm {
                        n: width.min(g.n - c),
                        dst: g.dst.offset(c as isize * g.dst_cs),
                        rhs: g.rhs.offset(c as isize * g.rhs_cs),
                        ..g
                    }
                };
                tiles.push((row, column + c, tile));
            }
        }
        // SAFETY: the tiles write disjoint parts of `dst`.
        tiles.into_par_iter().for_each(|(row, column, t)| {
            unsafe { t.run(Parallelism::None) };
            if let Some((e, first)) = epilogue {
                (e.done)(first + row..first + row + t.m, column..column + t.n);
            }
        });
    }
}
