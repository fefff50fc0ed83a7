//! The verifier: structure first (operands exist and come first, one root, called
//! computations exist, dense parameter numbers), then shapes (inferred vs declared).
//! XLA: `xla/service/hlo_verifier.cc` (`HloVerifier`, `ShapeVerifier`).
//!
//! Phase 1, structure, makes the module safe to walk: after it passes for a computation,
//! code can index operands, the root and called computations without checking. Phase 2,
//! shapes, runs [`infer_shape`] on every live instruction of the computations that passed
//! phase 1 and compares the answer with the declared shape, ignoring layouts (as XLA's
//! verifier does before layout assignment). Both phases collect every error.
//!
//! What it is not: it does not check layouts against XLA:CPU's layout rules, schedules,
//! aliasing or sharding, which xlac does not use.

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::shape_inference::{human_string, infer_shape};
use super::{Arity, Computation, ComputationId, InstrId, Module, Op, Shape, Span};

/// One verifier finding; prints as `computation/instruction: message`, prefixed with
/// `line:col:` when the instruction came from text (the CLI adds `file:` in front).
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyError {
    /// The computation's name.
    pub computation: String,
    /// The instruction's name, if the error is about one.
    pub instruction: Option<String>,
    /// Where it was written, if parsed from text.
    pub span: Option<Span>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(span) = self.span.filter(|s| s.line > 0) {
            write!(f, "{}:{}: ", span.line, span.col)?;
        }
        match &self.instruction {
            Some(i) => write!(f, "{}/{}: {}", self.computation, i, self.message),
            None => write!(f, "{}: {}", self.computation, self.message),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Checks a module; returns every error found (not just the first).
pub fn verify(module: &Module) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    let live = check_module_structure(module, &mut errors);

    // Phase 1: structure, for every live computation.
    let mut clean = Vec::new();
    for &cid in &live {
        let before = errors.len();
        check_computation_structure(module, cid, &live, &mut errors);
        if errors.len() == before {
            clean.push(cid);
        }
    }

    // A call cycle through several computations (a calls b calls a) would make every
    // walk over the call graph recurse forever; a computation calling itself is caught
    // above.
    if let Some(cycle) = call_cycle(module, &clean) {
        let names: Vec<&str> = cycle
            .iter()
            .map(|&c| module.computations[c].name.as_str())
            .collect();
        errors.push(VerifyError {
            computation: names[0].to_string(),
            instruction: None,
            span: None,
            message: format!(
                "computations call each other in a cycle ({}); recursion is not allowed",
                names.join(" -> ")
            ),
        });
        clean.retain(|c| !cycle.contains(c));
    }

    // Phase 2: shapes, only where the structure is sound.
    for &cid in &clean {
        check_computation_shapes(module, &module.computations[cid], &mut errors);
    }
    if live.contains(&module.entry) && clean.contains(&module.entry) {
        check_entry_layout(module, &mut errors);
    }

    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Collects errors for one computation, filling in names and spans.
struct Reporter<'a> {
    comp: &'a Computation,
    errors: &'a mut Vec<VerifyError>,
}

impl Reporter<'_> {
    /// An error about the computation as a whole.
    fn computation(&mut self, message: String) {
        self.errors.push(VerifyError {
            computation: self.comp.name.clone(),
            instruction: None,
            span: None,
            message,
        });
    }

    /// An error about one instruction, located at its span when it was parsed.
    fn instruction(&mut self, id: InstrId, message: String) {
        let span = self.comp.spans.get(id).copied().filter(|s| s.line > 0);
        let name = self
            .comp
            .instrs
            .get(id)
            .map_or_else(|| id.to_string(), |i| i.name.clone());
        self.errors.push(VerifyError {
            computation: self.comp.name.clone(),
            instruction: Some(name),
            span,
            message,
        });
    }
}

