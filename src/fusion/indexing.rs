//! What fusing a producer into a consumer would cost, read off the consumer's fused body:
//! how many times the consumer reads each producer element (operand reuse), and how many
//! times the fused code would evaluate the producer per output element (code duplication).
//! XLA: `FusionNodeIndexingEvaluation` (`xla/service/fusion_node_indexing_evaluation.cc`),
//! `ReusesOperandElements` / `FusionReusesParamElements` (`instruction_fusion.cc`).
//!
//! A plain consumer is looked at as the one-instruction fusion it would become, so one
//! analysis serves both cases.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::loop_invariance::LoopInvariance;
use crate::ir::{Computation, InstrId, Instruction, Module, Op, Opcode};

/// A consumer seen as a fused computation: its body, the outer instruction each parameter
/// stands for, and the analyses the policy reads off the body.
pub struct ConsumerBody<'a> {
    /// The fused computation (borrowed from the module; for a plain consumer, a
    /// one-instruction body).
    pub body: Cow<'a, Computation>,
    /// `operands[n]` is the outer value of `parameter(n)`.
    pub operands: Cow<'a, [InstrId]>,
    /// What the policy reads off `body`.
    pub summary: Cow<'a, BodySummary>,
}

impl<'a> ConsumerBody<'a> {
    /// The body of `consumer` in `comp`, analysed from scratch.
    pub fn of(module: &'a Module, comp: &'a Computation, consumer: InstrId) -> ConsumerBody<'a> {
        let instr = comp.instr(consumer);
        if let Op::Fusion { calls, .. } = instr.op {
            let body = module.computation(calls);
            return ConsumerBody {
                body: Cow::Borrowed(body),
                operands: Cow::Borrowed(&instr.operands),
                summary: Cow::Owned(BodySummary::of(body)),
            };
        }
        let (body, operands) = plain_consumer_body(comp, consumer);
        let summary = BodySummary::of(&body);
        ConsumerBody {
            body: Cow::Owned(body),
            operands: Cow::Owned(operands),
            summary: Cow::Owned(summary),
        }
    }

    /// The body of fusion `consumer` with the summary its pass keeps up to date.
    pub fn with_summary(
        module: &'a Module,
        comp: &'a Computation,
        consumer: InstrId,
        summary: &'a BodySummary,
    ) -> Option<ConsumerBody<'a>> {
        let instr = comp.instr(consumer);
        let Op::Fusion { calls, .. } = instr.op else {
            return None;
        };
        Some(ConsumerBody {
            body: Cow::Borrowed(module.computation(calls)),
            operands: Cow::Borrowed(&instr.operands),
            summary: Cow::Borrowed(summary),
        })
    }

    /// The parameter standing for outer value `producer`, if it is an operand.
    pub fn parameter_for(&self, producer: InstrId) -> Option<InstrId> {
        let n = self.operands.iter().position(|&o| o == producer)?;
        self.summary.parameters.get(n).copied()
    }

    /// The instructions of the body that read `value` (once per use).
    pub fn users_of(&self, value: InstrId) -> &[InstrId] {
        self.summary.users.get(&value).map_or(&[], |u| u.as_slice())
    }

    /// How many times one evaluation of the whole body reads each element of `param`:
    /// the largest product of per-instruction reuse along any path to the root. A
    /// broadcast the kernel hoists out of its loop (`loop_invariance.rs`) is not reuse: its
    /// operand is computed once per row, before the loop, and each hoisted operand counts as
    /// one more read of what it reads per element (softmax's row sum reads the exponentials
    /// once more). A value read only before loops counts as read once.
    pub fn reads_per_element(&self, param: InstrId) -> usize {
        let s = &self.summary;
        if !s.invariance.varies(param) {
            return 1;
        }
        // Saturating sums of non-negative terms do not depend on the order of the terms.
        let Some(reads) = s.reads.get(&param) else {
            return 1;
        };
        let root = reads.get(&Start::Root).copied().unwrap_or(0);
        let hoisted = reads
            .iter()
            .filter(|(start, _)| **start != Start::Root)
            .fold(0usize, |t, (_, &r)| t.saturating_add(r));
        root.saturating_add(hoisted).max(1)
    }

    /// True if the body reads `param` only before its loops: once per row.
    pub fn read_once_per_row(&self, param: InstrId) -> bool {
        !self.summary.invariance.varies(param)
    }

    /// How many times the fused code would evaluate the value behind `param` per output
    /// element (`FusionNodeIndexingEvaluation::EvaluateEmittedInstructions`): users that
    /// read it at the index they were asked for share one evaluation; users that compute
    /// a new index (slice, pad, reshape, broadcast, ...) each need their own.
    pub fn emitted_count(&self, param: InstrId) -> usize {
        self.summary.emitted_count(param)
    }

    /// How many reduce instructions the body holds.
    pub fn reductions(&self) -> usize {
        self.summary.reductions
    }
}

