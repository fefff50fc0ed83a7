//! `multi_output_fusion`: sibling, then producer-consumer multi-output fusion. Two kernels
//! that read the same large input, neither reading the other's result, whose loops run
//! over the same index space, become one fusion with a tuple root, so the shared input is
//! read once and one kernel launches instead of two. Candidates are `kLoop`/`kInput`
//! fusions and standalone ops that would become kernels (wrapped on the spot). XLA:CPU has
//! this only behind `xla_cpu_use_multi_output_fusion`; xlac runs it by default. Then,
//! outside while bodies, a loop fusion that reads another loop fusion's outputs at its own
//! index joins it as one more output (see `find_producer_consumer`).
//! XLA: `xla/service/multi_output_fusion.cc`, `xla/service/gpu/multi_output_fusion.cc`
//! (its sibling and producer-consumer parts).
//!
//! # The contract with codegen
//!
//! A multi-output fusion's root is a `tuple` of its outputs and the fusion's shape is the
//! tuple of their shapes. Every output has the same dims and layout (the "index space"),
//! and reduce outputs reduce operands of the same dims over the same dimensions, so one
//! loop nest over the index space computes every output element; the buffer table lists
//! the outputs in tuple order after the operands. Users read the outputs through
//! `get-tuple-element`.

use std::collections::HashSet;

use super::DecisionLog;
use super::cpu_fusion_policy::{distinct, has_control_edges};
use super::decisions::{FusionDecision, FusionRule, MAX_REDUCTIONS_PER_FUSION, log_decision};
use super::fusion_instruction::{
    Namer, fused_outputs, merge_sibling_fusions, non_fused_computations, wrap_instruction,
};
use crate::ir::kernel_ops::{is_free, is_kernel_instruction};
use crate::ir::{Computation, ComputationId, FusionKind, InstrId, Module, Op, Opcode};
use crate::pipeline::{Pass, PassError};

/// The `multi_output_fusion` pass; its decisions go to the shared log.
pub struct MultiOutputFusion {
    log: DecisionLog,
}

impl MultiOutputFusion {
    /// A pass that records its decisions in `log`.
    pub fn new(log: DecisionLog) -> MultiOutputFusion {
        MultiOutputFusion { log }
    }
}

