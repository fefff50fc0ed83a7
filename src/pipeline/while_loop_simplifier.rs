//! `simplify-while-loops`: removes `while` loops that run at most once, and loop-state
//! elements nothing needs.
//!
//! 1. Trip count 0 or 1. A loop whose condition is false on its initial state is replaced
//!    by that state; a loop that runs exactly once is replaced by one inlined copy of its
//!    body. The trip count comes from `backend_config={"known_trip_count":{"n":"N"}}`
//!    (written by XLA's `WhileLoopTripCountAnnotator`) when present, otherwise from the
//!    pattern XLA's `MatchTrivialLoopTripCount` recognizes: the condition is
//!    `compare(gte(state, k), constant)`, the body sets element `k` to
//!    `add(gte(state, k), constant)`, and the initial tuple has a constant at `k`. The
//!    counter is then simulated for at most two steps with exact integer arithmetic.
//! 2. Dead loop state (XLA's `TryRemoveDeadWhileParams`). Element `i` of the state is
//!    *live* if the condition reads it, if code after the loop reads it and the body
//!    changes it, or if the body computes a live element from it. Other elements are
//!    removed from the state, the condition, the body and the initial tuple. An element
//!    the body passes through unchanged equals its initial value after the loop, so reads
//!    after the loop are rewired to the initial value.
//!
//! Conservative on purpose: loops whose condition or body has side effects are left alone,
//! as are loops whose state is not a tuple, whose body root is not a `tuple`, whose state
//! is used other than through `get-tuple-element` (in the condition, the body or after the
//! loop), or whose state would become empty. XLA's pass does more (constant sinking,
//! flattening nested tuples, merging repeated elements).
//!
//! XLA: `xla/service/while_loop_simplifier.cc`, `xla/hlo/analysis/while_loop_analysis.cc`.

use std::collections::{HashMap, HashSet};

use super::call_inliner::inline_computation;
use super::{Pass, PassError};
use crate::ir::{
    ArrayLiteral, BackendConfig, ComparisonDirection, Computation, ComputationId, InstrId,
    Instruction, Literal, Module, Op, Opcode, Shape,
};

/// While-loop simplification.
pub struct WhileLoopSimplifier;

impl Pass for WhileLoopSimplifier {
    fn name(&self) -> &'static str {
        "simplify-while-loops"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            for id in module.computations[c].order.clone() {
                let Op::While { condition, body } = module.computations[c].instrs[id].op else {
                    continue;
                };
                if !module.computations[c].order.contains(&id)
                    || module.calls_side_effect(condition)
                    || module.calls_side_effect(body)
                {
                    continue;
                }
                if try_remove_loop(module, c, id)? {
                    changed = true;
                } else {
                    changed |= try_remove_dead_state(module, c, id);
                }
            }
        }
        Ok(changed)
    }
}

/// Replaces a loop that runs 0 times by its initial state and one that runs once by its
/// inlined body. Returns true if it did.
fn try_remove_loop(module: &mut Module, c: ComputationId, id: InstrId) -> Result<bool, PassError> {
    let comp = &module.computations[c];
    let instr = &comp.instrs[id];
    let Op::While { body, .. } = instr.op else {
        return Ok(false);
    };
    let init = instr.operands[0];
    let control = instr.control_predecessors.clone();
    let value = match trip_count(module, c, id) {
        Some(0) => init,
        Some(1) => inline_computation(module, c, id, body, &[init], &control)?,
        _ => return Ok(false),
    };
    let comp = &mut module.computations[c];
    comp.replace_all_uses(id, value);
    comp.remove_unused_from(&[id]);
    Ok(true)
}

/// The loop's trip count if it is known and at most 1 (see the module doc); `None` when
/// unknown or larger.
fn trip_count(module: &Module, c: ComputationId, id: InstrId) -> Option<u64> {
    let instr = &module.computations[c].instrs[id];
    if let Some(BackendConfig::Json(json)) = &instr.backend_config
        && let Some(n) = known_trip_count(json)
    {
        return (n <= 1).then_some(n);
    }
    let Op::While { condition, body } = instr.op else {
        return None;
    };
    let counter = match_counter(module, c, instr.operands[0], condition, body)?;
    let mut i = counter.init;
    for trips in 0..=1u64 {
        if !counter.compare(i) {
            return Some(trips);
        }
        i += counter.step;
        if i < counter.min || i > counter.max {
            // The counter would wrap around: not the simple loop the pattern assumes.
            return None;
        }
    }
    // Runs at least twice.
    None
}

