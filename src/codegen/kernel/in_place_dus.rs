//! The kernel of a fusion whose root is a `dynamic-update-slice` into a parameter, emitted
//! IN PLACE: the runtime guarantees the output buffer already holds operand 0 (the buffer
//! plan shares them), so the kernel iterates over the update and writes only the updated
//! window, at the start indices clamped as HLO clamps them (computed once, before the
//! loops). With a lane type the update is computed and stored as vectors along the minor
//! dimension, contiguous in the output too (a scan writing `ys[i]`).
//! XLA: `xla/codegen/emitters/in_place_dynamic_update_slice_emitter.cc`.

use cranelift_codegen::ir::{InstBuilder, Type, Value};

use super::Entry;
use crate::codegen::CodegenError;
use crate::codegen::elemental::{Emitter, error};
use crate::codegen::kernel::loops::loop_emitter::{IterationSpace, VectorPlan};

/// For each update element `u`, stores it at `clamp(start) + u` in the output.
pub(super) fn emit<'m>(
    emitter: &mut Emitter<'m, '_, '_>,
    entry: &Entry<'m, '_>,
    update: &IterationSpace,
    vector: Option<Type>,
) -> Result<(), CodegenError> {
    let frame = &entry.frame;
    let root = frame.comp.root_instr();
    let output = &entry.output_shapes[0];
    let out = entry.outputs[0];
    let mut starts: Vec<Value> = Vec::with_capacity(update.shape.rank());
    for (d, &size) in update.shape.dims.iter().enumerate() {
        let start_id = *root
            .operands
            .get(2 + d)
            .ok_or_else(|| error(root, "missing start index"))?;
        starts.push(emitter.clamped_start(frame, start_id, output.dims[d] - size)?);
    }
    let plan = vector.map(|vty| VectorPlan {
        frame,
        results: vec![(root.operands[1], out, output)],
        vty,
        store_shift: starts.clone(),
    });
    let lanes = vector.map_or(1, |t| i64::from(t.lane_count()));
    emitter.work_unit_loops_vectorized(
        update,
        entry.begin,
        entry.end,
        lanes,
        plan.as_ref(),
        None,
        &mut |this, index| {
            let target: Vec<Value> = index
                .iter()
                .zip(&starts)
                .map(|(&u, &s)| this.b.ins().iadd(s, u))
                .collect();
            let v = this.emit1(frame, root.operands[1], index)?;
            let offset = this.physical_offset(output, &target);
            this.store_element(out, offset, output.element_type, v);
            Ok(())
        },
    )
}
