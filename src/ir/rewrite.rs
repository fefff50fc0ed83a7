//! Editing helpers that passes share: who uses an instruction, replacing uses, inserting
//! before a position, dropping dead instructions. The IR keeps no users lists (every edit
//! would have to keep them in sync); a pass asks for them when it needs them.
//! XLA: `HloInstruction::ReplaceAllUsesWith`, `HloComputation::RemoveInstruction`.

use std::collections::{HashMap, HashSet};

use cranelift_entity::SecondaryMap;

use super::{Computation, InstrId, Instruction, Module, provenance};

impl Computation {
    /// For each live instruction, the live instructions that use it as an operand (once
    /// per use, in `order`).
    pub fn users(&self) -> SecondaryMap<InstrId, Vec<InstrId>> {
        let mut users: SecondaryMap<InstrId, Vec<InstrId>> = SecondaryMap::new();
        for (id, instr) in self.iter() {
            for &op in &instr.operands {
                users[op].push(id);
            }
        }
        users
    }

    /// Makes every use of `old` (operands, control predecessors, the root) use `new`.
    /// Returns true if anything changed.
    pub fn replace_all_uses(&mut self, old: InstrId, new: InstrId) -> bool {
        if old == new {
            return false;
        }
        let mut changed = false;
        for &id in &self.order {
            let instr = &mut self.instrs[id];
            for op in instr
                .operands
                .iter_mut()
                .chain(instr.control_predecessors.iter_mut())
            {
                if *op == old {
                    *op = new;
                    changed = true;
                }
            }
        }
        if self.root == old {
            self.root = new;
            changed = true;
        }
        if changed {
            self.record_replaced(old, new);
        }
        changed
    }

    /// Like [`Computation::replace_all_uses`], but leaves the instructions in `except`
    /// alone (typically the new instructions that consume `old` to build `new`).
    pub fn replace_uses_except(&mut self, old: InstrId, new: InstrId, except: &[InstrId]) -> bool {
        let mut changed = false;
        for &id in &self.order {
            if except.contains(&id) {
                continue;
            }
            let instr = &mut self.instrs[id];
            for op in instr
                .operands
                .iter_mut()
                .chain(instr.control_predecessors.iter_mut())
            {
                if *op == old {
                    *op = new;
                    changed = true;
                }
            }
        }
        if self.root == old && old != new {
            self.root = new;
            changed = true;
        }
        if changed {
            self.record_replaced(old, new);
        }
        changed
    }

    /// Adds an instruction right before `before` in `order` (so it may use anything
    /// `before` may use) and returns its id. The name is made unique in the computation.
    pub fn insert_before(&mut self, before: InstrId, mut instr: Instruction) -> InstrId {
        let requested = std::mem::take(&mut instr.name);
        instr.name = self.unique_name(&requested);
        self.record_created(&instr.name, requested);
        let id = self.instrs.push(instr);
        let pos = self
            .order
            .iter()
            .position(|&i| i == before)
            .unwrap_or(self.order.len());
        self.order.insert(pos, id);
        id
    }

    /// Adds an instruction right after `after` in `order` (so it may use `after`) and
    /// returns its id. The name is made unique in the computation.
    pub fn insert_after(&mut self, after: InstrId, mut instr: Instruction) -> InstrId {
        let requested = std::mem::take(&mut instr.name);
        instr.name = self.unique_name(&requested);
        self.record_created(&instr.name, requested);
        let id = self.instrs.push(instr);
        let pos = self
            .order
            .iter()
            .position(|&i| i == after)
            .map_or(self.order.len(), |p| p + 1);
        self.order.insert(pos, id);
        id
    }

    /// `base` if no live instruction has that name, else `base.N` with the smallest free N.
    pub fn unique_name(&self, base: &str) -> String {
        let taken: HashSet<&str> = self.iter().map(|(_, i)| i.name.as_str()).collect();
        if !taken.contains(base) {
            return base.to_string();
        }
        let stem = match base.rsplit_once('.') {
            Some((stem, n)) if n.chars().all(|c| c.is_ascii_digit()) => stem,
            _ => base,
        };
        (1..)
            .map(|n| format!("{stem}.{n}"))
            .find(|n| !taken.contains(n.as_str()))
            .unwrap()
    }

    /// Live instructions the root does not reach through operands or control edges.
    /// Parameters and side-effecting instructions count as reached: they must stay.
    pub fn unreachable_instructions(&self) -> Vec<InstrId> {
        self.unreachable_instructions_keeping(&HashSet::new())
    }

    /// [`Computation::unreachable_instructions`], with `keep` counted as reached too (the
    /// calls whose callees have side effects, which only the module can tell).
    pub fn unreachable_instructions_keeping(&self, keep: &HashSet<InstrId>) -> Vec<InstrId> {
        let mut live: HashSet<InstrId> = HashSet::new();
        let mut stack = vec![self.root];
        for (id, instr) in self.iter() {
            if matches!(instr.op, super::Op::Parameter { .. })
                || instr.op.has_side_effect()
                || keep.contains(&id)
            {
                stack.push(id);
            }
        }
        while let Some(id) = stack.pop() {
            if live.insert(id) {
                let instr = &self.instrs[id];
                stack.extend(
                    instr
                        .operands
                        .iter()
                        .chain(&instr.control_predecessors)
                        .copied(),
                );
            }
        }
        self.order
            .iter()
            .copied()
            .filter(|id| !live.contains(id))
            .collect()
    }