/// A plain consumer as the one-instruction fusion it would become: `param_N` for each
/// distinct operand (in first-use order), then the consumer.
fn plain_consumer_body(comp: &Computation, consumer: InstrId) -> (Computation, Vec<InstrId>) {
    let instr = comp.instr(consumer);
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
    (body, operands)
}

/// Where a count of reads starts: the root, or the operand of a hoisted broadcast (named
/// by the broadcast), evaluated once per row before the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Start {
    Root,
    Hoisted(InstrId),
}

/// What the fusion policy reads off one fused computation: its users, parameters, loop
/// invariance, reads per element and emitted counts of each parameter, and its number of
/// reductions. Computed once from scratch ([`BodySummary::of`]), then kept up to date as
/// producers are fused in ([`BodySummary::replace_parameter`]), so a query costs the size
/// of the answer, not the size of the body. Every analysis here flows from the root down
/// to the parameters and reads only an instruction's users, so fusing a producer (which
/// replaces a parameter by an instruction over parameters) changes it only at the bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct BodySummary {
    /// The body's parameters, by number.
    parameters: Vec<InstrId>,
    /// Users of each instruction, once per use.
    users: HashMap<InstrId, Vec<InstrId>>,
    invariance: LoopInvariance,
    /// Per parameter: from each start, the largest product of reuse along a path.
    reads: HashMap<InstrId, HashMap<Start, usize>>,
    /// Per parameter: the users that evaluate it at their own index
    /// (`FusionNodeIndexingEvaluation`'s indexing users).
    indexing_users: HashMap<InstrId, HashSet<InstrId>>,
    /// Per instruction other than parameters: evaluations per output element.
    counts: HashMap<InstrId, usize>,
    /// Reduce instructions in the body.
    reductions: usize,
    /// Dot instructions in the body.
    dots: usize,
}

impl BodySummary {
    /// The summary of `body`, from scratch.
    pub fn of(body: &Computation) -> BodySummary {
        let parameters = body.parameters();
        let mut users: HashMap<InstrId, Vec<InstrId>> = HashMap::new();
        for (id, instr) in body.iter() {
            for &o in &instr.operands {
                users.entry(o).or_default().push(id);
            }
        }
        let invariance = LoopInvariance::of(body);
        let mut reads: HashMap<InstrId, HashMap<Start, usize>> = HashMap::new();
        let mut starts = vec![(Start::Root, body.root)];
        starts.extend(
            invariance
                .hoisted()
                .map(|b| (Start::Hoisted(b), body.instr(b).operands[0])),
        );
        for (start, from) in starts {
            for (param, r) in reads_from(body, from, &invariance) {
                if matches!(body.instr(param).op, Op::Parameter { .. }) {
                    reads.entry(param).or_default().insert(start, r);
                }
            }
        }
        let (mut indexing_users, counts) = indexing_evaluation(body);
        indexing_users.retain(|&id, _| matches!(body.instr(id).op, Op::Parameter { .. }));
        let counts = counts
            .into_iter()
            .filter(|&(id, _)| !matches!(body.instr(id).op, Op::Parameter { .. }))
            .collect();
        let count = |opcode| body.iter().filter(|(_, i)| i.opcode() == opcode).count();
        BodySummary {
            parameters,
            users,
            invariance,
            reads,
            indexing_users,
            counts,
            reductions: count(Opcode::Reduce),
            dots: count(Opcode::Dot),
        }
    }

    /// Updates the summary after parameter `old` of `body` was replaced by `new` (a clone
    /// of the fused producer, whose operands are parameters) and the parameters were
    /// renumbered: `body` is the edited computation.
    pub fn replace_parameter(&mut self, body: &Computation, old: InstrId, new: InstrId) {
        let instr = body.instr(new);
        self.parameters = body_parameters_after(&self.parameters, body, old, instr);
        // Users: `new` took over `old`'s, and reads its operands.
        let old_users = self.users.remove(&old).unwrap_or_default();
        self.users.insert(new, old_users);
        for &o in &instr.operands {
            self.users.entry(o).or_default().push(new);
        }
        self.invariance.replace_parameter(body, old, new);
        // Reads: `new` is reached from every start that reached `old`, by the same paths.
        let old_reads = self.reads.remove(&old).unwrap_or_default();
        if self.invariance.is_hoisted(new) {
            // Not reuse: its operand is read once per row, a start of its own.
            let o = instr.operands[0];
            let e = self
                .reads
                .entry(o)
                .or_default()
                .entry(Start::Hoisted(new))
                .or_insert(0);
            *e = (*e).max(1);
        } else {
            for (start, r) in old_reads {
                for (j, &o) in instr.operands.iter().enumerate() {
                    let f = r.saturating_mul(reuse_factor(body, instr, j));
                    let e = self.reads.entry(o).or_default().entry(start).or_insert(0);
                    *e = (*e).max(f);
                }
            }
        }
        // Indexing users and counts.
        let users = self.indexing_users.remove(&old).unwrap_or_default();
        let total = if new == body.root {
            1
        } else {
            users
                .iter()
                .map(|u| self.counts.get(u).copied().unwrap_or(0))
                .sum()
        };
        self.counts.insert(new, total);
        for &o in &instr.operands {
            let entry = self.indexing_users.entry(o).or_default();
            if same_index(body, instr, o) {
                entry.extend(users.iter().copied());
            } else {
                entry.insert(new);
            }
        }
        match instr.opcode() {
            Opcode::Reduce => self.reductions += 1,
            Opcode::Dot => self.dots += 1,
            _ => {}
        }
    }

