//! `dot` through the `gemm` crate: batch dimensions loop, the free and contracting
//! dimensions of each operand become the rows/columns of one GEMM per batch element, read
//! in place through their strides whenever the operand's layout lets a group of
//! dimensions collapse into one stride (a transposed operand costs nothing). Otherwise the
//! operand is first copied into a layout where it does. f16/bf16 (and mixed types) compute
//! in f32, f64 in f64. XLA: `xla/backends/cpu/runtime/dot_thunk.cc`, `dot_lib.h`.

use std::ops::Range;

use gemm::Parallelism;

use crate::ir::{ArrayShape, DotDimensionNumbers, Layout, PrimitiveType};

use super::dot_few_rows::{self, FewRows};
use super::transpose_copy::transpose_into_parallel;
use crate::runtime::RuntimeError;
use crate::runtime::buffers::copy_array;
use crate::runtime::elements::{Compute, load, store};
use crate::runtime::memory::{BufferRef, Memory};
use crate::runtime::tuning::DotStrategy;

/// A dot on buffers.
#[derive(Clone, Debug)]
pub struct DotThunk {
    /// The dot instruction.
    pub name: String,
    /// Left operand.
    pub lhs: BufferRef,
    /// Right operand.
    pub rhs: BufferRef,
    /// Result.
    pub out: BufferRef,
    /// Batch and contracting dimensions.
    pub dimension_numbers: DotDimensionNumbers,
    /// An explicit strategy chosen by `--autotune` (default: a parallel GEMM for big dots).
    pub strategy: Option<DotStrategy>,
}

/// The output and operand base pointers, shared by the tasks of a batch-parallel dot.
#[derive(Clone, Copy)]
struct SendPtrs<T>(*mut T, *const T, *const T);
// SAFETY: the tasks write disjoint batches of the output and only read the operands.
unsafe impl<T> Send for SendPtrs<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtrs<T> {}

impl<T> SendPtrs<T> {
    /// The pointers (a method, so closures capture the whole Send wrapper).
    fn get(&self) -> (*mut T, *const T, *const T) {
        (self.0, self.1, self.2)
    }
}

/// GEMMs with fewer multiply-adds than this run on the calling thread. With the `gemm`
/// crate's AVX-512 kernels a 1.3M multiply-add GEMM (the training step's 256x512x10 dots)
/// takes about 60 us on one thread and 90-230 us when threaded (`thunk_times`), so
/// threading pays from a few million on.
const PARALLEL_FLOPS: usize = 1 << 21;

/// Per-batch GEMMs with fewer multiply-adds than this (but several batches) spread the
/// batches over threads instead of threading each GEMM: a multi-threaded GEMM of a small
/// matrix spends more on splitting and joining than on its work (attention's batched
/// 128x128x64 dots ran about twice as fast batch-parallel).
const BATCH_PARALLEL_MAX_FLOPS: usize = 1 << 24;

/// The default rule on the GEMM sizes: `batches` GEMMs of `m x k` by `k x n`.
fn default_rule(batches: usize, m: usize, n: usize, k: usize) -> DotStrategy {
    let per_batch = m * n * k;
    if batches > 1 && per_batch < BATCH_PARALLEL_MAX_FLOPS && batches * per_batch >= PARALLEL_FLOPS
    {
        DotStrategy::BatchParallel
    } else if per_batch >= PARALLEL_FLOPS {
        DotStrategy::GemmParallel
    } else {
        DotStrategy::GemmSerial
    }
}

/// The free (neither batch nor contracting) dimensions of the lhs and of the rhs: the
/// GEMM's rows and columns.
fn free_groups(
    ls: &ArrayShape,
    rs: &ArrayShape,
    dn: &DotDimensionNumbers,
) -> (Vec<usize>, Vec<usize>) {
    (
        free_dims(
            ls.rank(),
            &dn.lhs_batch_dimensions,
            &dn.lhs_contracting_dimensions,
        ),
        free_dims(
            rs.rank(),
            &dn.rhs_batch_dimensions,
            &dn.rhs_contracting_dimensions,
        ),
    )
}

