//! Which values of a fused computation a row kernel computes ONCE PER ROW into a row-sized
//! buffer on the stack (its "row cache"), instead of once per use. Softmax is the case that
//! needs it: `exp(x - max)` is read by the row sum (a reduction loop before the row's loop,
//! `loop_invariance.rs`) and again by the division in the row's loop. Recomputing it would
//! double the kernel's most expensive work; a separate kernel would write and read the whole
//! array once more. Cached, the row kernel computes each exponential once and keeps the row
//! in L1 between the two loops. The second use is a native block routine: a cached `exp` or
//! `tanh` of f32 is computed over the whole row by `codegen/block_math` (AVX-512), where
//! the kernel's own f32x4 code is four times narrower (`codegen/kernel/loops/row_cache_emitter.rs`).
//!
//! A value is *row-indexed* when every evaluation of it is at an index of the row being
//! computed: the kernel's row loop asks for `(row, j)`, elementwise ops pass that index on,
//! a hoisted broadcast asks its operand for `(row)`, and a reduction over the row's minor
//! dimension evaluated at `(row)` runs its own loop over `(row, j)`. Each such loop is a
//! *context*. A row-indexed value with the kernel's dimensions, read in two or more contexts,
//! is cached; codegen checks the index values again at every read, so a value this analysis
//! gets wrong is recomputed, never misread.
//!
//! The fusion policy (`cpu_fusion_policy.rs`) asks the same question before fusing an
//! expensive producer that the consumer would read twice, so the kernel it allows is the one
//! codegen emits. XLA:CPU hands such fusions to YNNPACK (`__ynn_fusion` in its optimized HLO
//! of softmax), which computes row by row in a similar way.

use std::collections::{BTreeSet, HashMap};

use super::loop_invariance::same_index_elementwise;
use crate::ir::{Computation, InstrId, Op, Opcode, PrimitiveType, Shape};

/// Bytes of one cached row at most: the whole cache of a kernel must stay in L1 beside the
/// rows it reads.
pub const ROW_CACHE_BYTES: i64 = 16 * 1024;

/// Cached rows per kernel at most.
pub const MAX_CACHED: usize = 3;

/// How an instruction is asked for its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Demand {
    /// At `(row, j)` in the loop named by the instruction that runs it (the root for the
    /// row's own loop, or a reduction).
    AtRow(InstrId),
    /// At `(row)`: once per row, before the loops (a hoisted broadcast's operand).
    AtOuter,
    /// Anywhere else.
    Other,
}

/// The row-cache analysis of one fused computation.
#[derive(Debug, Default)]
pub struct RowCacheAnalysis {
    demands: HashMap<InstrId, BTreeSet<Demand>>,
    /// Elements of the row (the output's physical minor dimension).
    row_length: i64,
    root_dims: Vec<i64>,
}

impl RowCacheAnalysis {
    /// The analysis of `body` (a fused computation, or a consumer seen as one).
    pub fn of(body: &Computation) -> RowCacheAnalysis {
        let root = body.instr(body.root);
        let mut a = RowCacheAnalysis::default();
        if root.opcode() == Opcode::Tuple {
            return a; // Multi-output kernels do not cache rows.
        }
        let Some(shape) = root.shape.as_array() else {
            return a;
        };
        let Some(&minor) = shape.layout.minor_to_major.first() else {
            return a;
        };
        a.row_length = shape.dims[minor];
        a.root_dims = shape.dims.clone();
        let root_dims = shape.dims.clone();
        // The dimensions of a row's outer index, in logical order.
        let outer: Vec<usize> = (0..shape.rank()).filter(|&d| d != minor).collect();
        a.demand(body.root, Demand::AtRow(body.root));
        for &id in body.order.iter().rev() {
            let Some(demands) = a.demands.get(&id).cloned() else {
                continue;
            };
            let instr = body.instr(id);
            for d in demands {
                let operand_demand = |k: usize| -> Demand {
                    let o = body.instr(instr.operands[k]);
                    match (&instr.op, d) {
                        (_, Demand::Other) => Demand::Other,
                        _ if same_index_elementwise(body, id) => d,
                        (Op::Broadcast { dimensions }, Demand::AtRow(_))
                            if *dimensions == outer && o.shape.dims().len() == outer.len() =>
                        {
                            Demand::AtOuter
                        }
                        (Op::Reduce { dimensions, .. }, Demand::AtOuter)
                            if k < instr.operands.len() / 2
                                && *dimensions == [minor]
                                && o.shape.dims() == root_dims.as_slice() =>
                        {
                            Demand::AtRow(id)
                        }
                        _ => Demand::Other,
                    }
                };
                for k in 0..instr.operands.len() {
                    if body.instr(instr.operands[k]).shape.rank() == 0 {
                        continue;
                    }
                    let od = operand_demand(k);
                    a.demand(instr.operands[k], od);
                }
            }
        }
        a
    }

    fn demand(&mut self, id: InstrId, d: Demand) {
        self.demands.entry(id).or_default().insert(d);
    }

    /// The loops (contexts) that evaluate `id` at the row's index, if every evaluation of
    /// it is one of those; `None` when some evaluation is elsewhere.
    pub fn row_contexts(&self, id: InstrId) -> Option<usize> {
        let demands = self.demands.get(&id)?;
        demands
            .iter()
            .all(|d| matches!(d, Demand::AtRow(_)))
            .then_some(demands.len())
    }

    /// True if `id` can live in a row cache: row-indexed, with the kernel's dimensions, of
    /// a float type, and a row of at most [`ROW_CACHE_BYTES`].
    pub fn cacheable(&self, body: &Computation, id: InstrId) -> bool {
        let shape = &body.instr(id).shape;
        self.row_contexts(id).is_some() && self.fits(shape)
    }

    /// True if `id` is worth caching on reuse alone: cacheable and read in two or more
    /// contexts (softmax's exponentials).
    pub fn reused(&self, body: &Computation, id: InstrId) -> bool {
        self.cacheable(body, id) && self.row_contexts(id).unwrap_or(0) >= 2
    }

    fn fits(&self, shape: &Shape) -> bool {
        let Some(a) = shape.as_array() else {
            return false;
        };
        matches!(a.element_type, PrimitiveType::F32 | PrimitiveType::F64)
            && a.dims == self.root_dims
            && self.row_length > 0
            && self.row_length * a.element_type.byte_size() as i64 <= ROW_CACHE_BYTES
    }
}

#[cfg(test)]
mod tests;
