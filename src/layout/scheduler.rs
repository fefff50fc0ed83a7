//! `hlo-memory-scheduler`: orders every computation's instructions into the sequence the
//! runtime executes, choosing among valid orders one that keeps peak memory low, and marks
//! the module `is_scheduled`. Buffer assignment reads liveness from this order.
//! XLA: `xla/hlo/transforms/simplifiers/hlo_memory_scheduler.cc`.
//!
//! As XLA's `DefaultMemoryScheduler`, three schedules are built for each computation and
//! the one with the lowest simulated peak is kept: the order as given (post-order), a
//! depth-first schedule (operands with the biggest subtrees first, so their results are
//! consumed and freed early: XLA's `DFSMemoryScheduler`) and a greedy list schedule (each
//! step runs the ready instruction that frees the most bytes for the fewest it allocates:
//! XLA's `ListMemoryScheduler`). Every schedule puts operands and control predecessors
//! before their users. Fused computations are not scheduled: a fusion is one kernel.
//! The peak simulation is approximate (a value dies when its last user runs, forwarding
//! ops count as plain users); buffer assignment computes the real liveness.

use std::collections::{HashMap, HashSet};

use super::alias_analysis::array_leaves;
use crate::ir::{Computation, ComputationId, InstrId, Module, Op, Opcode};
use crate::pipeline::{Pass, PassError};

/// The scheduling pass: afterwards each computation's `order` is its schedule.
#[derive(Clone, Debug, Default)]
pub struct HloMemoryScheduler;

impl Pass for HloMemoryScheduler {
    fn name(&self) -> &'static str {
        "hlo-memory-scheduler"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let fused = fused_computations(module);
        let mut changed = !module.config.is_scheduled;
        for c in module.order.clone() {
            if fused.contains(&c) {
                continue;
            }
            let comp = &module.computations[c];
            let order = schedule_computation(comp);
            if order != comp.order {
                module.computations[c].order = order;
                changed = true;
            }
        }
        module.config.is_scheduled = true;
        Ok(changed)
    }
}

/// Computations called by fusion instructions.
fn fused_computations(module: &Module) -> HashSet<ComputationId> {
    let mut out = HashSet::new();
    for &c in &module.order {
        for (_, instr) in module.computations[c].iter() {
            if let Op::Fusion { calls, .. } = instr.op {
                out.insert(calls);
            }
        }
    }
    out
}

/// The lowest-peak valid order of `comp` among the three schedules.
pub fn schedule_computation(comp: &Computation) -> Vec<InstrId> {
    let g = Graph::new(comp);
    let candidates = [comp.order.clone(), g.dfs(comp), g.list(comp)];
    let mut best = candidates[0].clone();
    let mut best_peak = g.peak(&best);
    for c in &candidates[1..] {
        let peak = g.peak(c);
        if peak < best_peak {
            best = c.clone();
            best_peak = peak;
        }
    }
    best
}

/// Operands, users and output bytes of each live instruction.
struct Graph {
    preds: HashMap<InstrId, Vec<InstrId>>,
    users: HashMap<InstrId, Vec<InstrId>>,
    bytes: HashMap<InstrId, usize>,
    position: HashMap<InstrId, usize>,
    root: InstrId,
}

impl Graph {
    fn new(comp: &Computation) -> Graph {
        let mut preds: HashMap<InstrId, Vec<InstrId>> = HashMap::new();
        let mut users: HashMap<InstrId, Vec<InstrId>> = HashMap::new();
        let mut bytes = HashMap::new();
        let mut position = HashMap::new();
        let live: HashSet<InstrId> = comp.order.iter().copied().collect();
        for (k, (id, instr)) in comp.iter().enumerate() {
            position.insert(id, k);
            let mut ps: Vec<InstrId> = Vec::new();
            for &p in instr.operands.iter().chain(&instr.control_predecessors) {
                if live.contains(&p) && !ps.contains(&p) {
                    ps.push(p);
                    users.entry(p).or_default().push(id);
                }
            }
            preds.insert(id, ps);
            users.entry(id).or_default();
            bytes.insert(id, defined_bytes(instr));
        }
        Graph {
            preds,
            users,
            bytes,
            position,
            root: comp.root,
        }
    }

    /// Bytes of the subtree below each instruction (shared operands counted once per path).
    fn subtree_bytes(&self, comp: &Computation) -> HashMap<InstrId, usize> {
        let mut total: HashMap<InstrId, usize> = HashMap::new();
        for &id in &comp.order {
            let below: usize = self.preds[&id].iter().map(|p| total[p]).sum();
            total.insert(id, self.bytes[&id].saturating_add(below));
        }
        total
    }

