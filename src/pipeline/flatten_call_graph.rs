//! `flatten-call-graph`: gives every computation called in a control-flow context exactly
//! one call site, by cloning it for the other call sites.
//!
//! XLA distinguishes two kinds of call site (`CallContext`): *control flow* (`call`,
//! `while` condition and body, `conditional` branches, async wrappers), where the callee
//! runs as a sequence of instructions with its own buffers, and *embedded* (`to_apply` of
//! reduce, sort, scatter, map, select-and-scatter, reduce-window, fused computations,
//! custom-call computations), where the callee is a scalar function applied element by
//! element. Only control-flow call sites are flattened; embedded callees stay shared, as in
//! XLA. A computation called from both kinds of site gets a clone for every control-flow
//! site; one called only from control flow keeps its first site and is cloned for the
//! others. Cloning copies the whole control-flow subtree below the callee too, so a clone
//! never shares a body with the original. Clones are named `NAME.clone` (made unique).
//!
//! Computations are visited callees first (XLA's `CallGraph::VisitNodes`), with the call
//! sites of the module as it was when the pass started. Unlike XLA, which always reports a
//! change, the pass reports one only when it cloned something.
//!
//! XLA: `xla/hlo/transforms/simplifiers/flatten_call_graph.cc`, `xla/service/call_graph.cc`.

use std::collections::HashMap;

use super::{Pass, PassError};
use crate::ir::{ComputationId, InstrId, Module, Op, Opcode};

/// Call-graph flattening.
pub struct FlattenCallGraph;

impl Pass for FlattenCallGraph {
    fn name(&self) -> &'static str {
        "flatten-call-graph"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let sites = call_sites(module);
        let mut changed = false;
        for comp in module.computation_post_order() {
            let Some(comp_sites) = sites.get(&comp) else {
                continue;
            };
            let embedded = comp_sites.iter().any(|s| !s.control_flow);
            let mut first = !embedded;
            for site in comp_sites.iter().filter(|s| s.control_flow) {
                if first {
                    // Only called from control flow: the first site keeps the original.
                    first = false;
                    continue;
                }
                let clone = clone_subtree(module, comp);
                let instr = &mut module.computations[site.caller].instrs[site.instr];
                if let Some(slot) = instr
                    .op
                    .called_computations_mut()
                    .into_iter()
                    .nth(site.slot)
                {
                    *slot = clone;
                }
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// One reference to a computation: which instruction, which of its called computations.
struct CallSite {
    caller: ComputationId,
    instr: InstrId,
    /// Index into `Op::called_computations()`.
    slot: usize,
    /// Control-flow context (true) or embedded (false).
    control_flow: bool,
}

/// Every call site of every reachable computation, in module order.
fn call_sites(module: &Module) -> HashMap<ComputationId, Vec<CallSite>> {
    let mut sites: HashMap<ComputationId, Vec<CallSite>> = HashMap::new();
    for caller in module.computation_post_order() {
        for (instr, i) in module.computations[caller].iter() {
            let control_flow = is_control_flow(&i.op);
            for (slot, callee) in i.op.called_computations().into_iter().enumerate() {
                sites.entry(callee).or_default().push(CallSite {
                    caller,
                    instr,
                    slot,
                    control_flow,
                });
            }
        }
    }
    sites
}

/// XLA's `GetInstructionCallContext(opcode) == kControlFlow`.
pub fn is_control_flow(op: &Op) -> bool {
    matches!(
        op.opcode(),
        Opcode::Call
            | Opcode::While
            | Opcode::Conditional
            | Opcode::AsyncStart
            | Opcode::AsyncUpdate
            | Opcode::AsyncDone
    )
}

/// Clones `comp` and, recursively, every computation its clone calls in a control-flow
/// context; returns the clone. Callees are added first so print order stays callees
/// before callers.
fn clone_subtree(module: &mut Module, comp: ComputationId) -> ComputationId {
    let mut clone = module.computations[comp].clone();
    let ids: Vec<InstrId> = clone.order.clone();
    for id in ids {
        if !is_control_flow(&clone.instrs[id].op) {
            continue;
        }
        let callees = clone.instrs[id].op.called_computations();
        let cloned: Vec<ComputationId> =
            callees.iter().map(|&c| clone_subtree(module, c)).collect();
        for (slot, new) in clone.instrs[id]
            .op
            .called_computations_mut()
            .into_iter()
            .zip(cloned)
        {
            *slot = new;
        }
    }
    clone.name = module.unique_computation_name(&format!("{}.clone", clone.name));
    module.add_computation(clone)
}

#[cfg(test)]
mod tests;
