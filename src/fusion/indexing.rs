//! What fusing a producer into a consumer would cost, read off the consumer's fused body:
//! how many times the consumer reads each producer element (operand reuse), and how many
//! times the fused code would evaluate the producer per output element (code duplication).
//! XLA: `FusionNodeIndexingEvaluation` (`xla/service/fusion_node_indexing_evaluation.cc`),
//! `ReusesOperandElements` / `FusionReusesParamElements` (`instruction_fusion.cc`).
//!
//! A plain consumer is looked at as the one-instruction fusion it would become, so one
//! analysis serves both cases.

use std::collections::{HashMap, HashSet};

use super::loop_invariance::LoopInvariance;
use crate::ir::{Computation, InstrId, Instruction, Module, Op, Opcode};

/// A consumer seen as a fused computation: its body, and the outer instruction each
/// parameter stands for.
pub struct ConsumerBody {
    /// The fused computation (a copy; for a plain consumer, a one-instruction body).
    pub body: Computation,
    /// `operands[n]` is the outer value of `parameter(n)`.
    pub operands: Vec<InstrId>,
}

impl ConsumerBody {
    /// The body of `consumer` in `comp`.
    pub fn of(module: &Module, comp: &Computation, consumer: InstrId) -> ConsumerBody {
        let instr = comp.instr(consumer);
        if let Op::Fusion { calls, .. } = instr.op {
            return ConsumerBody {
                body: module.computation(calls).clone(),
                operands: instr.operands.clone(),
            };
        }
        let mut operands: Vec<InstrId> = Vec::new();
        for &o in &instr.operands {
            if !operands.contains(&o) {
                operands.push(o);
            }
        }
        let mut body = Computation::new("consumer");
        let params: Vec<InstrId> = operands
            .iter()
            .enumerate()
            .map(|(number, &o)| {
                body.push(Instruction::new(
                    format!("param_{number}"),
                    comp.instr(o).shape.clone(),
                    Op::Parameter { number },
                    vec![],
                ))
            })
            .collect();
        let mut clone = instr.clone();
        clone.operands = instr
            .operands
            .iter()
            .map(|o| params[operands.iter().position(|x| x == o).unwrap_or(0)])
            .collect();
        body.root = body.push(clone);
        ConsumerBody { body, operands }
    }

    /// The parameter standing for outer value `producer`, if it is an operand.
    pub fn parameter_for(&self, producer: InstrId) -> Option<InstrId> {
        let n = self.operands.iter().position(|&o| o == producer)?;
        self.body.parameters().get(n).copied()
    }

    /// The instructions of the body that read `value`.
    pub fn users_of(&self, value: InstrId) -> Vec<InstrId> {
        self.body
            .iter()
            .filter(|(_, i)| i.operands.contains(&value))
            .map(|(id, _)| id)
            .collect()
    }

    /// How many times one evaluation of the whole body reads each element of `param`:
    /// the largest product of per-instruction reuse along any path to the root. A
    /// broadcast the kernel hoists out of its loop (`loop_invariance.rs`) is not reuse: its
    /// operand is computed once per row, before the loop, and each hoisted operand counts as
    /// one more read of what it reads per element (softmax's row sum reads the exponentials
    /// once more). A value read only before loops counts as read once.
    pub fn reads_per_element(&self, param: InstrId) -> usize {
        let inv = LoopInvariance::of(&self.body);
        if !inv.varies(param) {
            return 1;
        }
        let mut total = self.reads_from(self.body.root, &inv, param);
        for b in inv.hoisted() {
            let operand = self.body.instr(b).operands[0];
            total = total.saturating_add(self.reads_from(operand, &inv, param));
        }
        total.max(1)
    }

    /// Reads of `param` per evaluation of `start`, not looking through hoisted broadcasts.
    fn reads_from(&self, start: InstrId, inv: &LoopInvariance, param: InstrId) -> usize {
        let body = &self.body;
        let mut reads: HashMap<InstrId, usize> = HashMap::new();
        reads.insert(start, 1);
        for &id in body.order.iter().rev() {
            let Some(&r) = reads.get(&id) else { continue };
            if inv.is_hoisted(id) {
                continue;
            }
            let instr = body.instr(id);
            for (j, &o) in instr.operands.iter().enumerate() {
                let f = r.saturating_mul(reuse_factor(body, instr, j));
                let e = reads.entry(o).or_insert(0);
                *e = (*e).max(f);
            }
        }
        reads.get(&param).copied().unwrap_or(0)
    }

    /// True if the body reads `param` only before its loops: once per row.
    pub fn read_once_per_row(&self, param: InstrId) -> bool {
        !LoopInvariance::of(&self.body).varies(param)
    }