    /// Depth-first post-order from the root, biggest operand subtrees first; then
    /// whatever the root does not reach, in the given order.
    fn dfs(&self, comp: &Computation) -> Vec<InstrId> {
        let sizes = self.subtree_bytes(comp);
        let mut out = Vec::with_capacity(comp.order.len());
        let mut seen: HashSet<InstrId> = HashSet::new();
        let mut starts = vec![self.root];
        starts.extend(comp.order.iter().copied().filter(|&i| i != self.root));
        for start in starts {
            // Iterative post-order: (node, expanded).
            let mut stack = vec![(start, false)];
            while let Some((id, expanded)) = stack.pop() {
                if expanded {
                    out.push(id);
                    continue;
                }
                if !seen.insert(id) {
                    continue;
                }
                stack.push((id, true));
                let mut ps: Vec<InstrId> = self.preds[&id]
                    .iter()
                    .copied()
                    .filter(|p| !seen.contains(p))
                    .collect();
                // Visit the biggest subtree first: push it last.
                ps.sort_by_key(|p| (sizes[p], std::cmp::Reverse(self.position[p])));
                stack.extend(ps.into_iter().map(|p| (p, false)));
            }
        }
        // The root goes last among what it reaches; anything unreached came after it,
        // which is fine for side-effecting leftovers but keep the root last when possible.
        if let Some(pos) = out.iter().position(|&i| i == self.root) {
            let tail_independent = out[pos + 1..]
                .iter()
                .all(|i| !self.preds[i].contains(&self.root));
            if tail_independent {
                let r = out.remove(pos);
                out.push(r);
            }
        }
        out
    }

    /// Greedy list schedule: among ready instructions, run the one with the best
    /// (bytes freed − bytes defined); ties keep the given order.
    fn list(&self, comp: &Computation) -> Vec<InstrId> {
        let mut missing: HashMap<InstrId, usize> = comp
            .order
            .iter()
            .map(|&i| (i, self.preds[&i].len()))
            .collect();
        let mut remaining_users: HashMap<InstrId, usize> = comp
            .order
            .iter()
            .map(|&i| (i, self.users[&i].len()))
            .collect();
        let mut ready: Vec<InstrId> = comp
            .order
            .iter()
            .copied()
            .filter(|i| missing[i] == 0 && *i != self.root)
            .collect();
        let mut out = Vec::with_capacity(comp.order.len());
        loop {
            let pick = ready
                .iter()
                .enumerate()
                .max_by_key(|&(_, &i)| {
                    let freed: usize = self.preds[&i]
                        .iter()
                        .filter(|p| remaining_users[p] == 1 && **p != self.root)
                        .map(|p| self.bytes[p])
                        .sum();
                    let gain = freed as i64 - self.bytes[&i] as i64;
                    (gain, std::cmp::Reverse(self.position[&i]))
                })
                .map(|(k, _)| k);
            let Some(k) = pick else {
                break;
            };
            let id = ready.swap_remove(k);
            out.push(id);
            for p in &self.preds[&id] {
                *remaining_users.get_mut(p).unwrap() -= 1;
            }
            for u in &self.users[&id] {
                let m = missing.get_mut(u).unwrap();
                *m -= 1;
                if *m == 0 && *u != self.root {
                    ready.push(*u);
                }
            }
        }
        if missing.get(&self.root) == Some(&0) {
            out.push(self.root);
        }
        if out.len() != comp.order.len() {
            // Unreachable with a valid graph; fall back to the given order.
            return comp.order.clone();
        }
        out
    }

    /// Simulated peak bytes of an order: each instruction's bytes are live from it to its
    /// last user (the root to the end).
    fn peak(&self, order: &[InstrId]) -> usize {
        let mut remaining: HashMap<InstrId, usize> =
            order.iter().map(|&i| (i, self.users[&i].len())).collect();
        let (mut live, mut peak) = (0usize, 0usize);
        for &id in order {
            live += self.bytes[&id];
            peak = peak.max(live);
            for p in &self.preds[&id] {
                let r = remaining.get_mut(p).unwrap();
                *r -= 1;
                if *r == 0 && *p != self.root {
                    live -= self.bytes[p];
                }
            }
            if self.users[&id].is_empty() && id != self.root {
                live -= self.bytes[&id];
            }
        }
        peak
    }
}