/// Module-level structure: the computation order is valid and contains the entry.
/// Returns the live computations that exist (duplicates removed).
fn check_module_structure(module: &Module, errors: &mut Vec<VerifyError>) -> Vec<ComputationId> {
    let module_error = |message: String| VerifyError {
        computation: module.name.clone(),
        instruction: None,
        span: None,
        message,
    };
    let mut live = Vec::new();
    let mut seen = HashSet::new();
    for &cid in &module.order {
        if module.computations.get(cid).is_none() {
            errors.push(module_error(format!(
                "the computation order lists {cid}, which does not exist"
            )));
        } else if !seen.insert(cid) {
            let name = &module.computations[cid].name;
            errors.push(module_error(format!(
                "computation {name} is listed twice in the module"
            )));
        } else {
            live.push(cid);
        }
    }
    if !live.contains(&module.entry) {
        errors.push(module_error(
            "the module has no live ENTRY computation".to_string(),
        ));
    }
    let mut names = HashSet::new();
    for &cid in &live {
        let name = &module.computations[cid].name;
        if !names.insert(name.as_str()) {
            errors.push(module_error(format!("two computations are named {name}")));
        }
    }
    live
}

/// Phase 1 for one computation.
fn check_computation_structure(
    module: &Module,
    cid: ComputationId,
    live: &[ComputationId],
    errors: &mut Vec<VerifyError>,
) {
    let comp = &module.computations[cid];
    let mut r = Reporter { comp, errors };

    // Where each live instruction sits in `order`; ids must exist and appear once.
    let mut position: HashMap<InstrId, usize> = HashMap::new();
    for (pos, &id) in comp.order.iter().enumerate() {
        if comp.instrs.get(id).is_none() {
            r.computation(format!(
                "the instruction order lists {id}, which does not exist"
            ));
        } else if position.insert(id, pos).is_some() {
            r.instruction(id, "appears twice in the instruction order".to_string());
        }
    }
    if !position.contains_key(&comp.root) {
        r.computation(
            "the ROOT instruction is not one of the computation's instructions".to_string(),
        );
    }

    let mut names: HashMap<&str, InstrId> = HashMap::new();
    let mut parameters: Vec<(usize, InstrId)> = Vec::new();
    for (pos, &id) in comp.order.iter().enumerate() {
        let Some(inst) = comp.instrs.get(id) else {
            continue;
        };
        if position.get(&id) != Some(&pos) {
            continue; // a duplicate entry, reported above
        }
        if names.insert(inst.name.as_str(), id).is_some() {
            r.instruction(
                id,
                format!("the name {} is used by two instructions", inst.name),
            );
        }
        let refs = inst.operands.iter().map(|&o| ("operand", o));
        let refs = refs.chain(
            inst.control_predecessors
                .iter()
                .map(|&o| ("control predecessor", o)),
        );
        for (i, (what, o)) in refs.enumerate() {
            match position.get(&o) {
                None => r.instruction(
                    id,
                    format!(
                        "{what} {i} refers to an instruction that is not in {}",
                        comp.name
                    ),
                ),
                Some(&p) if p >= pos => {
                    let name = &comp.instrs[o].name;
                    let message = if o == id {
                        format!("uses itself as {what}")
                    } else {
                        format!("{what} {name} is defined later; it must come before its users")
                    };
                    r.instruction(id, message);
                }
                Some(_) => {}
            }
        }
        let opcode = inst.opcode();
        if let Arity::Fixed(n) = opcode.arity()
            && inst.operands.len() != n
        {
            let s = if n == 1 { "" } else { "s" };
            r.instruction(
                id,
                format!(
                    "{opcode} takes {n} operand{s} but has {}",
                    inst.operands.len()
                ),
            );
        }
        if let Op::Parameter { number } = inst.op {
            parameters.push((number, id));
        }
        for (callee, expected) in called_arities(&inst.op, inst.operands.len()) {
            let Some(callee_comp) = module.computations.get(callee) else {
                r.instruction(id, format!("calls {callee}, which does not exist"));
                continue;
            };
            if !live.contains(&callee) {
                r.instruction(
                    id,
                    format!("calls {}, which is not in the module", callee_comp.name),
                );
            } else if callee == cid {
                r.instruction(
                    id,
                    format!(
                        "calls its own computation {}; recursion is not allowed",
                        comp.name
                    ),
                );
            } else if callee == module.entry {
                r.instruction(id, "calls the ENTRY computation".to_string());
            } else if let Some(n) = expected {
                let params = callee_comp.parameters().len();
                if params != n {
                    let s = if n == 1 { "" } else { "s" };
                    r.instruction(
                        id,
                        format!("{opcode} calls {} with {n} argument{s}, but it has {params} parameters", callee_comp.name),
                    );
                }
            }
        }
    }

    // Parameter numbers are 0..n, each once.
    parameters.sort();
    for pair in parameters.windows(2) {
        if pair[0].0 == pair[1].0 {
            r.instruction(pair[1].1, format!("parameter({}) appears twice", pair[1].0));
        } else if pair[1].0 != pair[0].0 + 1 {
            r.instruction(
                pair[1].1,
                format!(
                    "parameter({}) follows parameter({}); numbers must have no gaps",
                    pair[1].0, pair[0].0
                ),
            );
        }
    }
    if let Some(&(first, id)) = parameters.first()
        && first != 0
    {
        r.instruction(
            id,
            format!("parameter numbers must start at 0, but the first is {first}"),
        );
    }
}