    /// How many times the fused code would evaluate the value behind `param` per output
    /// element (`FusionNodeIndexingEvaluation::EvaluateEmittedInstructions`): users that
    /// read it at the index they were asked for share one evaluation; users that compute
    /// a new index (slice, pad, reshape, broadcast, ...) each need their own.
    pub fn emitted_count(&self, param: InstrId) -> usize {
        let body = &self.body;
        let mut indexing_users: HashMap<InstrId, HashSet<InstrId>> = HashMap::new();
        let mut count: HashMap<InstrId, usize> = HashMap::new();
        indexing_users
            .entry(body.root)
            .or_default()
            .insert(body.root);
        for &id in body.order.iter().rev() {
            let users = indexing_users.get(&id).cloned().unwrap_or_default();
            let total = if id == body.root {
                1
            } else {
                users
                    .iter()
                    .map(|u| count.get(u).copied().unwrap_or(0))
                    .sum()
            };
            count.insert(id, total);
            let instr = body.instr(id);
            for &o in &instr.operands {
                let same_index = instr.opcode() == Opcode::Transpose
                    || body.instr(o).shape.dims() == instr.shape.dims()
                        && body.instr(o).shape.is_array() == instr.shape.is_array();
                let entry = indexing_users.entry(o).or_default();
                if same_index {
                    entry.extend(users.iter().copied());
                } else {
                    entry.insert(id);
                }
            }
        }
        count.get(&param).copied().unwrap_or(0)
    }

    /// How many reduce instructions the body holds.
    pub fn reductions(&self) -> usize {
        self.body
            .iter()
            .filter(|(_, i)| i.opcode() == Opcode::Reduce)
            .count()
    }
}

/// Ops whose elemental code does not reuse values computed for other indices, so a second
/// evaluation of a fused producer through them costs a whole second loop
/// (`ElementalIrEmitter::OpInvalidatesCache`).
pub fn invalidates_cache(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::Concatenate
            | Opcode::Dot
            | Opcode::DynamicUpdateSlice
            | Opcode::Pad
            | Opcode::Reduce
            | Opcode::ReduceWindow
    )
}

/// How many times `instr` reads each element of its operand `j` to compute all of its
/// output once: a reduce-window reads each element once per window it lies in; an op with
/// fewer operand elements than output elements (broadcast, pad value, gather) reads each
/// several times; everything else reads each element at most once.
fn reuse_factor(body: &Computation, instr: &Instruction, j: usize) -> usize {
    let operand = &body.instr(instr.operands[j]).shape;
    if let Op::ReduceWindow { window, .. } = &instr.op
        && j < instr.operands.len() / 2
    {
        return window
            .dimensions
            .iter()
            .map(|d| d.size.max(1) as usize)
            .product::<usize>()
            .max(1);
    }
    let elements = |s: &crate::ir::Shape| s.leaves().iter().map(|l| l.element_count()).sum();
    let out: usize = elements(&instr.shape);
    let input: usize = elements(operand);
    if input == 0 {
        return 1;
    }
    (out / input).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::parse_verified;

    fn body_of(hlo: &str, consumer: &str, producer: &str) -> (ConsumerBody, InstrId) {
        let m = parse_verified(hlo);
        let comp = m.entry_computation();
        let b = ConsumerBody::of(&m, comp, comp.find(consumer).unwrap());
        let p = b.parameter_for(comp.find(producer).unwrap()).unwrap();
        (b, p)
    }

    #[test]
    fn reduce_window_reads_each_element_once_per_window() {
        let (b, p) = body_of(
            "HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[8,8]{1,0} parameter(0)
  e = f32[8,8]{1,0} exponential(x)
  c = f32[] constant(0)
  ROOT rw = f32[8,8]{1,0} reduce-window(e, c), window={size=3x3 pad=1_1x1_1}, to_apply=max
}",
            "rw",
            "e",
        );
        assert_eq!(b.reads_per_element(p), 9);
    }

    #[test]
    fn two_slices_evaluate_the_producer_twice() {
        let (b, p) = body_of(
            "HloModule m
ENTRY main {
  x = f32[8]{0} parameter(0)
  e = f32[8]{0} exponential(x)
  s0 = f32[4]{0} slice(e), slice={[0:4]}
  s1 = f32[4]{0} slice(e), slice={[4:8]}
  ROOT a = f32[4]{0} add(s0, s1)
}",
            "s0",
            "e",
        );
        // As a plain consumer, the slice evaluates its operand once per output element.
        assert_eq!(b.emitted_count(p), 1);
        assert_eq!(b.reads_per_element(p), 1);
    }
}
