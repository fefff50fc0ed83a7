//! The compiled backend's collective thunk: operand buffers go to the device runtime as
//! they are when they are row-major and do not overlap a result, else through a row-major
//! staging copy; results come back the same way.

use super::op::CollectiveOp;
use super::reduction::Reducer;
use super::{ArrayView, ArrayViewMut};
use crate::ir::ArrayShape;
use crate::layout::Slice;
use crate::runtime::RuntimeError;
use crate::runtime::buffers::copy_array;
use crate::runtime::context::Context;
use crate::runtime::memory::BufferRef;
use crate::runtime::thunk::{CollectiveReducer, CollectiveThunk};

/// A staging buffer, 8-byte aligned.
fn staging(bytes: usize) -> Vec<u64> {
    vec![0u64; bytes.div_ceil(8)]
}

fn overlaps(a: Slice, b: Slice) -> bool {
    a.allocation == b.allocation && a.offset < b.offset + b.size && b.offset < a.offset + a.size
}

fn direct(b: &BufferRef) -> bool {
    b.shape.rank() <= 1 || b.shape.layout.is_row_major()
}

/// Runs a collective thunk as this context's device.
pub fn run(c: &CollectiveThunk, ctx: &mut Context<'_>) -> Result<(), RuntimeError> {
    let instr = &c.instruction;
    let collectives = ctx.device.collectives.clone();
    let grid = collectives.grid().clone();
    let op: CollectiveOp = {
        let mut cached = c.resolved.lock().unwrap_or_else(|e| e.into_inner());
        match cached.as_ref() {
            Some((g, op)) if *g == grid => op.clone(),
            _ => {
                let op = CollectiveOp::from_instruction(ctx.evaluator.module, instr, &grid, None)
                    .map_err(|e| RuntimeError::new(e.headline()))?;
                *cached = Some((grid.clone(), op.clone()));
                op
            }
        }
    };
    let row = |b: &BufferRef| ArrayShape::new(b.shape.element_type, &b.shape.dims);
    let operand_shapes: Vec<ArrayShape> = c.operands.iter().map(row).collect();
    let result_shapes: Vec<ArrayShape> = c.results.iter().map(row).collect();
    // Operands that are not row-major, or that a result overwrites, are staged.
    let mut staged_in: Vec<Option<Vec<u64>>> = Vec::with_capacity(c.operands.len());
    for (b, shape) in c.operands.iter().zip(&operand_shapes) {
        let clash = c.results.iter().any(|r| overlaps(r.slice, b.slice));
        if direct(b) && !clash {
            staged_in.push(None);
        } else {
            let mut tmp = staging(shape.byte_size());
            // SAFETY: the slice holds `b.shape`; `tmp` holds its row-major form.
            unsafe {
                copy_array(
                    ctx.memory.ptr(b.slice),
                    &b.shape,
                    tmp.as_mut_ptr().cast(),
                    shape,
                )
            };
            staged_in.push(Some(tmp));
        }
    }
    let mut staged_out: Vec<Option<Vec<u64>>> = c
        .results
        .iter()
        .zip(&result_shapes)
        .map(|(b, s)| (!direct(b)).then(|| staging(s.byte_size())))
        .collect();
    let operands: Vec<ArrayView<'_>> = c
        .operands
        .iter()
        .zip(&operand_shapes)
        .zip(&staged_in)
        .map(|((b, shape), st)| {
            let len = shape.byte_size();
            let data: &[u8] = match st {
                // SAFETY: the staging buffer holds at least `len` bytes.
                Some(v) => unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), len) },
                // SAFETY: the slice holds the row-major operand, `len` bytes.
                None => unsafe { std::slice::from_raw_parts(ctx.memory.ptr(b.slice), len) },
            };
            ArrayView { shape, data }
        })
        .collect();
    let mut results: Vec<ArrayViewMut<'_>> = c
        .results
        .iter()
        .zip(&result_shapes)
        .zip(staged_out.iter_mut())
        .map(|((b, shape), st)| {
            let len = shape.byte_size();
            let data: &mut [u8] = match st {
                // SAFETY: as above.
                Some(v) => unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), len) },
                // SAFETY: the slice holds the result; no operand view overlaps it.
                None => unsafe { std::slice::from_raw_parts_mut(ctx.memory.ptr(b.slice), len) },
            };
            ArrayViewMut { shape, data }
        })
        .collect();
    let reducer: Option<&dyn Reducer> = match &c.reducer {
        Some(CollectiveReducer::Native(n)) => Some(n),
        Some(CollectiveReducer::Compiled(f)) => Some(f),
        None => None,
    };
    collectives
        .collective(ctx.device.device, &op, reducer, &operands, &mut results)
        .map_err(|e| RuntimeError::new(e.headline()))?;
    drop(results);
    for ((b, shape), st) in c.results.iter().zip(&result_shapes).zip(&staged_out) {
        if let Some(v) = st {
            // SAFETY: `v` holds the row-major result; the slice holds `b.shape`.
            unsafe { copy_array(v.as_ptr().cast(), shape, ctx.memory.ptr(b.slice), &b.shape) };
        }
    }
    Ok(())
}
