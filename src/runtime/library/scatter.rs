//! `scatter` as a native routine: the operands are copied into the results (nothing to
//! copy when the buffer plan gave the result the operand's buffer: the scatter is then in
//! place), then for each update index (row-major over the update scatter dims) the index
//! vector gives the window's start in the operand; a window reaching outside the operand
//! in any dimension is skipped whole, as HloEvaluator does; otherwise every window element
//! is combined as `result = f(result..., update...)` by the compiled combiner
//! (`codegen::scalar_function`), in row-major window order. Updates run sequentially, in
//! the interpreter's order, so duplicate indices combine in the same order on both backends.
//! XLA: `xla/service/cpu/ir_emitter.cc` (scatter through `ScatterExpander`'s loop) and
//! `xla/hlo/evaluator/hlo_evaluator.cc` (`HandleScatter`); see `eval::gather_scatter`.

use super::offset;
use crate::codegen::ScalarFn;
use crate::codegen::denormals::with_flushed_denormals;
use crate::ir::{PrimitiveType, ScatterDimensionNumbers};
use crate::runtime::RuntimeError;
use crate::runtime::memory::{BufferRef, ParallelCopy};
use crate::runtime::memory::{Memory, parallel_copy};

/// A `scatter` on buffers.
#[derive(Clone, Debug)]
pub struct ScatterThunk {
    /// The scatter instruction.
    pub name: String,
    /// The dimension numbers.
    pub dimension_numbers: ScatterDimensionNumbers,
    /// The compiled combiner `(old..., update...) -> new...`.
    pub combiner: ScalarFn,
    /// The combiner computation's name.
    pub combiner_name: String,
    /// The N operands.
    pub operands: Vec<BufferRef>,
    /// The start indices.
    pub indices: BufferRef,
    /// The N updates.
    pub updates: Vec<BufferRef>,
    /// The N results.
    pub results: Vec<BufferRef>,
    /// The plan put every result in its operand's buffer (no copy before the updates).
    pub in_place: bool,
}

/// Reads an integer index element of type `t` at element offset `e`, as `i64` (u64
/// saturates, as the interpreter reads it).
///
/// # Safety
/// `base` must hold an element of type `t` at offset `e`.
unsafe fn read_index(base: *const u8, t: PrimitiveType, e: usize) -> Option<i64> {
    use PrimitiveType as P;
    // SAFETY: the caller guarantees the element exists.
    unsafe {
        let p = base.add(e * t.byte_size());
        Some(match t {
            P::S8 => i64::from(p.cast::<i8>().read_unaligned()),
            P::S16 => i64::from(p.cast::<i16>().read_unaligned()),
            P::S32 => i64::from(p.cast::<i32>().read_unaligned()),
            P::S64 => p.cast::<i64>().read_unaligned(),
            P::U8 => i64::from(p.read_unaligned()),
            P::U16 => i64::from(p.cast::<u16>().read_unaligned()),
            P::U32 => i64::from(p.cast::<u32>().read_unaligned()),
            P::U64 => p.cast::<u64>().read_unaligned().min(i64::MAX as u64) as i64,
            _ => return None,
        })
    }
}

fn usize_dims(b: &BufferRef) -> Vec<usize> {
    b.shape.dims.iter().map(|&d| d.max(0) as usize).collect()
}