impl Pass for MultiOutputFusion {
    fn name(&self) -> &'static str {
        "multi_output_fusion"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut namer = Namer::new(module);
        let mut changed = false;
        let loops = loop_computations(module);
        for comp_id in non_fused_computations(module) {
            let mut logged: HashSet<(String, String, String)> = HashSet::new();
            while let Some((a, b, shared)) = self.find_pair(module, comp_id, &mut logged) {
                let a = as_fusion(module, comp_id, a, &mut namer);
                let b = as_fusion(module, comp_id, b, &mut namer);
                let comp = &module.computations[comp_id];
                let (a_name, b_name) = (comp.instr(a).name.clone(), comp.instr(b).name.clone());
                // The one with a single output goes into the other.
                let (from, into) = if comp.instr(a).shape.is_tuple() {
                    (b, a)
                } else {
                    (a, b)
                };
                let rule = FusionRule::SiblingMultiOutput { shared };
                self.merge(
                    module,
                    comp_id,
                    (from, into),
                    (a_name, b_name),
                    rule,
                    &mut namer,
                )?;
                changed = true;
            }
            if loops.contains(&comp_id) {
                continue;
            }
            while let Some((producer, consumer)) = find_producer_consumer(module, comp_id) {
                let comp = &module.computations[comp_id];
                let (p_name, c_name) = (
                    comp.instr(producer).name.clone(),
                    comp.instr(consumer).name.clone(),
                );
                let rule = FusionRule::ProducerConsumerMultiOutput;
                let pair = (consumer, producer);
                self.merge(module, comp_id, pair, (p_name, c_name), rule, &mut namer)?;
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// The bodies and conditions of while loops. Producer-consumer merges stay out of them:
/// in the LSTM's step, merging the new cell state's loop with the new hidden state's made
/// both loop-carried values outputs of one fusion, which copy insertion then copied every
/// step (two more copies per iteration), and the merged loop lost the row cache of its
/// transcendentals: 10.0-11.6 -> 11.5-12.1 ms.
fn loop_computations(module: &Module) -> HashSet<ComputationId> {
    module
        .computations
        .iter()
        .flat_map(|(_, c)| c.iter())
        .filter_map(|(_, instr)| match instr.op {
            Op::While { condition, body } => Some([condition, body]),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The first loop fusion (the consumer) that reads another loop fusion's outputs (the
/// producer's) and may be merged into it: the Adam update that reads the new moments
/// another loop wrote (instruction fusion keeps them apart: the moments are outputs, and
/// computing them twice would read their inputs twice). Both iterate over the same index
/// space with no reductions, the consumer reads those outputs only through elementwise
/// ops at its own index, and none of its other operands depends on the producer. The
/// outputs it read stay outputs of the merged loop, so every value is rounded as before
/// (a product that is an output has two uses and is never contracted into an add).
/// XLA: the producer-consumer part of `xla/service/gpu/multi_output_fusion.cc`.
fn find_producer_consumer(module: &Module, comp_id: ComputationId) -> Option<(InstrId, InstrId)> {
    let comp = &module.computations[comp_id];
    let loop_fusion = |id: InstrId| {
        matches!(
            comp.instr(id).op,
            Op::Fusion {
                kind: FusionKind::Loop,
                ..
            }
        ) && reductions(module, comp, id) == 0
            && !has_control_edges(comp, id)
    };
    let producer_of = |o: InstrId| match comp.instr(o).op {
        Op::GetTupleElement { .. } => Some(comp.instr(o).operands[0]),
        Op::Fusion { .. } => Some(o),
        _ => None,
    };
    for &consumer in &comp.order {
        let c = comp.instr(consumer);
        let Op::Fusion { calls, .. } = c.op else {
            continue;
        };
        if !loop_fusion(consumer) || c.shape.as_array().is_none_or(|a| a.element_count() <= 1) {
            continue;
        }
        let space = index_space(module, comp, consumer);
        for producer in distinct(
            &c.operands
                .iter()
                .filter_map(|&o| producer_of(o))
                .collect::<Vec<_>>(),
        ) {
            if !loop_fusion(producer) || index_space(module, comp, producer) != space {
                continue;
            }
            let reads = |o: InstrId| producer_of(o) == Some(producer);
            let independent = c
                .operands
                .iter()
                .all(|&o| reads(o) || (o != producer && !reaches(comp, o, producer)));
            let body = module.computation(calls);
            let elementwise = body
                .parameters()
                .iter()
                .enumerate()
                .all(|(i, &p)| !reads(c.operands[i]) || read_elementwise(body, p));
            if independent && elementwise {
                return Some((producer, consumer));
            }
        }
    }
    None
}

/// True if every use of `param` in `body`, and of the values computed from it, is an
/// elementwise op over the same dims: the value is read at the loop's own index.
fn read_elementwise(body: &Computation, param: InstrId) -> bool {
    let users = body.users();
    let dims = body.instr(param).shape.dims().to_vec();
    let mut stack = vec![param];
    let mut seen = HashSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        for &u in &users[v] {
            let instr = body.instr(u);
            if !instr.opcode().is_elementwise() || instr.shape.dims() != dims.as_slice() {
                return false;
            }
            stack.push(u);
        }
    }
    true
}

impl MultiOutputFusion {
    /// Merges fusion `from` into fusion `into` and logs it as `names` (the decision's
    /// producer and consumer) fused by `rule`.
    fn merge(
        &self,
        module: &mut Module,
        comp_id: ComputationId,
        (from, into): (InstrId, InstrId),
        (producer, consumer): (String, String),
        rule: FusionRule,
        namer: &mut Namer,
    ) -> Result<(), PassError> {
        let merged = merge_sibling_fusions(module, comp_id, from, into, namer)?;
        let comp = &module.computations[comp_id];
        log_decision(
            &self.log,
            FusionDecision {
                pass: "multi_output_fusion",
                computation: comp.name.clone(),
                producer,
                consumer,
                fused: true,
                rule,
                result: Some(comp.instr(merged).name.clone()),
            },
        );
        Ok(())
    }

    /// The first pair of siblings that may be merged, with the name of the input they
    /// share; logs the refused pairs it passes over (once each).
    fn find_pair(
        &self,
        module: &Module,
        comp_id: ComputationId,
        logged: &mut HashSet<(String, String, String)>,
    ) -> Option<(InstrId, InstrId, String)> {
        let comp = &module.computations[comp_id];
        let users = comp.users();
        for &shared in &comp.order {
            let candidates: Vec<InstrId> = distinct(&users[shared])
                .into_iter()
                .filter(|&u| is_candidate(comp, u))
                .collect();
            if candidates.len() < 2 {
                continue;
            }
            let x = comp.instr(shared);
            let small = x
                .shape
                .leaves()
                .iter()
                .map(|l| l.element_count())
                .sum::<usize>()
                <= 1
                || x.opcode() == Opcode::Constant;
            for (i, &a) in candidates.iter().enumerate() {
                for &b in &candidates[i + 1..] {
                    let verdict = if small {
                        Err(FusionRule::SiblingInputTooSmall)
                    } else {
                        check_siblings(module, comp, a, b)
                    };
                    match verdict {
                        Ok(()) => return Some((a, b, x.name.clone())),
                        Err(rule) => {
                            let key = (
                                comp.instr(a).name.clone(),
                                comp.instr(b).name.clone(),
                                rule.to_string(),
                            );
                            if logged.insert(key) && !small {
                                self.log.borrow_mut().push(FusionDecision {
                                    pass: "multi_output_fusion",
                                    computation: comp.name.clone(),
                                    producer: comp.instr(a).name.clone(),
                                    consumer: comp.instr(b).name.clone(),
                                    fused: false,
                                    rule,
                                    result: None,
                                });
                            }
                        }
                    }
                }
            }
        }
        None
    }
}

/// Fusions of kind loop or input, and standalone ops that will become kernels.
fn is_candidate(comp: &Computation, id: InstrId) -> bool {
    let instr = comp.instr(id);
    match instr.op {
        Op::Fusion { kind, .. } => matches!(kind, FusionKind::Loop | FusionKind::Input),
        _ => {
            !is_free(instr.opcode())
                && instr.shape.is_array()
                && instr.opcode() != Opcode::DynamicUpdateSlice
                && !instr.op.has_side_effect()
                && is_kernel_instruction(comp, id)
        }
    }
}

/// Why `a` and `b` (both users of one input, `a` first in order) cannot share a loop.
fn check_siblings(
    module: &Module,
    comp: &Computation,
    a: InstrId,
    b: InstrId,
) -> Result<(), FusionRule> {
    if comp.instr(a).shape.is_tuple() && comp.instr(b).shape.is_tuple() {
        return Err(FusionRule::SiblingsIterateDifferently {
            a: "several outputs".into(),
            b: "several outputs".into(),
        });
    }
    let (ka, kb) = (index_space(module, comp, a), index_space(module, comp, b));
    match (&ka, &kb) {
        (Some(x), Some(y)) if x == y => {}
        _ => {
            return Err(FusionRule::SiblingsIterateDifferently {
                a: ka.unwrap_or_else(|| "mixed".into()),
                b: kb.unwrap_or_else(|| "mixed".into()),
            });
        }
    }
    if reaches(comp, b, a) || reaches(comp, a, b) {
        return Err(FusionRule::SiblingsDependent);
    }
    if has_control_edges(comp, a) || has_control_edges(comp, b) {
        return Err(FusionRule::ControlDependency);
    }
    for id in [a, b] {
        if let Some(input_bytes) = column_reduction_root(module, comp, id) {
            return Err(FusionRule::SiblingColumnReduction { input_bytes });
        }
    }
    let count = reductions(module, comp, a) + reductions(module, comp, b);
    if count > MAX_REDUCTIONS_PER_FUSION {
        return Err(FusionRule::SiblingTooManyReductions { count });
    }
    Ok(())
}

/// The input bytes of `id`'s reduction if it is, or its fusion's root is, a large
/// reduction over major dimensions (`cpu_fusion_policy::large_column_reduction`).
fn column_reduction_root(module: &Module, comp: &Computation, id: InstrId) -> Option<u64> {
    let instr = comp.instr(id);
    match instr.op {
        Op::Fusion { calls, .. } => {
            let fused = module.computation(calls);
            super::cpu_fusion_policy::large_column_reduction(fused, fused.root_instr())
        }
        _ => super::cpu_fusion_policy::large_column_reduction(comp, instr),
    }
}

/// The index space a kernel's loop runs over, as text: the outputs' dims and layout, and
/// for reductions the reduced operand's dims and the reduced dimensions. `None` if its
/// outputs disagree.
fn index_space(module: &Module, comp: &Computation, id: InstrId) -> Option<String> {
    let (body, outputs) = match comp.instr(id).op {
        Op::Fusion { calls, .. } => {
            let body = module.computation(calls);
            (body, fused_outputs(body))
        }
        _ => (comp, vec![id]),
    };
    let keys: Vec<String> = outputs
        .iter()
        .map(|&o| {
            let instr = body.instr(o);
            let mut key = match instr.shape.as_array() {
                Some(a) => format!("{:?}{{{:?}}}", a.dims, a.layout.minor_to_major),
                None => "tuple".into(),
            };
            if let Op::Reduce { dimensions, .. } = &instr.op {
                let input = body.instr(instr.operands[0]).shape.dims().to_vec();
                key.push_str(&format!(" reducing {input:?} over {dimensions:?}"));
            }
            key
        })
        .collect();
    let first = keys.first()?.clone();
    keys.iter().all(|k| *k == first).then_some(first)
}

/// True if `from` reads `target`, directly or through other instructions.
fn reaches(comp: &Computation, from: InstrId, target: InstrId) -> bool {
    let mut stack = comp.instr(from).operands.clone();
    let mut seen = HashSet::new();
    while let Some(v) = stack.pop() {
        if v == target {
            return true;
        }
        if seen.insert(v) {
            stack.extend(comp.instr(v).operands.iter().copied());
        }
    }
    false
}

fn reductions(module: &Module, comp: &Computation, id: InstrId) -> usize {
    match comp.instr(id).op {
        Op::Fusion { calls, .. } => module
            .computation(calls)
            .iter()
            .filter(|(_, i)| i.opcode() == Opcode::Reduce)
            .count(),
        _ => usize::from(comp.instr(id).opcode() == Opcode::Reduce),
    }
}

/// `id` itself if it is a fusion, else a `wrapped_<opcode>` fusion of it.
fn as_fusion(
    module: &mut Module,
    comp_id: ComputationId,
    id: InstrId,
    namer: &mut Namer,
) -> InstrId {
    let opcode = module.computations[comp_id].instr(id).opcode();
    if opcode == Opcode::Fusion {
        return id;
    }
    wrap_instruction(
        module,
        comp_id,
        id,
        &format!("wrapped_{opcode}"),
        &format!("wrapped_{opcode}_computation"),
        namer,
    )
}

#[cfg(test)]
mod tests;
