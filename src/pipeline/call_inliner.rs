//! `call-inliner`: replaces every `call` by a copy of the computation it calls.
//!
//! JAX wraps every nested `jax.jit` (and many library functions: `jit_relu_`, `_where`,
//! `clip`, `argmax`) in a `call`. Inlining them gives later passes (CSE, algebraic
//! simplification, fusion) one flat computation to work on. The callee's instructions are
//! cloned into the caller right where the call was, with the callee's parameters replaced
//! by the call's operands and the call's users reading the clone of the callee's root.
//! Clones keep their names when free and otherwise get XLA-style `.N` suffixes.
//!
//! Computations are visited callees first, so a callee has no calls left when it is
//! inlined. Like XLA, the pass then runs `dce`, which drops the instructions and
//! computations that became dead.
//!
//! Not inlined (as in XLA's `CallInliner::IsInlineableCallOp`): calls with a
//! `backend_config`, and calls whose `frontend_attributes` say `inlineable="false"`.
//! A call with `frontend_attributes={xla_cpu_small_call="true"}` (made by XLA:CPU's
//! `SmallWhileLoopHoistingPass` after its main pipeline, so it appears in `xla_opt.hlo`)
//! IS inlined: XLA's inliner has no exception for it, the attribute only asks XLA's
//! emitter to compile the callee as one kernel, and inlining it does not change what the
//! program computes. With `single_call_site` (how XLA:CPU's pipeline configures it) only
//! computations called from exactly one place are inlined.
//!
//! XLA: `xla/service/call_inliner.cc`.

use std::collections::{HashMap, HashSet};

use super::dce::Dce;
use super::{Pass, PassError};
use crate::ir::provenance::Change;
use crate::ir::{ComputationId, InstrId, Module, Op};

/// Inlines `call` instructions.
#[derive(Default)]
pub struct CallInliner {
    /// Only inline calls to computations that have exactly one call site.
    pub single_call_site: bool,
    /// Keep the calls of `shard_map` bodies over some mesh axes only (an operand is an
    /// `SPMDFullToShardShape` with a manual subgroup): the SPMD partitioner partitions such
    /// a body as its own program (XLA's Shardy export keeps them as calls too).
    pub keep_partially_manual_bodies: bool,
}

impl CallInliner {
    /// An inliner that inlines every inlineable call.
    pub fn new() -> CallInliner {
        CallInliner {
            single_call_site: false,
            keep_partially_manual_bodies: false,
        }
    }
}

/// True if `call` in `comp` calls a partially manual `shard_map` body.
fn is_partially_manual_body_call(
    comp: &crate::ir::Computation,
    call: &crate::ir::Instruction,
) -> bool {
    call.operands.iter().any(|&o| {
        let i = &comp.instrs[o];
        matches!(&i.op, Op::CustomCall(cc) if cc.target == "SPMDFullToShardShape")
            && matches!(&i.sharding, Some(crate::ir::HloSharding::Tiled(t)) if t.has_manual_subgroup())
    })
}

impl Pass for CallInliner {
    fn name(&self) -> &'static str {
        "call-inliner"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let call_sites = count_call_sites(module);
        let mut changed = false;
        // Callees before callers: a callee is already flat when it gets inlined.
        for comp in module.computation_post_order() {
            let c = &module.computations[comp];
            let calls: Vec<InstrId> = c
                .iter()
                .filter(|(_, instr)| {
                    is_inlineable_call(instr)
                        && !(self.keep_partially_manual_bodies
                            && is_partially_manual_body_call(c, instr))
                })
                .map(|(id, _)| id)
                .collect();
            for call in calls {
                let Op::Call { to_apply } = module.computations[comp].instrs[call].op else {
                    continue;
                };
                if self.single_call_site && call_sites.get(&to_apply).copied() != Some(1) {
                    continue;
                }
                inline_call(module, comp, call)?;
                changed = true;
            }
        }
        if changed {
            // As XLA does: drop what the inlining left dead, callees included.
            Dce.run(module)?;
        }
        Ok(changed)
    }
}