/// Runs a scatter.
pub fn run(t: &ScatterThunk, memory: &Memory) -> Result<(), RuntimeError> {
    let fail = |m: &str| RuntimeError::new(format!("{}: {m}", t.name));
    let d = &t.dimension_numbers;
    let n = t.operands.len();
    if n == 0 || t.updates.len() != n || t.results.len() != n {
        return Err(fail("scatter takes N operands, the indices and N updates"));
    }
    let op_dims = usize_dims(&t.results[0]);
    let up_dims = usize_dims(&t.updates[0]);
    let idx_dims = usize_dims(&t.indices);
    let rank = op_dims.len();
    if t.results.iter().any(|r| usize_dims(r) != op_dims)
        || t.updates.iter().any(|u| usize_dims(u) != up_dims)
    {
        return Err(fail("scatter operands (and updates) must agree in shape"));
    }
    let in_range = |v: &[usize], bound: usize| v.iter().all(|&x| x < bound);
    if !in_range(&d.update_window_dims, up_dims.len())
        || !in_range(&d.inserted_window_dims, rank)
        || !in_range(&d.scatter_dims_to_operand_dims, rank)
        || !in_range(&d.input_batching_dims, rank)
        || d.index_vector_dim > idx_dims.len()
    {
        return Err(fail("scatter dimension numbers are out of range"));
    }
    let scatter_up: Vec<usize> = (0..up_dims.len())
        .filter(|x| !d.update_window_dims.contains(x))
        .collect();
    let window_operand: Vec<usize> = (0..rank)
        .filter(|x| !d.inserted_window_dims.contains(x) && !d.input_batching_dims.contains(x))
        .collect();
    if window_operand.len() != d.update_window_dims.len() {
        return Err(fail(
            "update_window_dims do not match the operand's window dims",
        ));
    }
    let mut window_size = vec![1usize; rank];
    for (&o, &u) in window_operand.iter().zip(&d.update_window_dims) {
        window_size[o] = up_dims[u];
    }
    // The indices dims other than index_vector_dim pair up with the update scatter dims.
    let idx_batch: Vec<usize> = (0..idx_dims.len())
        .filter(|&x| x != d.index_vector_dim)
        .collect();
    let vector_size = idx_dims.get(d.index_vector_dim).copied().unwrap_or(1);
    if idx_batch.len() != scatter_up.len() || vector_size != d.scatter_dims_to_operand_dims.len() {
        return Err(fail("the indices do not match the update scatter dims"));
    }
    if d.scatter_indices_batching_dims.len() != d.input_batching_dims.len() {
        return Err(fail("operand and indices batching dims differ in number"));
    }
    // For each operand batching dim: which update scatter dim carries its coordinate.
    let mut batching = Vec::new();
    for b in &d.scatter_indices_batching_dims {
        let k = idx_batch
            .iter()
            .position(|x| x == b)
            .ok_or_else(|| fail("an indices batching dim is the index vector dim"))?;
        batching.push(k);
    }
    let idx_strides = t.indices.shape.physical_strides();
    let component_stride = idx_strides.get(d.index_vector_dim).copied().unwrap_or(0);
    let idx_type = t.indices.shape.element_type;
    if !idx_type.is_integral() {
        return Err(fail("scatter indices must be integers"));
    }
    // Indices and updates are read while the results are written: stage any of them that
    // shares bytes with a result before the operands are copied in.
    let reads: Vec<&BufferRef> = std::iter::once(&t.indices).chain(&t.updates).collect();
    let (read_ptrs, _staged) = super::inputs_safe_from(&reads, &t.results, memory);
    parallel_copy(&ParallelCopy::new(&t.operands, &t.results), memory);
    if up_dims.contains(&0) {
        return Ok(());
    }
    let res_strides: Vec<Vec<usize>> = t
        .results
        .iter()
        .map(|r| r.shape.physical_strides())
        .collect();
    let up_strides: Vec<Vec<usize>> = t
        .updates
        .iter()
        .map(|u| u.shape.physical_strides())
        .collect();
    let res_ptrs: Vec<*mut u8> = t.results.iter().map(|r| memory.ptr(r.slice)).collect();
    let up_ptrs: Vec<*mut u8> = read_ptrs[1..].to_vec();
    let res_sizes: Vec<usize> = t
        .results
        .iter()
        .map(|r| r.shape.element_type.byte_size())
        .collect();
    let up_sizes: Vec<usize> = t
        .updates
        .iter()
        .map(|u| u.shape.element_type.byte_size())
        .collect();
    let idx_ptr = read_ptrs[0];

    let scatter_sizes: Vec<usize> = scatter_up.iter().map(|&x| up_dims[x]).collect();
    let window_sizes: Vec<usize> = d.update_window_dims.iter().map(|&x| up_dims[x]).collect();
    let mut params: Vec<*const u8> = vec![std::ptr::null(); 2 * n];
    let mut outs: Vec<*mut u8> = vec![std::ptr::null_mut(); n];
    let mut up_idx = vec![0usize; up_dims.len()];
    let mut idx_idx = vec![0usize; idx_dims.len()];
    let mut start = vec![0i64; rank];
    let mut op_idx = vec![0usize; rank];
    let mut result = Ok(());
    with_flushed_denormals(|| {
        super::for_each_index(&scatter_sizes, None, &mut |s_idx| {
            if result.is_err() {
                return;
            }
            up_idx.iter_mut().for_each(|i| *i = 0);
            for (&u, &i) in scatter_up.iter().zip(s_idx) {
                up_idx[u] = i;
            }
            for (&x, &i) in idx_batch.iter().zip(s_idx) {
                idx_idx[x] = i;
            }
            let base = offset(&idx_idx, &idx_strides);
            start.iter_mut().for_each(|s| *s = 0);
            for (k, &o) in d.scatter_dims_to_operand_dims.iter().enumerate() {
                // SAFETY: `base + k * component_stride` is an element of the indices.
                match unsafe { read_index(idx_ptr, idx_type, base + k * component_stride) } {
                    Some(v) => start[o] = v,
                    None => result = Err(fail("unsupported index type").unsupported()),
                }
            }
            for (&o, &b) in d.input_batching_dims.iter().zip(&batching) {
                start[o] += s_idx[b] as i64;
            }
            let in_bounds = (0..rank)
                .all(|x| start[x] >= 0 && start[x] <= op_dims[x] as i64 - window_size[x] as i64);
            if !in_bounds {
                return;
            }
            super::for_each_index(&window_sizes, None, &mut |w_idx| {
                for (x, s) in start.iter().enumerate() {
                    op_idx[x] = *s as usize;
                }
                for (k, &w) in w_idx.iter().enumerate() {
                    op_idx[window_operand[k]] += w;
                    up_idx[d.update_window_dims[k]] = w;
                }
                for i in 0..n {
                    let o = offset(&op_idx, &res_strides[i]) * res_sizes[i];
                    let u = offset(&up_idx, &up_strides[i]) * up_sizes[i];
                    // SAFETY: `op_idx` is inside the result (the window is in bounds) and
                    // `up_idx` inside the update.
                    unsafe {
                        outs[i] = res_ptrs[i].add(o);
                        params[i] = outs[i];
                        params[n + i] = up_ptrs[i].add(u);
                    }
                }
                // SAFETY: the combiner reads the 2N scalars and then writes the N results;
                // it loads every parameter before storing, so `params[i] == outs[i]` is fine.
                unsafe { (t.combiner)(params.as_ptr(), outs.as_ptr()) };
            });
        });
    });
    result
}