/// A cycle in the call graph of `comps` (each computation's callees among `comps`), as the
/// computations along it with the first repeated at the end; `None` if there is none.
fn call_cycle(module: &Module, comps: &[ComputationId]) -> Option<Vec<ComputationId>> {
    let callees = |c: ComputationId| -> Vec<ComputationId> {
        let comp = &module.computations[c];
        let mut out: Vec<ComputationId> = comp
            .iter()
            .flat_map(|(_, i)| i.op.called_computations())
            .filter(|c| comps.contains(c))
            .collect();
        out.dedup();
        out
    };
    // Iterative depth-first search: 0 unvisited, 1 on the stack, 2 done.
    let mut state: HashMap<ComputationId, u8> = HashMap::new();
    for &start in comps {
        if state.contains_key(&start) {
            continue;
        }
        let mut stack: Vec<(ComputationId, Vec<ComputationId>)> = vec![(start, callees(start))];
        state.insert(start, 1);
        while let Some((node, pending)) = stack.last_mut() {
            let node = *node;
            match pending.pop() {
                Some(next) => match state.get(&next).copied().unwrap_or(0) {
                    0 => {
                        state.insert(next, 1);
                        let c = callees(next);
                        stack.push((next, c));
                    }
                    1 => {
                        let at = stack.iter().position(|(c, _)| *c == next).unwrap_or(0);
                        let mut cycle: Vec<ComputationId> =
                            stack[at..].iter().map(|(c, _)| *c).collect();
                        cycle.push(next);
                        return Some(cycle);
                    }
                    _ => {}
                },
                None => {
                    state.insert(node, 2);
                    stack.pop();
                }
            }
        }
    }
    None
}

/// The computations `op` calls, each with the parameter count it must have (`None` when
/// the op imposes none, e.g. custom-call). XLA's `HloVerifier` checks the same counts.
fn called_arities(op: &Op, operand_count: usize) -> Vec<(ComputationId, Option<usize>)> {
    let n = operand_count;
    let one = |c: ComputationId, k: usize| vec![(c, Some(k))];
    match op {
        Op::Call { to_apply } => one(*to_apply, n),
        Op::Fusion { calls, .. } => one(*calls, n),
        Op::While { condition, body } => vec![(*condition, Some(1)), (*body, Some(1))],
        Op::Conditional {
            branch_computations,
        } => branch_computations.iter().map(|&b| (b, Some(1))).collect(),
        // `inputs..., inits...` -> a reducer of (accumulators..., inputs...).
        Op::Reduce { to_apply, .. } | Op::ReduceWindow { to_apply, .. } => one(*to_apply, n),
        Op::Map { to_apply, .. } => one(*to_apply, n),
        Op::Sort { to_apply, .. } => one(*to_apply, 2 * n),
        // `operands..., indices, updates...` -> (old..., new...).
        Op::Scatter { to_apply, .. } => one(*to_apply, n.saturating_sub(1)),
        Op::SelectAndScatter {
            select, scatter, ..
        } => {
            vec![(*select, Some(2)), (*scatter, Some(2))]
        }
        _ => op
            .called_computations()
            .into_iter()
            .map(|c| (c, None))
            .collect(),
    }
}