/// How many live instructions call each computation (one per referencing attribute).
fn count_call_sites(module: &Module) -> HashMap<ComputationId, usize> {
    let mut counts = HashMap::new();
    for c in module.reachable_computations() {
        for (_, instr) in module.computations[c].iter() {
            for callee in instr.op.called_computations() {
                *counts.entry(callee).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// A `call` that XLA's `CallInliner::IsInlineableCallOp` would inline.
fn is_inlineable_call(instr: &crate::ir::Instruction) -> bool {
    matches!(instr.op, Op::Call { .. })
        && instr.backend_config.is_none()
        && !instr.raw_attributes.iter().any(|a| {
            a.name == "frontend_attributes"
                && a.value.replace(' ', "").contains("inlineable=\"false\"")
        })
}

/// Replaces the `call` instruction `call` of computation `caller` by a copy of its callee
/// (XLA's `CallInliner::Inline`). Unused operands of the call are removed with it.
pub fn inline_call(
    module: &mut Module,
    caller: ComputationId,
    call: InstrId,
) -> Result<(), PassError> {
    let instr = &module.computations[caller].instrs[call];
    let Op::Call { to_apply } = instr.op else {
        return Err(PassError::new(format!("{} is not a call", instr.name)));
    };
    let args = instr.operands.clone();
    let control = instr.control_predecessors.clone();
    let new_root = inline_computation(module, caller, call, to_apply, &args, &control)?;
    let comp = &mut module.computations[caller];
    comp.replace_all_uses(call, new_root);
    comp.remove_unused_from(&[call]);
    Ok(())
}

/// Clones every live instruction of `callee` into `caller`, right before `before`, with
/// parameter `i` replaced by `args[i]`; every clone also waits for `control` (the control
/// predecessors of the instruction being replaced). Returns the value of the callee's
/// root in the caller. The caller must not be the callee.
pub fn inline_computation(
    module: &mut Module,
    caller: ComputationId,
    before: InstrId,
    callee: ComputationId,
    args: &[InstrId],
    control: &[InstrId],
) -> Result<InstrId, PassError> {
    if caller == callee {
        return Err(PassError::new("a computation cannot inline itself"));
    }
    let body = module.computations[callee].clone();
    let comp = &mut module.computations[caller];
    let mut taken: HashSet<String> = comp.iter().map(|(_, i)| i.name.clone()).collect();
    let mut mapping: HashMap<InstrId, InstrId> = HashMap::new();
    let mut new_ids = Vec::new();
    for (id, instr) in body.iter() {
        if let Op::Parameter { number } = instr.op {
            let arg = args.get(number).copied().ok_or_else(|| {
                PassError::new(format!(
                    "{} has no argument for parameter {number}",
                    body.name
                ))
            })?;
            mapping.insert(id, arg);
            continue;
        }
        let mut clone = instr.clone();
        for op in clone
            .operands
            .iter_mut()
            .chain(clone.control_predecessors.iter_mut())
        {
            *op = *mapping.get(op).ok_or_else(|| {
                PassError::new(format!("{}: operand used before it is defined", instr.name))
            })?;
        }
        for &c in control {
            if !clone.control_predecessors.contains(&c) {
                clone.control_predecessors.push(c);
            }
        }
        clone.name = fresh_name(&mut taken, &instr.name);
        crate::ir::provenance::record(&body.name, &instr.name, || Change::Cloned {
            computation: comp.name.clone(),
            name: clone.name.clone(),
        });
        let new_id = comp.instrs.push(clone);
        comp.spans[new_id] = body.spans[id];
        mapping.insert(id, new_id);
        new_ids.push(new_id);
    }
    let pos = comp
        .order
        .iter()
        .position(|&i| i == before)
        .unwrap_or(comp.order.len());
    comp.order.splice(pos..pos, new_ids);
    mapping
        .get(&body.root)
        .copied()
        .ok_or_else(|| PassError::new(format!("{}: root is not live", body.name)))
}

/// `base` if free, else `stem.N` with the smallest free N (as `Computation::unique_name`),
/// and marks the result taken.
fn fresh_name(taken: &mut HashSet<String>, base: &str) -> String {
    let name = if !taken.contains(base) {
        base.to_string()
    } else {
        let stem = match base.rsplit_once('.') {
            Some((stem, n)) if n.chars().all(|c| c.is_ascii_digit()) => stem,
            _ => base,
        };
        (1..)
            .map(|n| format!("{stem}.{n}"))
            .find(|n| !taken.contains(n))
            .unwrap()
    };
    taken.insert(name.clone());
    name
}

#[cfg(test)]
mod tests;
