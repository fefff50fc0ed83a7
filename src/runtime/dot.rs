//! `dot` through the `gemm` crate: batch dimensions loop, the free and contracting
//! dimensions of each operand become the rows/columns of one GEMM per batch element, read
//! in place through their strides whenever the operand's layout lets a group of
//! dimensions collapse into one stride (a transposed operand costs nothing). Otherwise the
//! operand is first copied into a layout where it does. f16/bf16 (and mixed types) compute
//! in f32, f64 in f64. XLA: `xla/backends/cpu/runtime/dot_thunk.cc`, `dot_lib.h`.

use gemm::Parallelism;

use crate::ir::{ArrayShape, DotDimensionNumbers, Layout, PrimitiveType};

use super::RuntimeError;
use super::buffers::copy_array;
use super::elements::{Compute, load, store};
use super::execute::Memory;
use super::thunk::DotThunk;
use super::tuning::DotStrategy;

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

/// Told that the GEMM rows `[begin, end)` (numbered batch-major, `batch * m + row`) are
/// final: a kOutput fusion runs its epilogue on them there and then, on the thread that
/// computed them.
pub type RowsDone<'a> = &'a (dyn Fn(usize, usize) + Sync);

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
/// `rows_done` about each block of rows as soon as the thread that computed it is done with
/// it. Returns whether `rows_done` saw every row; if not, it saw none, and the caller runs
/// its epilogue after the whole GEMM. `rows_done` must only be given when
/// [`row_major_rows`] is `Some`.
pub fn run_with_epilogue(
    d: &DotThunk,
    memory: &Memory,
    rows_done: Option<RowsDone<'_>>,
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
            dot::<f64>(args, &d.dimension_numbers, d.strategy, rows_done)
        } else {
            dot::<f32>(args, &d.dimension_numbers, d.strategy, rows_done)
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

/// A dot of two arrays into a third, computing in `T`; `rows_done` as in
/// [`run_with_epilogue`], whose result this returns.
///
/// # Safety
/// The pointers must hold arrays of the given shapes.
unsafe fn dot<T: Compute + gemm_type::Gemm>(
    (lhs, ls, rhs, rs, out, os): DotArgs<'_>,
    dn: &DotDimensionNumbers,
    strategy: Option<DotStrategy>,
    rows_done: Option<RowsDone<'_>>,
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
    // Row blocks reach the epilogue only when threads own whole rows (or batches) of the
    // output in place; a serial GEMM leaves the epilogue its own thread split.
    let threads = rayon::current_num_threads();
    let rows_done = rows_done.filter(|_| {
        direct && (batch_parallel || (parallel_gemm && m >= n && split_block(m, threads).is_some()))
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
                if let Some(done) = rows_done {
                    done(b * m, (b + 1) * m);
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
                if parallel_gemm {
                    g.run_split(rows_done.map(|done| (done, b * m)));
                } else {
                    g.run(Parallelism::None);
                    if let Some(done) = rows_done {
                        done(b * m, (b + 1) * m);
                    }
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
    Ok(rows_done.is_some())
}

/// The block length when `len` rows (or columns) split over `threads` threads, if it makes
/// at least two blocks.
fn split_block(len: usize, threads: usize) -> Option<usize> {
    let block = len.div_ceil(threads.max(1)).div_ceil(SPLIT_ALIGN) * SPLIT_ALIGN;
    (threads >= 2 && block < len).then_some(block)
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

impl<T: gemm_type::Gemm> Gemm<T> {
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

    /// The GEMM split into one block of output rows (or columns, whichever is longer) per
    /// thread, each a single-threaded GEMM. The `gemm` crate's own rayon split left
    /// 512x1024x2048 and 1024x1024x256 (k = 1024) as slow as one thread on the two-core
    /// machine; blocks of the output always split, at the cost of packing the shared
    /// operand once per block. With `rows_done = (done, first)` and a split by rows, each
    /// thread calls `done(first + begin, first + end)` on its block right after computing
    /// it (the block is then still in its core's cache).
    ///
    /// # Safety
    /// The pointers and strides must describe valid matrices.
    unsafe fn run_split(&self, rows_done: Option<(RowsDone<'_>, usize)>) {
        use rayon::prelude::*;
        let rows = self.m >= self.n;
        let len = if rows { self.m } else { self.n };
        let Some(block) = split_block(len, rayon::current_num_threads()) else {
            // SAFETY: forwarded from the caller.
            unsafe { self.run(Parallelism::None) };
            if let Some((done, first)) = rows_done {
                done(first, first + self.m);
            }
            return;
        };
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
        // SAFETY: the blocks write disjoint rows (columns) of `dst`.
        blocks.into_par_iter().for_each(|(start, g)| {
            unsafe { g.run(Parallelism::None) };
            if let (true, Some((done, first))) = (rows, rows_done) {
                done(first + start, first + start + g.m);
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
    pub trait Gemm: Sized {
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
