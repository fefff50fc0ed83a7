//! `fusion`: producer–consumer fusion with XLA:CPU's policy. The driver visits every
//! non-fused computation (entry, while/conditional/call bodies; not reducers or other
//! embedded scalar code) consumers first, in reverse post-order; for each consumer it tries
//! its operands, latest producer first, asks the policy (`cpu_fusion_policy.rs`), logs
//! the answer, and after a fusion starts over on the grown fusion. A plain consumer
//! becomes a fusion named `<producer_opcode>_<consumer_opcode>_fusion` calling
//! `fused_computation` (both uniquified) the first time something is fused into it.
//! XLA: `InstructionFusion::RunImpl` (`xla/service/instruction_fusion.cc`),
//! `xla/service/cpu/cpu_instruction_fusion.cc`.
//!
//! Not here: merging fusions (a fusion is never a producer on CPU), multi-output fusion
//! (`multi_output_fusion.rs`), wrapping leftovers (`fusion_wrapper.rs`).

use std::collections::{HashMap, HashSet};

use super::DecisionLog;
use super::cpu_fusion_policy::{PolicyContext, distinct, should_fuse};
use super::decisions::{FusionDecision, log_decision};
use super::fusion_instruction::{
    Namer, OuterBooks, fuse_producer, non_fused_computations, wrap_instruction_booked,
};
use super::indexing::BodySummary;
use crate::ir::kernel_ops::is_free;
use crate::ir::{ComputationId, InstrId, Module, Op, Opcode};
use crate::pipeline::{Pass, PassError};

/// The `fusion` pass; its decisions go to the shared log.
pub struct CpuInstructionFusion {
    log: DecisionLog,
}

impl Pass for CpuInstructionFusion {
    fn name(&self) -> &'static str {
        "fusion"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut namer = Namer::new(module);
        let mut changed = false;
        for comp in non_fused_computations(module) {
            changed |= self.fuse_computation(module, comp, &mut namer)?;
        }
        Ok(changed)
    }
}

impl CpuInstructionFusion {
    /// A pass that records its decisions in `log`.
    pub fn new(log: DecisionLog) -> CpuInstructionFusion {
        CpuInstructionFusion { log }
    }

    /// Fuses within one computation; returns whether anything was fused.
    ///
    /// Linear in the size of the computation and of the fusions it grows: the outer
    /// computation's users and positions are kept in [`OuterBooks`] (producers fused away
    /// leave `order` once, at the end), and each fusion's body in a [`BodySummary`] updated
    /// on every merge, so no query walks or copies a computation.
    fn fuse_computation(
        &mut self,
        module: &mut Module,
        comp_id: ComputationId,
        namer: &mut Namer,
    ) -> Result<bool, PassError> {
        let mut ours: HashMap<InstrId, BodySummary> = HashMap::new();
        let mut logged: HashSet<(String, String, String)> = HashSet::new();
        let mut changed = false;
        let mut books = OuterBooks::open(&module.computations[comp_id]);
        // Consumers first: pop from the end of a topological order.
        let mut worklist: Vec<InstrId> = module.computations[comp_id].order.clone();
        while let Some(mut consumer) = worklist.pop() {
            if books.dead.contains(&consumer) || !is_candidate_consumer(module, comp_id, consumer) {
                continue;
            }
            'restart: loop {
                let comp = &module.computations[comp_id];
                let mut producers = distinct(&comp.instr(consumer).operands);
                producers.sort_by_key(|p| std::cmp::Reverse(books.position.get(p).copied()));
                for producer in producers {
                    let p = comp.instr(producer);
                    if matches!(p.op, Op::Parameter { .. })
                        || matches!(p.opcode(), Opcode::GetTupleElement | Opcode::Tuple)
                    {
                        continue; // not fusible at all; nothing to explain
                    }
                    let cx = PolicyContext {
                        module,
                        comp,
                        books: &books,
                        ours: &ours,
                    };
                    let verdict = should_fuse(&cx, producer, consumer);
                    let (fused, rule) = match verdict {
                        Ok(r) => (true, r),
                        Err(r) => (false, r),
                    };
                    let producer_name = p.name.clone();
                    let consumer_name = comp.instr(consumer).name.clone();
                    let computation = comp.name.clone();
                    if !fused {
                        let key = (
                            producer_name.clone(),
                            consumer_name.clone(),
                            rule.to_string(),
                        );
                        if logged.insert(key) {
                            self.log.borrow_mut().push(FusionDecision {
                                pass: "fusion",
                                computation,
                                producer: producer_name,
                                consumer: consumer_name,
                                fused,
                                rule,
                                result: None,
                            });
                        }
                        continue;
                    }
                    let producer_op = p.opcode();
                    let first_fusion = !ours.contains_key(&consumer);
                    if first_fusion {
                        let c = module.computations[comp_id].instr(consumer).opcode();
                        let name = format!("{producer_op}_{c}_fusion");
                        consumer = wrap_instruction_booked(
                            module,
                            comp_id,
                            consumer,
                            (&name, "fused_computation"),
                            &mut books,
                            namer,
                        );
                        let Op::Fusion { calls, .. } =
                            module.computations[comp_id].instr(consumer).op
                        else {
                            return Err(PassError::new("wrapping did not make a fusion"));
                        };
                        ours.insert(consumer, BodySummary::of(module.computation(calls)));
                    }
                    let summary = ours
                        .get_mut(&consumer)
                        .ok_or_else(|| PassError::new("fusion without a summary"))?;
                    fuse_producer(
                        module, comp_id, consumer, producer, &mut books, summary, namer,
                    )?;
                    let result = module.computations[comp_id].instr(consumer).name.clone();
                    log_decision(
                        &self.log,
                        FusionDecision {
                            pass: "fusion",
                            computation,
                            producer: producer_name,
                            consumer: consumer_name,
                            fused,
                            rule,
                            result: Some(result),
                        },
                    );
                    changed = true;
                    continue 'restart;
                }
                break;
            }
        }
        books.sweep(&mut module.computations[comp_id]);
        Ok(changed)
    }
}

/// Consumers worth asking about: not free ops, not control flow, no side effects.
fn is_candidate_consumer(module: &Module, comp_id: ComputationId, id: InstrId) -> bool {
    let instr = module.computations[comp_id].instr(id);
    !is_free(instr.opcode())
        && !instr.op.has_side_effect()
        && !matches!(
            instr.opcode(),
            Opcode::While | Opcode::Conditional | Opcode::Call
        )
}

#[cfg(test)]
mod tests;
