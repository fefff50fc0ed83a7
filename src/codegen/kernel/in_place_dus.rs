//! The kernel of a fusion whose root is a `dynamic-update-slice` into a parameter, emitted
//! IN PLACE: the runtime guarantees the output buffer already holds operand 0 (the buffer
//! plan shares them), so the kernel iterates over the update and writes only the updated
//! window, at the start indices clamped as HLO clamps them.
//! XLA: `xla/codegen/emitters/in_place_dynamic_update_slice_emitter.cc`.

use cranelift_codegen::ir::{InstBuilder, types};

use super::Entry;
use crate::codegen::CodegenError;
use crate::codegen::elemental::{Emitter, error};
use crate::codegen::loop_emitter::IterationSpace;
use crate::ir::PrimitiveType;

/// For each update element `u`, stores it at `clamp(start) + u` in the output.
pub(super) fn emit<'m>(
    emitter: &mut Emitter<'m, '_, '_>,
    entry: &Entry<'m, '_>,
    update: &IterationSpace,
) -> Result<(), CodegenError> {
    let frame = &entry.frame;
    let root = frame.comp.root_instr();
    let output = &entry.output_shapes[0];
    let out = entry.outputs[0];
    let update_dims = update.shape.dims.clone();
    emitter.work_unit_loops(update, entry.begin, entry.end, &mut |this, index| {
        let mut target = Vec::with_capacity(index.len());
        for (d, &u) in index.iter().enumerate() {
            let start_id = *root
                .operands
                .get(2 + d)
                .ok_or_else(|| error(root, "missing start index"))?;
            let t = frame
                .comp
                .instr(start_id)
                .shape
                .element_type()
                .unwrap_or(PrimitiveType::S32);
            let s = this.emit1(frame, start_id, &[])?;
            let s = if t.is_signed_integral() {
                this.sign_extend_to(s, types::I64)
            } else {
                this.zero_extend_to(s, types::I64)
            };
            let s = this.clamp_i64(s, 0, (output.dims[d] - update_dims[d]).max(0));
            target.push(this.b.ins().iadd(s, u));
        }
        let v = this.emit1(frame, root.operands[1], index)?;
        let offset = this.physical_offset(output, &target);
        this.store_element(out, offset, output.element_type, v);
        Ok(())
    })
}