/// Phase 2 for one computation: every live instruction's declared shape against the
/// inferred one.
fn check_computation_shapes(module: &Module, comp: &Computation, errors: &mut Vec<VerifyError>) {
    let mut r = Reporter { comp, errors };
    for (id, inst) in comp.iter() {
        // Sizes first: shape inference, and everything after the verifier, may then
        // multiply dimensions without overflowing.
        if let Err(e) = super::size::check_shape(&inst.shape) {
            r.instruction(id, e.to_string());
            continue;
        }
        if let Some(message) = layout_problem(&inst.shape) {
            r.instruction(id, message);
            continue;
        }
        match infer_shape(module, comp, id) {
            Err(message) => r.instruction(id, message),
            Ok(inferred) if !inferred.compatible(&inst.shape) => r.instruction(
                id,
                format!(
                    "inferred {} but declared {}",
                    human_string(&inferred),
                    human_string(&inst.shape)
                ),
            ),
            Ok(_) => {}
        }
    }
}

/// Checks that every array layout lists each dimension once (an empty `minor_to_major`
/// means "no layout given" and is accepted) and that no dimension is negative.
fn layout_problem(shape: &Shape) -> Option<String> {
    match shape {
        Shape::Array(a) => {
            if let Some(d) = a.dims.iter().find(|&&d| d < 0) {
                return Some(format!(
                    "{} has a negative dimension {d}",
                    human_string(shape)
                ));
            }
            let m2m = &a.layout.minor_to_major;
            let mut seen = vec![false; a.rank()];
            let is_permutation = m2m.len() == a.rank()
                && m2m
                    .iter()
                    .all(|&d| d < seen.len() && !std::mem::replace(&mut seen[d], true));
            if !m2m.is_empty() && !is_permutation {
                let listed: Vec<String> = m2m.iter().map(|d| d.to_string()).collect();
                return Some(format!(
                    "the layout {{{}}} of {} must list each of its {} dimensions once",
                    listed.join(","),
                    human_string(shape),
                    a.rank()
                ));
            }
            None
        }
        Shape::Tuple(elements) => elements.iter().find_map(layout_problem),
        Shape::Token | Shape::Opaque => None,
    }
}

/// The header's `entry_computation_layout` must agree with the entry's parameters and root.
fn check_entry_layout(module: &Module, errors: &mut Vec<VerifyError>) {
    let Some(layout) = &module.config.entry_computation_layout else {
        return;
    };
    let entry = module.entry_computation();
    let mut r = Reporter {
        comp: entry,
        errors,
    };
    let params = entry.parameter_shapes();
    if layout.parameters.len() != params.len() {
        r.computation(format!(
            "entry_computation_layout has {} parameters but the entry has {}",
            layout.parameters.len(),
            params.len()
        ));
    } else {
        for (i, (declared, actual)) in layout.parameters.iter().zip(&params).enumerate() {
            if !declared.compatible(actual) {
                r.computation(format!(
                    "entry_computation_layout says parameter {i} is {} but it is {}",
                    human_string(declared),
                    human_string(actual)
                ));
            }
        }
    }
    let root = &entry.root_instr().shape;
    if !layout.result.compatible(root) {
        r.computation(format!(
            "entry_computation_layout says the result is {} but the ROOT is {}",
            human_string(&layout.result),
            human_string(root)
        ));
    }
}

#[cfg(test)]
mod tests;
