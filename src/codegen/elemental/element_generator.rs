//! Elements a kernel strategy already holds, which the elemental emitter reads instead of
//! computing them again: XLA's `ElementGenerator` overrides (a strategy replaces the
//! generator of an instruction whose values it has at hand), kept as data the strategy
//! fills so that this room knows nothing of loops.
//!
//! Two things are held: rows of an instruction's values in a buffer (the row strategy
//! computes some values over a whole row first, `kernel/loops/row_cache_emitter.rs`), and
//! the buffer pointers as last loaded afresh (a strategy that calls routines reloads them
//! after each call so that no pointer lives across the call). Every other strategy holds
//! nothing, and every read falls through to the usual element code.

use std::collections::HashMap;

use cranelift_codegen::ir::{InstBuilder, Type, Value, types};

use super::{Emitter, data_flags};
use crate::ir::{InstrId, PrimitiveType};

/// What the kernel's strategy holds for element reads; empty unless the strategy fills it.
#[derive(Default)]
pub(crate) struct ElementGenerator {
    /// Rows of values held in a buffer, by (frame, instruction).
    pub(crate) rows: HashMap<(u32, InstrId), HeldRow>,
    /// The buffer pointers as last loaded afresh.
    pub(crate) pointers: Option<PointerLoads>,
}

/// One instruction's values over one row, in a buffer; valid inside the row whose outer
/// index it names.
pub(crate) struct HeldRow {
    /// Where the row's first held element is.
    pub(crate) base: Value,
    /// The row's index: an element is held only at these SSA values in every dimension but
    /// `minor`.
    pub(crate) outer: Vec<Value>,
    /// The dimension the row runs along.
    pub(crate) minor: usize,
    /// The first minor index the buffer holds (the unit's chunk start).
    pub(crate) lo: Value,
    /// The type of the held values.
    pub(crate) element_type: PrimitiveType,
}

/// The buffer pointers of a kernel that calls routines, loaded afresh at the start of each
/// row and after its calls. Loaded once in the entry block, a pointer would live across
/// every call: the register allocator then spills it and, inside the row's loops, reloads
/// it and stores it back on every iteration. A fresh load lives only in its loop.
pub(crate) struct PointerLoads {
    /// The kernel's pointer table (its first argument).
    pub(crate) table: Value,
    /// The entry block's loads, in table order: the values the emitter's buffers name.
    pub(crate) entry: Vec<Value>,
    /// The latest loads, in the same order.
    pub(crate) current: Vec<Value>,
}

impl Emitter<'_, '_, '_> {
    /// The latest load of buffer pointer `entry` (itself when the strategy reloads none).
    pub(crate) fn base(&self, entry: Value) -> Value {
        self.generator
            .pointers
            .as_ref()
            .and_then(|r| {
                r.entry
                    .iter()
                    .position(|&e| e == entry)
                    .map(|k| r.current[k])
            })
            .unwrap_or(entry)
    }

    /// The held element (`vty: None`) or vector of `id` at `index`, if the strategy holds
    /// `id`'s row and `index` lies in it.
    pub(crate) fn row_cached(
        &mut self,
        frame_id: u32,
        id: InstrId,
        index: &[Value],
        vty: Option<Type>,
    ) -> Option<Value> {
        let row = self.generator.rows.get(&(frame_id, id))?;
        if index.len() != row.outer.len()
            || (0..index.len()).any(|d| d != row.minor && index[d] != row.outer[d])
        {
            return None;
        }
        let (base, t, lo) = (row.base, row.element_type, row.lo);
        let j = self.b.ins().isub(index[row.minor], lo);
        let size = t.byte_size() as i64;
        let bytes = self.b.ins().imul_imm_s(j, size);
        let addr = self.b.ins().iadd(base, bytes);
        let ty = vty.unwrap_or(if t == PrimitiveType::F64 {
            types::F64
        } else {
            types::F32
        });
        Some(self.b.ins().load(ty, data_flags(), addr, 0))
    }
}