/// The product of the sizes of dimensions `ds` of `s`.
fn size(s: &ArrayShape, ds: &[usize]) -> usize {
    ds.iter().map(|&d| s.dims[d] as usize).product()
}

/// The strategy a dot uses without an autotuned one: batches spread over threads for
/// several small GEMMs, a multi-threaded GEMM for big matrices, single-threaded otherwise.
pub fn default_strategy(d: &DotThunk) -> DotStrategy {
    let dn = &d.dimension_numbers;
    let (ls, rs) = (&d.lhs.shape, &d.rhs.shape);
    let (lhs_free, rhs_free) = free_groups(ls, rs, dn);
    default_rule(
        size(ls, &dn.lhs_batch_dimensions),
        size(ls, &lhs_free),
        size(rs, &rhs_free),
        size(ls, &dn.lhs_contracting_dimensions),
    )
}

/// Told that the GEMM output tile `rows x cols` (rows numbered batch-major, `batch * m +
/// row`) is final: a kOutput fusion runs its epilogue on it there and then, on the thread
/// that computed it, while the tile is still in that core's cache.
pub type TileDone<'a> = &'a (dyn Fn(Range<usize>, Range<usize>) + Sync);

/// Where a kOutput fusion's epilogue runs inside the GEMM: `done` is told about each
/// finished tile. With `columns: Some(c)` a tile may be part of a row, any multiple of
/// `c` columns wide (the epilogue's work units are `c` columns each); with `None`, tiles
/// are whole GEMM rows.
#[derive(Clone, Copy)]
pub struct TileEpilogue<'a> {
    /// Called on each final tile.
    pub done: TileDone<'a>,
    /// The column granularity of tiles, if rows may be cut.
    pub columns: Option<usize>,
}

/// A tile of output, at most this many bytes (half the 2 MiB L2), stays in L2 beside the
/// GEMM's packed panels until its epilogue reads it. On mlp's 512x2048 bias+relu the
/// epilogue took 2.0% of the samples run after the whole GEMM, 2.2% on each thread's
/// 2 MiB block, 2.9% on 1 MiB tiles and 3.6% on 512 KiB tiles: narrower tiles cut rows
/// into shorter runs, which the streaming prefetchers follow worse, and this machine's
/// 260 MiB L3 keeps even the whole result close. Wall time did not tell them apart (the
/// GEMM is 87% of it); a smaller last-level cache would favour the tiles.
pub(crate) const OUTPUT_TILE_BYTES: usize = 1 << 20;

/// The width of the output tiles a block of `rows` GEMM rows is computed in: the most
/// columns (a multiple of `granularity`, at least one) whose tile fits
/// [`OUTPUT_TILE_BYTES`], or all `n`.
fn tile_columns(rows: usize, n: usize, granularity: Option<usize>, element_bytes: usize) -> usize {
    let Some(g) = granularity.filter(|&g| g > 0 && g < n) else {
        return n;
    };
    let fit = OUTPUT_TILE_BYTES / (rows.max(1) * element_bytes);
    (fit / g).max(1).saturating_mul(g).min(n)
}

/// The number of GEMM rows (`batches * m`) of `d` if its output is row-major with at least
/// one rhs free dimension: then GEMM row `g` is the output's elements `[g·n, (g+1)·n)`, a
/// whole number of rows of its minor dimension.
pub fn row_major_rows(d: &DotThunk) -> Option<usize> {
    let os = &d.out.shape;
    let dn = &d.dimension_numbers;
    let (lhs_free, rhs_free) = free_groups(&d.lhs.shape, &d.rhs.shape, dn);
    let row_major = os
        .layout
        .minor_to_major
        .iter()
        .rev()
        .copied()
        .eq(0..os.rank());
    (row_major && !rhs_free.is_empty())
        .then(|| size(&d.lhs.shape, &dn.lhs_batch_dimensions) * size(&d.lhs.shape, &lhs_free))
}

