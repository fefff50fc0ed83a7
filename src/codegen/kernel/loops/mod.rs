//! The kernel of every other fusion: loops over the output's rows in layout order, a work
//! unit being a chunk of a row, a whole row (a row kernel: its reductions run once, before
//! the row's loop), or a GEMM output tile (a kOutput epilogue). Before each row the
//! prologue fills the row cache (`row_cache_emitter.rs`) and hoists the broadcasts the row reads
//! but does not change (`hoist.rs`); the inner loop is vectors of the plan's lane type
//! with a scalar tail, or scalars.
//! XLA: `xla/codegen/emitters/loop_emitter.cc` (loop fusions), the row reductions of
//! `xla/codegen/emitters/reduction_emitter.cc`.

pub mod hoist;
pub mod loop_emitter;
pub mod row_cache_emitter;
pub mod vectorize;

use std::collections::BTreeSet;

use cranelift_codegen::ir::Value;

use super::Entry;
use crate::codegen::CodegenError;
use crate::codegen::elemental::{Emitter, Params};
use crate::codegen::kernel::loops::loop_emitter::VectorPlan;
use crate::codegen::kernel::loops::row_cache_emitter::RowKernel;
use crate::codegen::plan::LoopPlan;
use crate::ir::{ArrayShape, Opcode};

/// Emits the row loops of `plan`.
pub(super) fn emit<'m>(
    emitter: &mut Emitter<'m, '_, '_>,
    entry: &Entry<'m, '_>,
    plan: &LoopPlan,
) -> Result<(), CodegenError> {
    let frame = &entry.frame;
    let fused = frame.comp;
    let root = fused.root_instr();
    let space = &plan.space;
    let cached = &plan.cached;
    let vty = plan.vector;
    let lanes = vty.map_or(1, |t| i64::from(t.lane_count()));
    let starts: Vec<_> = if root.opcode() == Opcode::Tuple {
        root.operands.clone()
    } else {
        vec![fused.root]
    };
    let vector = vty.map(|vty| VectorPlan {
        frame,
        results: starts
            .iter()
            .zip(&entry.outputs)
            .zip(entry.output_shapes)
            .map(|((&r, &out), shape)| (r, out, shape))
            .collect(),
        vty,
        store_shift: Vec::new(),
    });
    // Before each row: the broadcasts the row's loop reads but does not change.
    let minor: BTreeSet<usize> = space.minor.into_iter().collect();
    // Rows that call block routines prefetch their successor meanwhile.
    let calls_routines = cached.iter().any(|c| c.routine.is_some());
    let mut streams: Vec<(Value, ArrayShape)> = Vec::new();
    if calls_routines {
        if let Params::Buffers(buffers) = &frame.params {
            streams.extend(
                buffers
                    .iter()
                    .filter(|p| {
                        p.shape.dims == space.shape.dims && p.shape.layout == space.shape.layout
                    })
                    .map(|p| (p.base, p.shape.clone())),
            );
        }
        streams.extend(
            entry
                .outputs
                .iter()
                .zip(entry.output_shapes)
                .map(|(&p, s)| (p, s.clone())),
        );
    }
    let pointers = (entry.table, entry.pointers.clone());
    let row = RowKernel::start(emitter, cached, space, streams, pointers);
    let mut prologue = |this: &mut Emitter<'m, '_, '_>, index: &[Value]| {
        row.before_row(this, frame, space, index, vty)?;
        for &s in &starts {
            this.hoist_invariant_broadcasts(frame, s, index, &minor)?;
        }
        Ok(())
    };
    let mut store_root =
        |this: &mut Emitter<'m, '_, '_>, index: &[Value]| entry.store_root(this, index);
    emitter.work_unit_loops_vectorized(
        space,
        entry.begin,
        entry.end,
        lanes,
        vector.as_ref(),
        Some(&mut prologue),
        &mut store_root,
    )
}
