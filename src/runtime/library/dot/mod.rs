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

mod gemm_split;
mod operand_views;

use gemm_split::*;
use operand_views::*;

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

unsafe impl<T> Send for Gemm<T> {}

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