/// Runs a dot thunk.
pub fn run(d: &DotThunk, memory: &Memory) -> Result<(), RuntimeError> {
    run_with_epilogue(d, memory, None).map(|_| ())
}

/// Runs a dot thunk; when the GEMM is split over threads by rows (or batches), tells
/// `epilogue` about each output tile as soon as the thread that computed it is done with
/// it. Returns whether the epilogue saw every element; if not, it saw none, and the caller
/// runs it after the whole GEMM. `epilogue` must only be given when [`row_major_rows`] is
/// `Some`.
pub fn run_with_epilogue(
    d: &DotThunk,
    memory: &Memory,
    epilogue: Option<TileEpilogue<'_>>,
) -> Result<bool, RuntimeError> {
    let f64_compute = [&d.lhs, &d.rhs, &d.out]
        .iter()
        .any(|b| b.shape.element_type == PrimitiveType::F64);
    let args = (
        memory.ptr(d.lhs.slice) as *const u8,
        &d.lhs.shape,
        memory.ptr(d.rhs.slice) as *const u8,
        &d.rhs.shape,
        memory.ptr(d.out.slice),
        &d.out.shape,
    );
    // SAFETY: the slices hold their shapes.
    unsafe {
        if f64_compute {
            dot::<f64>(args, &d.dimension_numbers, d.strategy, epilogue)
        } else {
            dot::<f32>(args, &d.dimension_numbers, d.strategy, epilogue)
        }
    }
    .map_err(|m| RuntimeError::new(format!("{}: {m}", d.name)))
}

type DotArgs<'a> = (
    *const u8,
    &'a ArrayShape,
    *const u8,
    &'a ArrayShape,
    *mut u8,
    &'a ArrayShape,
);

/// One operand viewed as `[batch..., rows, cols]` with one stride per group.
struct View<T> {
    /// Owned data when the operand had to be converted or relaid out.
    _owned: Option<Vec<T>>,
    ptr: *const T,
    /// Element strides of the batch dimensions (in dnums order).
    batch_strides: Vec<isize>,
    /// Stride of the first matrix dimension group (lhs: free, rhs: contracting).
    first: isize,
    /// Stride of the second group (lhs: contracting, rhs: free).
    second: isize,
}

