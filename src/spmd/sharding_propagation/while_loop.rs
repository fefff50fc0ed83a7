//! Propagation into called computations: a while loop's state sharding (the body's
//! splits added until it keeps what it is given), the bodies and conditions of sharded
//! loops, and what a called computation's root gets for given parameter shardings.
//!
//! XLA: the `kWhile` cases of `sharding_propagation.cc`.

use super::{Scope, Sh, merge_sh, propagate};
use crate::ir::sharding::{HloSharding, SdyMesh};
use crate::ir::{Module, Op, Opcode};
use crate::pipeline::PassError;
use crate::spmd::decisions::DecisionLog;

/// Gives the bodies and conditions of `c`'s sharded while loops their shardings: the
/// parameter (and the body's result) in the loop state's sharding, the rest propagated,
/// so that the partitioner runs the loop on shards. Loops inside them follow.
pub(super) fn propagate_into_loops(
    module: &mut Module,
    c: crate::ir::ComputationId,
    n: usize,
    meshes: &[SdyMesh],
    log: &mut DecisionLog,
) -> Result<(), PassError> {
    let loops: Vec<(
        HloSharding,
        crate::ir::ComputationId,
        crate::ir::ComputationId,
    )> = module.computations[c]
        .iter()
        .filter_map(|(_, i)| match (&i.op, &i.sharding) {
            (Op::While { condition, body }, Some(s))
                if !s.is_manual()
                    && !matches!(s, HloSharding::Tuple(v) if v.iter().any(HloSharding::is_manual))
                    && condition != body =>
            {
                Some((s.clone(), *condition, *body))
            }
            _ => None,
        })
        .collect();
    // Conditionals: each branch's parameter in its argument's sharding, its result in
    // the conditional's.
    let branches: Vec<(HloSharding, Vec<(crate::ir::ComputationId, HloSharding)>)> = {
        let comp = &module.computations[c];
        comp.iter()
            .filter_map(|(_, i)| match (&i.op, &i.sharding) {
                (
                    Op::Conditional {
                        branch_computations,
                    },
                    Some(s),
                ) if !s.is_manual() && i.operands.len() == branch_computations.len() + 1 => {
                    let args: Option<Vec<_>> = branch_computations
                        .iter()
                        .zip(&i.operands[1..])
                        .map(|(&b, &o)| Some((b, comp.instrs[o].sharding.clone()?)))
                        .collect();
                    Some((s.clone(), args?))
                }
                _ => None,
            })
            .collect()
    };
    for (result, args) in branches {
        for (branch, arg) in args {
            let mut comp = module.computations[branch].clone();
            let params = comp.parameters();
            if params.len() != 1 {
                continue;
            }
            comp.instrs[params[0]].sharding = Some(arg);
            let root = comp.root;
            comp.instrs[root].sharding = Some(result.clone());
            let scope = Scope {
                module,
                n,
                meshes,
                program: false,
            };
            propagate(&mut comp, &scope, log)?;
            module.computations[branch] = comp;
            propagate_into_loops(module, branch, n, meshes, log)?;
        }
    }
    for (state, condition, body) in loops {
        for (callee, is_body) in [(body, true), (condition, false)] {
            let mut comp = module.computations[callee].clone();
            for p in comp.parameters() {
                comp.instrs[p].sharding = Some(state.clone());
            }
            if is_body
                && (comp.root_instr().shape.is_array()
                    || matches!(comp.root_instr().op, Op::Plain(Opcode::Tuple)))
            {
                let root = comp.root;
                comp.instrs[root].sharding = Some(state.clone());
            }
            let scope = Scope {
                module,
                n,
                meshes,
                program: false,
            };
            propagate(&mut comp, &scope, log)?;
            module.computations[callee] = comp;
            propagate_into_loops(module, callee, n, meshes, log)?;
        }
    }
    Ok(())
}

/// Sweeps of a loop body before its state's sharding is taken as settled.
const LOOP_ROUNDS: usize = 3;

/// The sharding of a while loop's state: the initial value's, with the splits the body
/// gives its result added (a buffer the body fills with split values becomes split),
/// until the body keeps what it is given.
pub(super) fn loop_state(scope: &Scope, body: crate::ir::ComputationId, init: Sh) -> Sh {
    let mut state = init;
    for _ in 0..LOOP_ROUNDS {
        let Some(result) = callee_result(scope, body, std::slice::from_ref(&state)) else {
            break;
        };
        let next = merge_sh(&state, &result);
        if next == state {
            break;
        }
        state = next;
    }
    state
}

/// The sharding propagation gives a called computation's result when its parameters
/// have `params`' shardings (on a copy: the callee itself is not annotated), or `None`
/// when it cannot tell.
pub(super) fn callee_result(
    scope: &Scope,
    callee: crate::ir::ComputationId,
    params: &[Sh],
) -> Option<Sh> {
    let mut comp = scope.module.computations[callee].clone();
    for p in comp.parameters() {
        let Op::Parameter { number } = comp.instrs[p].op else {
            continue;
        };
        comp.instrs[p].sharding = Some(params.get(number)?.to_sharding());
    }
    let inner = Scope {
        module: scope.module,
        n: scope.n,
        meshes: scope.meshes,
        program: false,
    };
    propagate(&mut comp, &inner, &mut DecisionLog::default()).ok()?;
    let root = &comp.instrs[comp.root];
    Some(Sh::of(root.sharding.as_ref()?, &root.shape, scope.n))
}
