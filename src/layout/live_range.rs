//! Live ranges over the flattened schedule. The entry's schedule (`order`) is walked in
//! sequence; a while, conditional or call is preceded by the instructions of the
//! computations it calls (condition, then body; each branch in turn), so one time line
//! covers every global computation. A position is live from its definition to its last
//! use; a use inside a called computation counts at the calling instruction, a fusion
//! reads its operands at the fusion, a computation's root is used by its caller, and the
//! entry root is used at the end of the program. A buffer is live from the earliest
//! definition to the latest use of its positions.
//! XLA: `xla/hlo/analysis/hlo_live_range.cc` (flattened instruction sequence, `BufferLiveRange`).

use std::collections::HashMap;

use super::alias_analysis::{AliasAnalysis, Caller};
use crate::ir::{ComputationId, InstrId, Module};

/// Schedule times of every instruction of the global computations.
#[derive(Clone, Debug, Default)]
pub struct FlatSchedule {
    /// The instructions in execution order (callees' instructions before their caller).
    pub sequence: Vec<(ComputationId, InstrId)>,
    /// Time (index into `sequence`) of each instruction.
    pub time: HashMap<(ComputationId, InstrId), usize>,
}

impl FlatSchedule {
    /// Flattens the schedule of the global computations of `alias`.
    pub fn new(module: &Module, alias: &AliasAnalysis) -> FlatSchedule {
        let mut s = FlatSchedule::default();
        let callees: HashMap<(ComputationId, InstrId), Vec<ComputationId>> = {
            let mut m: HashMap<_, Vec<_>> = HashMap::new();
            for &(c, caller) in &alias.computations {
                if let Caller::Instruction(pc, pi) = caller {
                    m.entry((pc, pi)).or_default().push(c);
                }
            }
            m
        };
        s.visit(module, module.entry, &callees);
        s
    }

    fn visit(
        &mut self,
        module: &Module,
        c: ComputationId,
        callees: &HashMap<(ComputationId, InstrId), Vec<ComputationId>>,
    ) {
        for &id in &module.computations[c].order {
            for &callee in callees.get(&(c, id)).map(Vec::as_slice).unwrap_or_default() {
                self.visit(module, callee, callees);
            }
            self.time.insert((c, id), self.sequence.len());
            self.sequence.push((c, id));
        }
    }

    /// The time just past the last instruction: when the entry's result is read.
    pub fn end(&self) -> usize {
        self.sequence.len()
    }
}

/// A closed interval of schedule times `[start, end]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LiveRange {
    /// Definition time.
    pub start: usize,
    /// Last use time.
    pub end: usize,
}

impl LiveRange {
    /// True if the two intervals share a time.
    pub fn overlaps(&self, other: &LiveRange) -> bool {
        self.start <= other.end && other.start <= self.end
    }

    /// The smallest interval covering both.
    pub fn join(&self, other: &LiveRange) -> LiveRange {
        LiveRange {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// The live range of every position (indexed like `AliasAnalysis::positions`).
pub fn position_live_ranges(
    module: &Module,
    alias: &AliasAnalysis,
    schedule: &FlatSchedule,
) -> Vec<LiveRange> {
    // Who calls each global computation, to charge a root's use to its caller.
    let caller: HashMap<ComputationId, Caller> = alias.computations.iter().copied().collect();
    // Last use time of each instruction of each global computation.
    let mut last_use: HashMap<(ComputationId, InstrId), usize> = HashMap::new();
    for &(c, _) in &alias.computations {
        let comp = &module.computations[c];
        for (id, instr) in comp.iter() {
            let t = schedule.time[&(c, id)];
            for &x in &instr.operands {
                let e = last_use.entry((c, x)).or_insert(t);
                *e = (*e).max(t);
            }
        }
        let root_use = match caller.get(&c) {
            Some(Caller::Instruction(pc, pi)) => schedule.time[&(*pc, *pi)],
            _ => schedule.end(),
        };
        let e = last_use.entry((c, comp.root)).or_insert(root_use);
        *e = (*e).max(root_use);
    }
    alias
        .positions
        .iter()
        .map(|p| {
            let start = schedule.time[&(p.computation, p.instruction)];
            let end = last_use
                .get(&(p.computation, p.instruction))
                .copied()
                .unwrap_or(start)
                .max(start);
            LiveRange { start, end }
        })
        .collect()
}