/// A dot of two arrays into a third, computing in `T`; `epilogue` as in
/// [`run_with_epilogue`], whose result this returns.
///
/// # Safety
/// The pointers must hold arrays of the given shapes.
unsafe fn dot<T: Compute + gemm_type::Gemm>(
    (lhs, ls, rhs, rs, out, os): DotArgs<'_>,
    dn: &DotDimensionNumbers,
    strategy: Option<DotStrategy>,
    epilogue: Option<TileEpilogue<'_>>,
) -> Result<bool, String> {
    let (lhs_free, rhs_free) = free_groups(ls, rs, dn);
    let nb = dn.lhs_batch_dimensions.len();
    if os.rank() != nb + lhs_free.len() + rhs_free.len()
        || dn.rhs_batch_dimensions.len() != nb
        || dn.lhs_contracting_dimensions.len() != dn.rhs_contracting_dimensions.len()
    {
        return Err("dot dimension numbers do not match the shapes".into());
    }
    let m = size(ls, &lhs_free);
    let n = size(rs, &rhs_free);
    let k = size(ls, &dn.lhs_contracting_dimensions);
    // SAFETY (both views): the caller's pointers hold the shapes.
    let l = unsafe {
        view::<T>(
            lhs,
            ls,
            &dn.lhs_batch_dimensions,
            &lhs_free,
            &dn.lhs_contracting_dimensions,
        )
    };
    let r = unsafe {
        view::<T>(
            rhs,
            rs,
            &dn.rhs_batch_dimensions,
            &dn.rhs_contracting_dimensions,
            &rhs_free,
        )
    };
    // The output's groups are its dims [0, nb), [nb, nb + |lhs free|), the rest.
    let out_batch: Vec<usize> = (0..nb).collect();
    let out_rows: Vec<usize> = (nb..nb + lhs_free.len()).collect();
    let out_cols: Vec<usize> = (nb + lhs_free.len()..os.rank()).collect();
    let direct = os.element_type == T::TYPE
        && group_stride(os, &out_rows).is_some()
        && group_stride(os, &out_cols).is_some();
    // Without a direct view, compute into a row-major temporary (whose groups always
    // collapse) and copy/convert it into the output afterwards.
    let mut temp_shape = os.clone();
    temp_shape.element_type = T::TYPE;
    if !direct {
        temp_shape.layout = Layout::row_major(os.rank());
    }
    let mut temp: Vec<T> = if direct {
        Vec::new()
    } else {
        vec![T::default(); os.element_count()]
    };
    let dst: *mut T = if direct {
        out as *mut T
    } else {
        temp.as_mut_ptr()
    };
    let strides = temp_shape.physical_strides();
    let ostr = |g: &[usize]| group_stride(&temp_shape, g).unwrap_or(1);
    let (dst_rs, dst_cs) = (ostr(&out_rows), ostr(&out_cols));
    let batch_dims: Vec<usize> = dn
        .lhs_batch_dimensions
        .iter()
        .map(|&d| ls.dims[d] as usize)
        .collect();
    let batches: usize = batch_dims.iter().product();
    let strategy = strategy.unwrap_or_else(|| default_rule(batches, m, n, k));
    let parallel_gemm = strategy == DotStrategy::GemmParallel;
    let batch_parallel = strategy == DotStrategy::BatchParallel && batches > 1;
    // Tiles reach the epilogue only when threads own whole rows (or batches) of the
    // output in place; a serial GEMM leaves the epilogue its own thread split.
    let flip = flip_destination(direct, dst_rs, dst_cs, &l, &r, (m, n, k));
    // The operand the `gemm` crate would pack across its rows goes into the other
    // orientation first, in register transposes (see `transposed_view`): the lhs of a
    // flipped GEMM, or a transposed rhs of one that is not.
    let threaded = direct && m * n * k >= PARALLEL_FLOPS && m > 1 && n > 1;
    // SAFETY (both): the views hold their groups' elements, batch by batch.
    let l = match threaded && flip {
        true => unsafe { transposed_view(l, (m, k), &batch_dims, true) },
        false => l,
    };
    let r = match threaded && !flip {
        true => unsafe { transposed_view(r, (k, n), &batch_dims, false) },
        false => r,
    };
    // A flipped GEMM writes a temporary; the epilogue then runs after the whole dot.
    let epilogue = epilogue.filter(|_| !flip);
    // Left uninitialized: the GEMM writes every element without reading the destination
    // (zeroing it cost a memset as large as the output on every run).
    let mut flipped: Box<[std::mem::MaybeUninit<T>]> =
        Box::new_uninit_slice(if flip { batches * m * n } else { 0 });
    let flipped_ptr = SendPtrs(
        flipped.as_mut_ptr() as *mut T,
        std::ptr::null(),
        std::ptr::null(),
    );
    let epilogue = epilogue.filter(|e| {
        let split = match split_plan(m, n, split_blocks(), e.columns) {
            Some((rows, _)) => rows || e.columns.is_some(),
            None => false,
        };
        direct && (batch_parallel || (parallel_gemm && split))
    });
    let ptrs = SendPtrs(dst, l.ptr, r.ptr);
    // One batch: its offsets from the batch index, then one GEMM (or zeros for k = 0).
    let one_batch = |b: usize| {
        let mut index = vec![0usize; nb];
        let mut rest = b;
        for d in (0..nb).rev() {
            index[d] = rest % batch_dims[d];
            rest /= batch_dims[d];
        }
        let off = |s: &[isize]| {
            index
                .iter()
                .zip(s)
                .map(|(&i, &s)| i as isize * s)
                .sum::<isize>()
        };
        let o: isize = out_batch
            .iter()
            .map(|&d| index[d] as isize * strides[d] as isize)
            .sum();
        let (dst, lp, rp) = ptrs.get();
        // A flipped batch goes to its own column-major `m x n` block of the temporary.
        let (o, dst, dst_rs, dst_cs) = if flip {
            ((b * m * n) as isize, flipped_ptr.get().0, 1, m as isize)
        } else {
            (o, dst, dst_rs, dst_cs)
        };
        // SAFETY: offsets stay inside the arrays (indices within their dimensions), and
        // batches write disjoint parts of the output.
        unsafe {
            let dst = dst.offset(o);
            if k == 0 {
                for i in 0..m {
                    for j in 0..n {
                        *dst.offset(i as isize * dst_rs + j as isize * dst_cs) = T::default();
                    }
                }
                if let Some(e) = epilogue {
                    (e.done)(b * m..(b + 1) * m, 0..n);
                }
            } else if m > 0 && n > 0 {
                let g = Gemm {
                    m,
                    n,
                    k,
                    dst,
                    dst_cs,
                    dst_rs,
                    lhs: lp.offset(off(&l.batch_strides)),
                    lhs_cs: l.second,
                    lhs_rs: l.first,
                    rhs: rp.offset(off(&r.batch_strides)),
                    rhs_cs: r.second,
                    rhs_rs: r.first,
                };
                if let Some(f) = g.few_rows() {
                    g.run_few_rows(&f, parallel_gemm, epilogue.map(|e| (e, b * m)));
                } else if parallel_gemm {
                    g.run_split(epilogue.map(|e| (e, b * m)));
                } else {
                    g.run_tiles(epilogue.map(|e| (e, b * m, 0)));
                }
            }
        }
    };
    if batch_parallel {
        use rayon::prelude::*;
        (0..batches).into_par_iter().for_each(one_batch);
    } else {
        (0..batches).for_each(one_batch);
    }
    if flip {
        for b in 0..batches {
            let o = batch_offset(b, &batch_dims, |d| strides[out_batch[d]] as isize);
            // SAFETY: the temporary holds `batches` column-major `m x n` blocks; the
            // output's batch `b` starts at `o` with the strides of its groups.
            unsafe {
                transpose_into_parallel(
                    (flipped.as_ptr() as *const T).add(b * m * n),
                    (m, n),
                    dst.offset(o),
                    (dst_rs, dst_cs),
                )
            };
        }
    }
    if !direct {
        // SAFETY: `temp` holds the result in `temp_shape`; convert then relayout.
        unsafe {
            if os.element_type == T::TYPE {
                copy_array(temp.as_ptr() as *const u8, &temp_shape, out, os);
            } else {
                let mut converted = vec![0u8; os.byte_size()];
                store(converted.as_mut_ptr(), os.element_type, &temp);
                let mut from = temp_shape.clone();
                from.element_type = os.element_type;
                copy_array(converted.as_ptr(), &from, out, os);
            }
        }
    }
    Ok(epilogue.is_some())
}

