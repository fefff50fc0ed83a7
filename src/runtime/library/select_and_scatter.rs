//! `select-and-scatter` as a native routine (the gradient of a max-pool): the result is
//! filled with `init`; then for each `source` element (row-major) its window over the
//! operand is searched: the first valid position starts selected, and each later position
//! `c` replaces the choice when the compiled `select(selected, c)` is false; the source
//! value is combined into the result at the selected position by the compiled
//! `scatter(source, result)` (HloEvaluator's argument order). Positions in the padding or
//! in the holes of a base dilation are not candidates; a window with none selects nothing.
//! XLA: `xla/service/cpu/ir_emitter.cc` (`HandleSelectAndScatter`),
//! `xla/hlo/evaluator/hlo_evaluator.cc`; see `eval::reduce::select_and_scatter`.

use super::offset;
use crate::codegen::ScalarFn;
use crate::codegen::denormals::with_flushed_denormals;
use crate::ir::Window;
use crate::runtime::RuntimeError;
use crate::runtime::memory::BufferRef;
use crate::runtime::memory::Memory;

/// A `select-and-scatter` on buffers.
#[derive(Clone, Debug)]
pub struct SelectAndScatterThunk {
    /// The instruction.
    pub name: String,
    /// The window.
    pub window: Window,
    /// Compiled `(a, b) -> pred`: true keeps `a`.
    pub select: ScalarFn,
    /// The select computation's name.
    pub select_name: String,
    /// Compiled `(source, acc) -> acc`.
    pub scatter: ScalarFn,
    /// The scatter computation's name.
    pub scatter_name: String,
    /// The searched operand.
    pub operand: BufferRef,
    /// One value per window position.
    pub source: BufferRef,
    /// The scalar the result starts from.
    pub init: BufferRef,
    /// The result (the operand's shape).
    pub result: BufferRef,
}

/// Runs a select-and-scatter.
pub fn run(t: &SelectAndScatterThunk, memory: &Memory) -> Result<(), RuntimeError> {
    let fail = |m: &str| RuntimeError::new(format!("{}: {m}", t.name));
    let in_dims: Vec<usize> = t
        .operand
        .shape
        .dims
        .iter()
        .map(|&d| d.max(0) as usize)
        .collect();
    let src_dims: Vec<usize> = t
        .source
        .shape
        .dims
        .iter()
        .map(|&d| d.max(0) as usize)
        .collect();
    let rank = in_dims.len();
    let ty = t.operand.shape.element_type;
    if t.window.dimensions.len() != rank
        || src_dims.len() != rank
        || t.result.shape.dims != t.operand.shape.dims
        || [&t.source, &t.init, &t.result]
            .iter()
            .any(|b| b.shape.element_type != ty)
    {
        return Err(fail("operand, source, init and result do not fit together"));
    }
    // Per dimension and source coordinate: the valid operand coordinates of the window.
    let mut per_dim: Vec<Vec<Vec<usize>>> = Vec::with_capacity(rank);
    for (d, wd) in t.window.dimensions.iter().enumerate() {
        if wd.stride < 1 || wd.window_dilation < 1 || wd.base_dilation < 1 || wd.size < 0 {
            return Err(fail(&format!("invalid window dimension {d}")));
        }
        per_dim.push(
            (0..src_dims[d] as i64)
                .map(|o| {
                    (0..wd.size)
                        .filter_map(|w| {
                            let b = o * wd.stride + w * wd.window_dilation - wd.padding_low;
                            if b % wd.base_dilation != 0 {
                                return None;
                            }
                            let i = b / wd.base_dilation;
                            (0..in_dims[d] as i64).contains(&i).then_some(i as usize)
                        })
                        .collect()
                })
                .collect(),
        );
    }
    let size = ty.byte_size();
    // The result is filled first: stage any input sharing its bytes.
    let (inputs, _staged) = super::inputs_safe_from(
        &[&t.operand, &t.source, &t.init],
        std::slice::from_ref(&t.result),
        memory,
    );
    let (operand, source, init) = (inputs[0], inputs[1], inputs[2]);
    let result = memory.ptr(t.result.slice);
    let count = t.result.shape.element_count();
    for e in 0..count {
        // SAFETY: `init` holds one element; the result `count` elements.
        unsafe { std::ptr::copy_nonoverlapping(init, result.add(e * size), size) };
    }
    let in_strides = t.operand.shape.physical_strides();
    let out_strides = t.result.shape.physical_strides();
    let src_strides = t.source.shape.physical_strides();
    let mut keep = 0u8;
    let keep_out: [*mut u8; 1] = [&mut keep];
    let mut candidate = vec![0usize; rank];
    let mut pick = vec![0usize; rank];
    with_flushed_denormals(|| {
        super::for_each_index(&src_dims, None, &mut |s| {
            let lists: Vec<&Vec<usize>> = (0..rank).map(|d| &per_dim[d][s[d]]).collect();
            if lists.iter().any(|l| l.is_empty()) {
                return;
            }
            let sizes: Vec<usize> = lists.iter().map(|l| l.len()).collect();
            let mut first = true;
            super::for_each_index(&sizes, None, &mut |w| {
                for d in 0..rank {
                    candidate[d] = lists[d][w[d]];
                }
                if first {
                    pick.copy_from_slice(&candidate);
                    first = false;
                    return;
                }
                // SAFETY: both coordinates are inside the operand.
                let params: [*const u8; 2] = unsafe {
                    [
                        operand.add(offset(&pick, &in_strides) * size),
                        operand.add(offset(&candidate, &in_strides) * size),
                    ]
                };
                // SAFETY: `select` reads two scalars and writes one pred byte.
                unsafe { (t.select)(params.as_ptr(), keep_out.as_ptr()) };
                if keep == 0 {
                    pick.copy_from_slice(&candidate);
                }
            });
            // SAFETY: `s` is inside the source and `pick` inside the result.
            unsafe {
                let acc = result.add(offset(&pick, &out_strides) * size);
                let params: [*const u8; 2] = [source.add(offset(s, &src_strides) * size), acc];
                let outs: [*mut u8; 1] = [acc];
                (t.scatter)(params.as_ptr(), outs.as_ptr());
            }
        });
    });
    Ok(())
}