    /// The body's parameters, by number.
    pub fn parameters(&self) -> &[InstrId] {
        &self.parameters
    }

    /// The instructions of the body that read `value` (once per use).
    pub fn users_of(&self, value: InstrId) -> &[InstrId] {
        self.users.get(&value).map_or(&[], |u| u.as_slice())
    }

    /// Panics unless this summary answers every query as the summary of `body` computed
    /// from scratch does (debug builds check every incremental update with it).
    pub fn assert_matches(&self, body: &Computation) {
        let fresh = BodySummary::of(body);
        assert_eq!(
            self.parameters, fresh.parameters,
            "parameters of {}",
            body.name
        );
        assert_eq!(
            self.invariance, fresh.invariance,
            "invariance of {}",
            body.name
        );
        assert_eq!(self.reductions, fresh.reductions);
        assert_eq!(self.dots, fresh.dots);
        for (id, _) in body.iter() {
            let mut a = self.users_of(id).to_vec();
            let mut b = fresh.users_of(id).to_vec();
            a.sort();
            b.sort();
            assert_eq!(a, b, "users of {} in {}", body.instr(id).name, body.name);
        }
        let view = |summary: &BodySummary| {
            let cb = ConsumerBody {
                body: Cow::Borrowed(body),
                operands: Cow::Owned(vec![]),
                summary: Cow::Owned(summary.clone()),
            };
            self.parameters
                .iter()
                .map(|&p| (cb.reads_per_element(p), cb.emitted_count(p)))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            view(self),
            view(&fresh),
            "reads and counts in {}",
            body.name
        );
    }

    /// True if the body holds a dot (a `kOutput` fusion).
    pub fn has_dot(&self) -> bool {
        self.dots > 0
    }

    /// True if the body holds a reduce.
    pub fn has_reduce(&self) -> bool {
        self.reductions > 0
    }

    fn emitted_count(&self, param: InstrId) -> usize {
        self.indexing_users.get(&param).map_or(0, |users| {
            users
                .iter()
                .map(|u| self.counts.get(u).copied().unwrap_or(0))
                .sum()
        })
    }
}

/// The parameters by number after `old` was replaced by `new`: `old`'s number is gone (the
/// ones above it move down by one), and `new`'s operands that are not parameters yet were
/// appended (numbers after the existing ones).
fn body_parameters_after(
    before: &[InstrId],
    body: &Computation,
    old: InstrId,
    new: &Instruction,
) -> Vec<InstrId> {
    let mut params: Vec<InstrId> = before.iter().copied().filter(|&p| p != old).collect();
    for &o in &new.operands {
        if !params.contains(&o) {
            params.push(o);
        }
    }
    params.sort_by_key(|&p| match body.instr(p).op {
        Op::Parameter { number } => number,
        _ => usize::MAX,
    });
    params
}

/// Reads of each instruction per evaluation of `start`, not looking through hoisted
/// broadcasts.
fn reads_from(body: &Computation, start: InstrId, inv: &LoopInvariance) -> HashMap<InstrId, usize> {
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
    reads
}

/// True if `instr` reads operand `o` at the index it was asked for (so it shares its
/// users' evaluations of `o`).
fn same_index(body: &Computation, instr: &Instruction, o: InstrId) -> bool {
    instr.opcode() == Opcode::Transpose
        || body.instr(o).shape.dims() == instr.shape.dims()
            && body.instr(o).shape.is_array() == instr.shape.is_array()
}

/// `FusionNodeIndexingEvaluation` over the whole body: each instruction's indexing users,
/// and how many times it is evaluated per output element.
type IndexingEvaluation = (HashMap<InstrId, HashSet<InstrId>>, HashMap<InstrId, usize>);

fn indexing_evaluation(body: &Computation) -> IndexingEvaluation {
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
            let entry = indexing_users.entry(o).or_default();
            if same_index(body, instr, o) {
                entry.extend(users.iter().copied());
            } else {
                entry.insert(id);
            }
        }
    }
    (indexing_users, count)
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
mod tests;