/// Bytes an instruction allocates: its array leaves, 0 for ops that forward their
/// operand's buffers.
fn defined_bytes(instr: &crate::ir::Instruction) -> usize {
    let forwards = matches!(
        instr.op,
        Op::GetTupleElement { .. } | Op::Parameter { .. } | Op::Constant { .. }
    ) || matches!(
        instr.opcode(),
        Opcode::Bitcast | Opcode::Tuple | Opcode::OptimizationBarrier | Opcode::AddDependency
    );
    if forwards {
        0
    } else {
        array_leaves(&instr.shape).iter().map(|(_, n)| n).sum()
    }
}

/// True if `order` lists each live instruction of `comp` once, operands and control
/// predecessors before their users.
pub fn is_valid_schedule(comp: &Computation, order: &[InstrId]) -> bool {
    let live: HashSet<InstrId> = comp.order.iter().copied().collect();
    let mut done: HashSet<InstrId> = HashSet::new();
    for &id in order {
        let instr = &comp.instrs[id];
        let ok = instr
            .operands
            .iter()
            .chain(&instr.control_predecessors)
            .all(|p| done.contains(p) || !live.contains(p));
        if !ok || !done.insert(id) {
            return false;
        }
    }
    done.len() == live.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::hlo_text::parse_module;

    /// Two independent chains: a = big(x) -> small; b = big(y) -> small; the given order
    /// computes both big values first (both live at once); a good schedule finishes one
    /// chain before starting the other.
    const TWO_CHAINS: &str = r#"HloModule two
add {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}
ENTRY main {
  x = f32[1024]{0} parameter(0)
  y = f32[1024]{0} parameter(1)
  a = f32[1024]{0} exponential(x)
  b = f32[1024]{0} exponential(y)
  zero = f32[] constant(0)
  ra = f32[] reduce(a, zero), dimensions={0}, to_apply=add
  rb = f32[] reduce(b, zero), dimensions={0}, to_apply=add
  ROOT s = f32[] add(ra, rb)
}
"#;

    #[test]
    fn schedule_is_valid_and_lowers_the_peak() {
        let mut m = parse_module(TWO_CHAINS, "t.hlo").unwrap().module;
        let before = m.entry_computation().order.clone();
        let g = Graph::new(m.entry_computation());
        assert_eq!(g.peak(&before), 8192 + 4);
        let changed = HloMemoryScheduler.run(&mut m).unwrap();
        assert!(changed);
        assert!(m.config.is_scheduled);
        let comp = m.entry_computation();
        assert!(is_valid_schedule(comp, &comp.order));
        // One 4 KiB temporary at a time (plus a 4-byte scalar).
        assert!(g.peak(&comp.order) <= 4096 + 8, "{:?}", g.peak(&comp.order));
        let pos = |n: &str| comp.order.iter().position(|&i| i == comp.find(n).unwrap());
        assert!(pos("ra") < pos("b") || pos("rb") < pos("a"));
        assert!(
            m.to_string()
                .starts_with("HloModule two, is_scheduled=true")
        );
    }

    #[test]
    fn control_predecessors_are_respected() {
        let text = r#"HloModule ctl
ENTRY main {
  x = f32[4]{0} parameter(0)
  a = f32[4]{0} exponential(x)
  b = f32[4]{0} negate(x), control-predecessors={a}
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(b, a)
}
"#;
        let m = parse_module(text, "t.hlo").unwrap().module;
        let comp = m.entry_computation();
        let g = Graph::new(comp);
        for order in [g.dfs(comp), g.list(comp), schedule_computation(comp)] {
            assert!(is_valid_schedule(comp, &order));
        }
        // Swapping a and b breaks the control edge.
        let (a, b) = (comp.find("a").unwrap(), comp.find("b").unwrap());
        let x = comp.find("x").unwrap();
        assert!(!is_valid_schedule(comp, &[x, b, a, comp.root]));
    }

    #[test]
    fn every_testdata_schedule_is_valid() {
        for dir in crate::testdata::model_dirs() {
            let text = std::fs::read_to_string(dir.join("model.hlo")).unwrap();
            let m = parse_module(&text, "model.hlo").unwrap().module;
            for &c in &m.order {
                let comp = &m.computations[c];
                let order = schedule_computation(comp);
                assert!(
                    is_valid_schedule(comp, &order),
                    "{}: {}",
                    dir.display(),
                    comp.name
                );
            }
        }
    }
}