    /// Drops the given instructions from `order` (their ids stay in the arena, dead).
    pub fn remove_instructions(&mut self, dead: &[InstrId]) {
        let dead: HashSet<InstrId> = dead.iter().copied().collect();
        self.record_removed(&dead);
        self.order.retain(|id| !dead.contains(id));
    }

    /// Removes each of `candidates` that nothing uses any more, then the operands that
    /// become unused because of it, recursively (XLA's `RemoveInstructionAndUnusedOperands`,
    /// for a batch). Never removes the root, parameters or side-effecting instructions;
    /// control edges count as uses. Returns true if anything was removed.
    pub fn remove_unused_from(&mut self, candidates: &[InstrId]) -> bool {
        let mut uses: HashMap<InstrId, usize> = HashMap::new();
        for (_, instr) in self.iter() {
            for &op in instr.operands.iter().chain(&instr.control_predecessors) {
                *uses.entry(op).or_default() += 1;
            }
        }
        let live: HashSet<InstrId> = self.order.iter().copied().collect();
        let mut dead: HashSet<InstrId> = HashSet::new();
        let mut stack: Vec<InstrId> = candidates.to_vec();
        while let Some(id) = stack.pop() {
            let instr = &self.instrs[id];
            let removable = live.contains(&id)
                && !dead.contains(&id)
                && id != self.root
                && uses.get(&id).copied().unwrap_or(0) == 0
                && !matches!(instr.op, super::Op::Parameter { .. })
                && !instr.op.has_side_effect();
            if !removable {
                continue;
            }
            dead.insert(id);
            for &op in instr.operands.iter().chain(&instr.control_predecessors) {
                let n = uses.entry(op).or_default();
                *n = n.saturating_sub(1);
                if *n == 0 {
                    stack.push(op);
                }
            }
        }
        if dead.is_empty() {
            return false;
        }
        self.record_removed(&dead);
        self.order.retain(|id| !dead.contains(id));
        true
    }
}

impl Computation {
    /// Provenance hook: every use of `old` is about to use `new`.
    fn record_replaced(&self, old: InstrId, new: InstrId) {
        provenance::record(&self.name, &self.instrs[old].name, || {
            provenance::Change::ReplacedBy {
                new: self.instrs[new].name.clone(),
            }
        });
    }

    /// Provenance hook for passes that rewire operands themselves (CSE, the tuple
    /// simplifier): each key's uses went to its value.
    pub fn record_replacements(&self, replaced: &HashMap<InstrId, InstrId>) {
        if !provenance::is_recording() {
            return;
        }
        let mut pairs: Vec<(&InstrId, &InstrId)> = replaced.iter().collect();
        pairs.sort();
        for (&old, &new) in pairs {
            self.record_replaced(old, new);
        }
    }

    /// Provenance hook: a pass added `name` (having asked for `requested`).
    fn record_created(&self, name: &str, requested: String) {
        provenance::record(&self.name, name, || provenance::Change::Created {
            requested: (requested != name).then_some(requested),
        });
    }

    /// Provenance hook: the live ones of `dead` leave `order`.
    fn record_removed(&self, dead: &HashSet<InstrId>) {
        if !provenance::is_recording() {
            return;
        }
        for &id in self.order.iter().filter(|id| dead.contains(id)) {
            provenance::record(&self.name, &self.instrs[id].name, || {
                provenance::Change::Removed
            });
        }
    }
}

impl Module {
    /// `base` if no live computation has that name, else `stem.N` with the smallest free N
    /// (XLA's name uniquer, as used when a pass adds a computation).
    pub fn unique_computation_name(&self, base: &str) -> String {
        let taken: HashSet<&str> = self
            .order
            .iter()
            .map(|&c| self.computations[c].name.as_str())
            .collect();
        if !taken.contains(base) {
            return base.to_string();
        }
        let stem = match base.rsplit_once('.') {
            Some((stem, n)) if n.chars().all(|c| c.is_ascii_digit()) => stem,
            _ => base,
        };
        (1..)
            .map(|n| format!("{stem}.{n}"))
            .find(|n| !taken.contains(n.as_str()))
            .unwrap()
    }

    /// Computations that the entry reaches, callees before callers (the entry last): the
    /// order XLA's `CallGraph::VisitNodes` walks.
    pub fn computation_post_order(&self) -> Vec<super::ComputationId> {
        fn visit(
            m: &Module,
            c: super::ComputationId,
            seen: &mut HashSet<super::ComputationId>,
            out: &mut Vec<super::ComputationId>,
        ) {
            if !seen.insert(c) {
                return;
            }
            for (_, instr) in m.computations[c].iter() {
                for callee in instr.op.called_computations() {
                    visit(m, callee, seen, out);
                }
            }
            out.push(c);
        }
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        visit(self, self.entry, &mut seen, &mut out);
        out
    }

    /// Adds a computation right before `before` in print order (a callee must be printed
    /// before its callers), renamed to be unique, and returns its id.
    pub fn add_computation_before(
        &mut self,
        before: super::ComputationId,
        mut comp: super::Computation,
    ) -> super::ComputationId {
        comp.name = self.unique_computation_name(&comp.name);
        let id = self.computations.push(comp);
        let pos = self
            .order
            .iter()
            .position(|&c| c == before)
            .unwrap_or(self.order.len());
        self.order.insert(pos, id);
        id
    }

    /// Computations that the entry reaches through called computations (the entry first).
    pub fn reachable_computations(&self) -> Vec<super::ComputationId> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut stack = vec![self.entry];
        while let Some(c) = stack.pop() {
            if seen.insert(c) {
                out.push(c);
                for (_, instr) in self.computations[c].iter() {
                    stack.extend(instr.op.called_computations());
                }
            }
        }
        out
    }
}
