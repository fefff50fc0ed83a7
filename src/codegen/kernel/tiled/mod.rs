//! The kernel of a loop fusion that reads an operand across its layout: the output is
//! walked in strips of tiles (`tiled_loops.rs`), so the strided operand's cache lines are
//! used while they are in L1; float fusions with a block form transpose 4x4 (f32) or 2x2
//! (f64) blocks in registers instead (`vector_transpose.rs`).
//! XLA: `xla/codegen/emitters/transpose_emitter.cc` (shared-memory tiles on GPU; the
//! same idea on CPU caches).

pub mod tiled_loops;
pub mod vector_transpose;

use cranelift_codegen::ir::Type;

use super::Entry;
use crate::codegen::CodegenError;
use crate::codegen::elemental::Emitter;
use crate::codegen::kernel::loops::loop_emitter::VectorPlan;
use crate::codegen::kernel::tiled::tiled_loops::TiledSpace;

/// Emits the tiled loops over `tiles`, with in-register transposes of `transpose` lanes
/// when the plan chose them.
pub(super) fn emit<'m>(
    emitter: &mut Emitter<'m, '_, '_>,
    entry: &Entry<'m, '_>,
    tiles: &TiledSpace,
    transpose: Option<Type>,
) -> Result<(), CodegenError> {
    let mut store_root = |this: &mut Emitter<'m, '_, '_>,
                          index: &[cranelift_codegen::ir::Value]| {
        entry.store_root(this, index)
    };
    match transpose {
        Some(vty) => {
            let plan = VectorPlan {
                frame: &entry.frame,
                results: vec![(
                    entry.frame.comp.root,
                    entry.outputs[0],
                    &entry.output_shapes[0],
                )],
                vty,
                store_shift: Vec::new(),
            };
            emitter.vector_tiled_loops(tiles, &plan, entry.begin, entry.end, &mut store_root)
        }
        None => emitter.tiled_loops(tiles, entry.begin, entry.end, &mut store_root),
    }
}