/// `N` from `"known_trip_count":{"n":"N"}`.
fn known_trip_count(json: &str) -> Option<u64> {
    let rest = &json[json.find("\"known_trip_count\"")?..];
    let rest = &rest[rest.find("\"n\"")? + 3..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"').unwrap_or(rest);
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// A loop counter `i`: element `element` of the state, starts at `init`, the loop runs
/// while `i direction bound`, and each iteration adds `step`. Values are exact (i128);
/// `min..=max` is the element type's range.
pub(crate) struct Counter {
    /// Its index in the loop state.
    pub(crate) element: usize,
    init: i128,
    step: i128,
    bound: i128,
    direction: ComparisonDirection,
    min: i128,
    max: i128,
}

impl Counter {
    /// The loop condition for counter value `i`.
    fn compare(&self, i: i128) -> bool {
        use ComparisonDirection::*;
        match self.direction {
            Eq => i == self.bound,
            Ne => i != self.bound,
            Lt => i < self.bound,
            Le => i <= self.bound,
            Gt => i > self.bound,
            Ge => i >= self.bound,
        }
    }

    /// The counter's value at the start of each iteration, in order; `None` when the loop
    /// would run more than `max_trips` times or the counter would wrap around.
    pub(crate) fn values(&self, max_trips: usize) -> Option<Vec<i128>> {
        let mut values = Vec::new();
        let mut i = self.init;
        while self.compare(i) {
            if values.len() == max_trips {
                return None;
            }
            values.push(i);
            i += self.step;
            if i < self.min || i > self.max {
                return None;
            }
        }
        Some(values)
    }
}

/// Matches the counter pattern of the module doc.
pub(crate) fn match_counter(
    module: &Module,
    c: ComputationId,
    init: InstrId,
    condition: ComputationId,
    body: ComputationId,
) -> Option<Counter> {
    // Condition: compare(gte(param, k), constant) or compare(constant, gte(param, k)).
    let cond = &module.computations[condition];
    let root = cond.root_instr();
    let Op::Compare { direction, .. } = root.op else {
        return None;
    };
    let (lhs, rhs) = (root.operands[0], root.operands[1]);
    let (k, bound, direction) = match (param_element(cond, lhs), param_element(cond, rhs)) {
        (Some(k), None) => (k, scalar_int(cond, rhs)?, direction),
        (None, Some(k)) => (k, scalar_int(cond, lhs)?, swapped(direction)),
        _ => return None,
    };
    // Body: the root tuple's element k is add(gte(param, k), constant), either order.
    let body = &module.computations[body];
    let body_root = body.root_instr();
    if body_root.op != Op::Plain(Opcode::Tuple) {
        return None;
    }
    let update = &body.instrs[*body_root.operands.get(k)?];
    if update.op != Op::Plain(Opcode::Add) {
        return None;
    }
    let (a, b) = (update.operands[0], update.operands[1]);
    let step = match (param_element(body, a), param_element(body, b)) {
        (Some(j), None) if j == k => scalar_int(body, b)?,
        (None, Some(j)) if j == k => scalar_int(body, a)?,
        _ => return None,
    };
    // Initial value: the init tuple's element k is a constant.
    let caller = &module.computations[c];
    let init = &caller.instrs[init];
    if init.op != Op::Plain(Opcode::Tuple) {
        return None;
    }
    let start = scalar_int(caller, *init.operands.get(k)?)?;
    let ty = update.shape.element_type()?;
    let bits = ty.bit_width() as u32;
    let (min, max) = if ty.is_signed_integral() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else if ty.is_unsigned_integral() {
        (0, (1i128 << bits) - 1)
    } else {
        return None;
    };
    Some(Counter {
        element: k,
        init: start,
        step,
        bound,
        direction,
        min,
        max,
    })
}

/// `k` if `id` is `get-tuple-element(parameter(0)), index=k`.
pub(crate) fn param_element(comp: &Computation, id: InstrId) -> Option<usize> {
    let instr = &comp.instrs[id];
    let Op::GetTupleElement { index } = instr.op else {
        return None;
    };
    matches!(
        comp.instrs[instr.operands[0]].op,
        Op::Parameter { number: 0 }
    )
    .then_some(index)
}

/// The value of a scalar integer constant.
fn scalar_int(comp: &Computation, id: InstrId) -> Option<i128> {
    let Op::Constant {
        literal: Literal::Array(a),
    } = &comp.instrs[id].op
    else {
        return None;
    };
    if a.shape.rank() != 0 {
        return None;
    }
    int_value(a)
}

/// The single element of an integer array literal, exactly.
fn int_value(a: &ArrayLiteral) -> Option<i128> {
    macro_rules! try_type {
        ($($t:ty),*) => {$(
            if let Some(&[v]) = a.values::<$t>() {
                return Some(v as i128);
            }
        )*};
    }
    try_type!(i8, i16, i32, i64, u8, u16, u32, u64);
    None
}

/// The direction that gives the same answer with the operands swapped.
fn swapped(d: ComparisonDirection) -> ComparisonDirection {
    use ComparisonDirection::*;
    match d {
        Lt => Gt,
        Le => Ge,
        Gt => Lt,
        Ge => Le,
        other => other,
    }
}

/// Removes dead elements of the loop state (module doc, part 2). Returns true if it did.
fn try_remove_dead_state(module: &mut Module, c: ComputationId, id: InstrId) -> bool {
    let Some(plan) = plan_dead_state(module, c, id) else {
        return false;
    };
    rewrite_loop(module, c, id, &plan);
    true
}

/// Which elements survive, and how to reach each element's initial value.
struct DeadStatePlan {
    /// Old indices that survive, in order (new index = position).
    live: Vec<usize>,
    /// Old indices whose reads after the loop read the initial value instead.
    forwarded: Vec<usize>,
}

/// Decides which state elements are dead; `None` if the loop does not qualify or nothing
/// is dead.
fn plan_dead_state(module: &Module, c: ComputationId, id: InstrId) -> Option<DeadStatePlan> {
    let caller = &module.computations[c];
    let instr = &caller.instrs[id];
    let Op::While { condition, body } = instr.op else {
        return None;
    };
    let n = instr.shape.tuple_elements()?.len();
    let (cond, body) = (&module.computations[condition], &module.computations[body]);
    let body_root = body.root_instr();
    if body_root.op != Op::Plain(Opcode::Tuple) || caller.root == id || n == 0 {
        return None;
    }
    // Elements the condition reads; the state must only be used through GTEs.
    let cond_reads = element_reads(cond)?;
    let body_deps = element_dependencies(body, n)?;
    // Uses after the loop: all GTEs, no control edges.
    let mut read_after = vec![false; n];
    for (_, user) in caller.iter() {
        if user.control_predecessors.contains(&id) {
            return None;
        }
        if user.operands.contains(&id) {
            match user.op {
                Op::GetTupleElement { index } => read_after[index] = true,
                _ => return None,
            }
        }
    }
    let passes_through = |i: usize| param_element(body, body_root.operands[i]) == Some(i);
    let mut live: HashSet<usize> = (0..n)
        .filter(|&i| cond_reads.contains(&i) || (read_after[i] && !passes_through(i)))
        .collect();
    let mut work: Vec<usize> = live.iter().copied().collect();
    while let Some(j) = work.pop() {
        for &k in &body_deps[j] {
            if live.insert(k) {
                work.push(k);
            }
        }
    }
    if live.len() == n || live.is_empty() {
        return None;
    }
    let mut live: Vec<usize> = live.into_iter().collect();
    live.sort();
    let forwarded = (0..n)
        .filter(|&i| read_after[i] && !live.contains(&i))
        .collect();
    Some(DeadStatePlan { live, forwarded })
}

/// Indices `i` of `get-tuple-element(parameter(0)), index=i` in `comp`; `None` if the
/// parameter has any other use.
pub(crate) fn element_reads(comp: &Computation) -> Option<HashSet<usize>> {
    let param = *comp.parameters().first()?;
    let mut reads = HashSet::new();
    for (id, instr) in comp.iter() {
        if instr.operands.contains(&param) || instr.control_predecessors.contains(&param) {
            reads.insert(param_element(comp, id)?);
        }
    }
    (comp.root != param).then_some(reads)
}

/// For each element `j` of the body's root tuple, the state elements it is computed from.
/// `None` if the body uses its parameter other than through GTEs.
fn element_dependencies(body: &Computation, n: usize) -> Option<Vec<HashSet<usize>>> {
    element_reads(body)?;
    let mut deps: HashMap<InstrId, HashSet<usize>> = HashMap::new();
    for (id, instr) in body.iter() {
        let mut d: HashSet<usize> = HashSet::new();
        if let Some(k) = param_element(body, id) {
            d.insert(k);
        } else {
            for op in instr.operands.iter().chain(&instr.control_predecessors) {
                if let Some(od) = deps.get(op) {
                    d.extend(od);
                }
            }
        }
        deps.insert(id, d);
    }
    let root = body.root_instr();
    if root.operands.len() != n {
        return None;
    }
    Some(
        root.operands
            .iter()
            .map(|o| deps.get(o).cloned().unwrap_or_default())
            .collect(),
    )
}

/// Rebuilds the loop with only the live elements (see [`DeadStatePlan`]).
fn rewrite_loop(module: &mut Module, c: ComputationId, id: InstrId, plan: &DeadStatePlan) {
    let Op::While { condition, body } = module.computations[c].instrs[id].op else {
        return;
    };
    let old_shape = module.computations[c].instrs[id].shape.clone();
    let elements = old_shape.tuple_elements().unwrap_or_default().to_vec();
    let new_shape = Shape::Tuple(plan.live.iter().map(|&i| elements[i].clone()).collect());
    let new_index: HashMap<usize, usize> = plan
        .live
        .iter()
        .enumerate()
        .map(|(new, &old)| (old, new))
        .collect();
    let new_cond = shrink_computation(module, condition, &new_shape, &new_index, false);
    let new_body = shrink_computation(module, body, &new_shape, &new_index, true);

    let comp = &mut module.computations[c];
    let init = comp.instrs[id].operands[0];
    // The initial value of each element: the init tuple's operand, or a GTE of it.
    let element_of_init = |comp: &mut Computation, i: usize, before: InstrId| -> InstrId {
        let init_instr = &comp.instrs[init];
        if init_instr.op == Op::Plain(Opcode::Tuple) {
            return init_instr.operands[i];
        }
        let gte = Instruction::new(
            "get-tuple-element",
            elements[i].clone(),
            Op::GetTupleElement { index: i },
            vec![init],
        );
        comp.insert_before(before, gte)
    };
    let live_inits: Vec<InstrId> = plan
        .live
        .iter()
        .map(|&i| element_of_init(comp, i, id))
        .collect();
    let tuple = Instruction::new(
        "tuple",
        new_shape.clone(),
        Op::Plain(Opcode::Tuple),
        live_inits,
    );
    let new_init = comp.insert_before(id, tuple);
    let w = &mut comp.instrs[id];
    w.operands[0] = new_init;
    w.shape = new_shape;
    w.op = Op::While {
        condition: new_cond,
        body: new_body,
    };
    // The loop's trip count does not change, so `backend_config` stays valid.
    // Reads after the loop: renumber live elements, forward passed-through ones.
    let users: Vec<InstrId> = comp
        .iter()
        .filter(|(_, u)| u.operands.contains(&id))
        .map(|(u, _)| u)
        .collect();
    let mut forwarded = Vec::new();
    for u in users {
        let Op::GetTupleElement { index } = comp.instrs[u].op else {
            continue;
        };
        if let Some(&new) = new_index.get(&index) {
            comp.instrs[u].op = Op::GetTupleElement { index: new };
        } else if plan.forwarded.contains(&index) {
            let value = element_of_init(comp, index, u);
            comp.replace_all_uses(u, value);
            forwarded.push(u);
        }
    }
    comp.remove_unused_from(&forwarded);
    comp.remove_unused_from(&[init]);
}

/// A copy of a loop condition or body whose parameter has `new_shape`, whose GTEs use
/// `new_index`, whose root (for a body) keeps only live elements, and whose code for
/// dead elements is removed. Returns the new computation's id.
fn shrink_computation(
    module: &mut Module,
    comp: ComputationId,
    new_shape: &Shape,
    new_index: &HashMap<usize, usize>,
    is_body: bool,
) -> ComputationId {
    let mut copy = module.computations[comp].clone();
    let param = copy.parameters()[0];
    copy.instrs[param].shape = new_shape.clone();
    for id in copy.order.clone() {
        if param_element(&copy, id).is_some()
            && let Op::GetTupleElement { index } = copy.instrs[id].op
        {
            // A GTE of a dead element feeds only dead code; keep it well-typed until
            // it is removed below.
            let new = new_index.get(&index).copied();
            match new {
                Some(new) => copy.instrs[id].op = Op::GetTupleElement { index: new },
                None => copy.instrs[id].operands.clear(),
            }
        }
    }
    if is_body {
        let mut live: Vec<(usize, usize)> = new_index.iter().map(|(&o, &n)| (n, o)).collect();
        live.sort();
        let root = copy.root;
        let old_ops = copy.instrs[root].operands.clone();
        copy.instrs[root].operands = live.iter().map(|&(_, old)| old_ops[old]).collect();
        copy.instrs[root].shape = new_shape.clone();
    }
    let dead = copy.unreachable_instructions();
    copy.remove_instructions(&dead);
    copy.name = module.unique_computation_name(&format!("{}.clone", copy.name));
    module.add_computation(copy)
}

#[cfg(test)]
mod tests;