/// `v` (a `rows x cols` matrix per batch) copied into column-major order (`to_columns`)
/// from dense row-major, or into row-major from dense column-major, when its elements are
/// 4 bytes; any other view is returned as it is. The `gemm` crate packs its lhs into
/// panels of 64 rows by gathering one element of each row per step of the contraction:
/// from a row-major operand that is 64 cache lines a step, and with rows of 4 KiB (1024
/// floats) all of them fall in one L1 set (`g @ W.T` at 128x1024x1024: 1.68 ms against
/// 1.41 untransposed; 1024^3: 13.2 against 10.2). Transposed here in 8 x 8 register
/// blocks instead, the crate's packing is a contiguous copy.
///
/// # Safety
/// `v` must hold `rows x cols` elements per batch at its strides.
unsafe fn transposed_view<T: Copy + Default>(
    v: View<T>,
    (rows, cols): (usize, usize),
    batch_dims: &[usize],
    to_columns: bool,
) -> View<T> {
    let row_major = to_columns && v.second == 1 && v.first == cols as isize;
    let column_major = !to_columns && v.first == 1 && v.second == rows as isize;
    if std::mem::size_of::<T>() != 4 || !(row_major || column_major) || rows < 8 || cols < 8 {
        return v;
    }
    let block = rows * cols;
    let batches: usize = batch_dims.iter().product();
    let mut data: Vec<T> = Vec::with_capacity(batches * block);
    for b in 0..batches {
        let offset = batch_offset(b, batch_dims, |d| v.batch_strides[d]);
        // SAFETY: batch `b` of `v` holds `rows x cols` dense elements; `data` has room for
        // `batches` blocks and block `b` is written whole (every element) here.
        unsafe {
            let (src, dst) = (v.ptr.offset(offset), data.as_mut_ptr().add(b * block));
            if row_major {
                // Rows of `cols` are columns of a column-major `cols x rows` block.
                transpose_into_parallel(src, (cols, rows), dst, (rows as isize, 1));
            } else {
                transpose_into_parallel(src, (rows, cols), dst, (cols as isize, 1));
            }
        }
    }
    // SAFETY: every element of every block was written above.
    unsafe { data.set_len(batches * block) };
    let mut batch_strides = vec![0isize; batch_dims.len()];
    let mut stride = block as isize;
    for d in (0..batch_dims.len()).rev() {
        batch_strides[d] = stride;
        stride *= batch_dims[d] as isize;
    }
    View {
        ptr: data.as_ptr(),
        batch_strides,
        first: if row_major { 1 } else { cols as isize },
        second: if row_major { rows as isize } else { 1 },
        _owned: Some(data),
    }
}

