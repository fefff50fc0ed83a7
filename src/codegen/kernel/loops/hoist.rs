//! Loop-invariant broadcasts, computed before the loop that reads them: the codegen half of
//! `fusion/loop_invariance.rs`. Before a kernel's row loop (and before a reduction's loop),
//! the emitter walks from what the loop evaluates through elementwise ops that pass their
//! index through unchanged; at each broadcast whose operand does not depend on the
//! dimensions the loop runs along, it emits the operand now, at the index the loop body will
//! ask for. The emitter's cache is keyed by index *values*, and those are the same SSA
//! values inside the loop, so the loop body finds the operand instead of recomputing it.
//! That turns softmax's `exp(x - broadcast(max(x)))` into one maximum per row, not one per
//! element.
//! XLA keeps such values in registers through LLVM's loop-invariant code motion; Cranelift
//! hoists only single pure instructions out of loops, never a whole reduction loop
//! (its loop-invariant code motion works per instruction), so the emitter does it itself.

use std::collections::{BTreeSet, HashSet};

use cranelift_codegen::ir::Value;

use crate::codegen::CodegenError;
use crate::codegen::elemental::{Emitter, Frame, Params};
use crate::fusion::loop_invariance::same_index_elementwise;
use crate::ir::{InstrId, Op};

impl<'m> Emitter<'m, '_, '_> {
    /// Emits, ahead of a loop, the operand of every loop-invariant broadcast that `start`
    /// reads at `index` (whose entries for the `varying` dimensions are placeholders: the
    /// loop's induction variables do not exist yet).
    pub fn hoist_invariant_broadcasts(
        &mut self,
        frame: &Frame<'m>,
        start: InstrId,
        index: &[Value],
        varying: &BTreeSet<usize>,
    ) -> Result<(), CodegenError> {
        if !matches!(frame.params, Params::Buffers(_)) {
            return Ok(());
        }
        let comp = frame.comp;
        let mut seen = HashSet::new();
        let mut stack = vec![(start, index.to_vec(), varying.clone())];
        while let Some((id, index, varying)) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let instr = comp.instr(id);
            match &instr.op {
                Op::Broadcast { dimensions } => {
                    let operand = instr.operands[0];
                    if comp.instr(operand).shape.rank() == 0 {
                        continue;
                    }
                    let at: Vec<Value> = dimensions.iter().map(|&d| index[d]).collect();
                    let inner: BTreeSet<usize> = dimensions
                        .iter()
                        .enumerate()
                        .filter(|(_, d)| varying.contains(d))
                        .map(|(k, _)| k)
                        .collect();
                    if inner.is_empty() {
                        self.emit(frame, operand, &at)?;
                    } else {
                        stack.push((operand, at, inner));
                    }
                }
                _ if same_index_elementwise(comp, id) => {
                    for &o in &instr.operands {
                        if comp.instr(o).shape.rank() > 0 {
                            stack.push((o, index.clone(), varying.clone()));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}