/// The element offset of batch `b` (numbered row-major over `batch_dims`), with `stride(d)`
/// the stride of batch dimension `d`.
fn batch_offset(b: usize, batch_dims: &[usize], stride: impl Fn(usize) -> isize) -> isize {
    let mut rest = b;
    let mut offset = 0isize;
    for (d, &size) in batch_dims.iter().enumerate().rev() {
        offset += (rest % size) as isize * stride(d);
        rest /= size;
    }
    offset
}

/// How many blocks a threaded GEMM is cut into: the machine's cores, whatever the size of
/// the thread pool that runs them (`--threads`). The cut decides which sub-GEMMs the `gemm`
/// crate sees, and its blocking of the contracting dimension (and its small-matrix and
/// matrix-vector paths) depends on their sizes: cutting by the pool's size made results
/// depend on it (a 128x64x1000 dot differed in half its elements between one thread and
/// two). With fewer threads than blocks, rayon runs the blocks' tiles in turn.
fn split_blocks() -> usize {
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
fn flip_destination<T>(
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
fn split_block(len: usize, threads: usize, align: usize) -> Option<usize> {
    let block = len.div_ceil(threads.max(1)).div_ceil(align) * align;
    (threads >= 2 && block < len).then_some(block)
}

/// How an `m x n` GEMM splits over `threads`: by rows (`true`, the longer side) or by
/// columns, in blocks of the given length; `None` when it stays one block. Column blocks
/// start at multiples of an epilogue's `unit_columns` too, so each is whole units.
fn split_plan(
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

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// One GEMM call's operands: `dst[m x n] = lhs[m x k] * rhs[k x n]`, element strides
/// column first as `gemm::gemm` takes them.
struct Gemm<T> {
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    dst_cs: isize,
    dst_rs: isize,
    lhs: *const T,
    lhs_cs: isize,
    lhs_rs: isize,
    rhs: *const T,
    rhs_cs: isize,
    rhs_rs: isize,
}

// SAFETY: a `Gemm` is split into blocks that write disjoint parts of `dst` and only read
// the operands (see `run_split`).
unsafe impl<T> Send for Gemm<T> {}

/// Blocks of a split GEMM start at multiples of this many rows (or columns), a multiple
/// of the micro-kernel's tile so no block ends in a ragged tile that another could fill.
const SPLIT_ALIGN: usize = 16;

/// Column chunks of a threaded few-rows GEMM start at multiples of this (whole 16-lane
/// vectors, mostly whole 48-column blocks).
const FEW_ROWS_ALIGN: usize = 48;

impl<T: gemm_type::Gemm> Gemm<T> {
    /// This GEMM as a few-rows product, when it is f32 and that kernel takes it.
    fn few_rows(&self) -> Option<FewRows> {
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
    fn run_few_rows(
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
    unsafe fn run_tiles(&self, epilogue: Option<(TileEpilogue<'_>, usize, usize)>) {
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
    unsafe fn run_split(&self, epilogue: Option<(TileEpilogue<'_>, usize)>) {
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

/// Dimensions that are neither batch nor contracting, in increasing order (the order
/// they take in the result).
fn free_dims(rank: usize, batch: &[usize], contracting: &[usize]) -> Vec<usize> {
    (0..rank)
        .filter(|d| !batch.contains(d) && !contracting.contains(d))
        .collect()
}

/// The one element stride that walks dimensions `group` as a single flattened (row-major
/// within the group) dimension, if the layout allows it. Dimensions of size 1 do not
/// matter; an empty group (or all size 1) has stride 1.
fn group_stride(s: &ArrayShape, group: &[usize]) -> Option<isize> {
    let strides = s.physical_strides();
    let live: Vec<usize> = group.iter().copied().filter(|&d| s.dims[d] != 1).collect();
    for w in live.windows(2) {
        if strides[w[0]] != strides[w[1]] * s.dims[w[1]] as usize {
            return None;
        }
    }
    Some(live.last().map(|&d| strides[d] as isize).unwrap_or(1))
}

/// An operand as `T` elements whose `first` and `second` groups each collapse to a single
/// stride: in place when possible, else converted and/or relaid out into an owned copy
/// with the layout `[batch..., first..., second...]` row-major.
///
/// # Safety
/// `ptr` must hold an array of `shape`.
unsafe fn view<T: Compute>(
    ptr: *const u8,
    shape: &ArrayShape,
    batch: &[usize],
    first: &[usize],
    second: &[usize],
) -> View<T> {
    let fits =
        |s: &ArrayShape| group_stride(s, first).is_some() && group_stride(s, second).is_some();
    let mut s = shape.clone();
    let mut owned: Option<Vec<T>> = None;
    if shape.element_type != T::TYPE {
        // SAFETY: the caller's pointer holds the shape.
        owned = Some(unsafe { load::<T>(ptr, shape.element_type, shape.element_count()) });
        s.element_type = T::TYPE;
    }
    if !fits(&s) {
        let order: Vec<usize> = batch.iter().chain(first).chain(second).copied().collect();
        let mut packed = s.clone();
        packed.layout = Layout {
            minor_to_major: order.iter().rev().copied().collect(),
            extra: None,
        };
        let mut data = vec![T::default(); s.element_count()];
        let src = owned
            .as_ref()
            .map(|v| v.as_ptr() as *const u8)
            .unwrap_or(ptr);
        // SAFETY: both buffers hold the shape's elements.
        unsafe { copy_array(src, &s, data.as_mut_ptr() as *mut u8, &packed) };
        owned = Some(data);
        s = packed;
    }
    let strides = s.physical_strides();
    let p = owned
        .as_ref()
        .map(|v| v.as_ptr())
        .unwrap_or(ptr as *const T);
    View {
        ptr: p,
        batch_strides: batch.iter().map(|&d| strides[d] as isize).collect(),
        first: group_stride(&s, first).unwrap_or(1),
        second: group_stride(&s, second).unwrap_or(1),
        _owned: owned,
    }
}

/// The typed entry points of the `gemm` crate.
mod gemm_type {
    use gemm::Parallelism;

    /// `dst[m x n] = lhs[m x k] * rhs[k x n]` with element strides (column stride first,
    /// as `gemm::gemm` takes them).
    pub trait Gemm: Sized + 'static {
        /// # Safety
        /// The pointers and strides must describe valid matrices.
        #[allow(clippy::too_many_arguments)]
        unsafe fn gemm(
            m: usize,
            n: usize,
            k: usize,
            dst: *mut Self,
            dst_cs: isize,
            dst_rs: isize,
            lhs: *const Self,
            lhs_cs: isize,
            lhs_rs: isize,
            rhs: *const Self,
            rhs_cs: isize,
            rhs_rs: isize,
            parallelism: Parallelism,
        );
    }

    macro_rules! impl_gemm {
        ($t:ty) => {
            impl Gemm for $t {
                unsafe fn gemm(
                    m: usize,
                    n: usize,
                    k: usize,
                    dst: *mut $t,
                    dst_cs: isize,
                    dst_rs: isize,
                    lhs: *const $t,
                    lhs_cs: isize,
                    lhs_rs: isize,
                    rhs: *const $t,
                    rhs_cs: isize,
                    rhs_rs: isize,
                    parallelism: Parallelism,
                ) {
                    // SAFETY: forwarded from the caller.
                    unsafe {
                        gemm::gemm(
                            m,
                            n,
                            k,
                            dst,
                            dst_cs,
                            dst_rs,
                            false,
                            lhs,
                            lhs_cs,
                            lhs_rs,
                            rhs,
                            rhs_cs,
                            rhs_rs,
                            0.0,
                            1.0,
                            false,
                            false,
                            false,
                            parallelism,
                        )
                    }
                }
            }
        };
    }
    impl_gemm!(f32);
    impl_gemm!(f64);
}

#[cfg(test)]
mod tests {
    use super::{split_plan, tile_columns};

    #[test]
    fn column_blocks_start_on_epilogue_units() {
        // Rows split as before; columns split at multiples of the units (and of 16).
        assert_eq!(split_plan(1024, 768, 2, Some(256)), Some((true, 512)));
        assert_eq!(split_plan(256, 2304, 2, None), Some((false, 1152)));
        assert_eq!(split_plan(256, 2304, 2, Some(256)), Some((false, 1280)));
        assert_eq!(split_plan(256, 2304, 2, Some(24)), Some((false, 1152)));
        // One unit of columns does not split; one thread never does.
        assert_eq!(split_plan(64, 256, 2, Some(256)), None);
        assert_eq!(split_plan(1024, 768, 1, Some(256)), None);
    }

    #[test]
    fn output_tiles_are_whole_units_within_the_budget() {
        // 128 rows of f32: 2048 columns make 1 MiB.
        assert_eq!(tile_columns(128, 2304, Some(256), 4), 2048);
        // 300 rows: 873 columns would fit; whole 256-column units make it 768.
        assert_eq!(tile_columns(300, 2304, Some(256), 4), 768);
        // A block too tall for even one unit still takes one unit at a time.
        assert_eq!(tile_columns(8192, 2304, Some(256), 4), 256);
        // Whole rows when the rows fit, when units are rows, or when there is one unit.
        assert_eq!(tile_columns(64, 2304, Some(256), 4), 2304);
        assert_eq!(tile_columns(512, 2304, None, 4), 2304);
        assert_eq!(tile_columns(512, 256, Some(256), 4), 256);
        // f64 halves the columns.
        assert_eq!(tile_columns(128, 2304, Some(256), 8), 1024);
    }
}
