//! SPMD: from one global program with shardings to the per-partition program every device
//! runs. XLA: `xla/service/sharding_propagation.cc`, `xla/service/spmd/spmd_partitioner.cc`,
//! `dot_handler.cc`; the GSPMD paper (Xu et al., arXiv 2105.04663).
//!
//! Two passes, run as XLA:CPU's `spmd-partitioner` pipeline before the CPU pipeline:
//! - [`sharding_propagation::ShardingPropagation`] (`sharding-propagation`) gives every
//!   instruction of the entry a sharding, from the annotated parameters, results and
//!   `Sharding` custom calls, through one rule per op family.
//! - [`spmd_partitioning::SpmdPartitioning`] (`spmd-partitioning`) rewrites the entry at
//!   per-partition shapes: each op by its family's rule ([`rules`]), and every mismatch
//!   between the sharding a value has and the one a user needs through one reshard table
//!   ([`reshard`]): local dynamic-slice, all-gather, all-to-all, or gather-then-slice.
//!
//! Both write what they decided into a shared [`DecisionLog`], which the compiler dumps as
//! `module_0000.NAME.spmd-decisions.txt`.

pub mod decisions;
pub mod halo_exchange;
pub mod manual;
pub mod reshard;
pub mod rules;
pub mod run;
pub mod sharding_propagation;
pub mod sharding_remover;
pub mod shards;
pub mod spmd_partitioning;
pub mod tiling;

use std::cell::RefCell;
use std::rc::Rc;

use crate::ir::Module;
use crate::ir::sharding::HloSharding;
use crate::pipeline::Pipeline;

pub use decisions::{Decision, DecisionLog};
pub use tiling::Tiling;

/// The program's device grid, as XLA's `num_partitions` / `num_replicas`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpmdOptions {
    /// Partitions (devices of one replica).
    pub num_partitions: usize,
    /// Replicas.
    pub num_replicas: usize,
}

/// XLA:CPU's `spmd-partitioner` pipeline: call inlining, propagation, partitioning.
pub fn spmd_pipeline(options: SpmdOptions, log: &Rc<RefCell<DecisionLog>>) -> Pipeline {
    // XLA's spmd-partitioner pipeline inlines calls first (jax's nested jits), so every
    // annotated value is in the entry.
    Pipeline::new("spmd-partitioner")
        .pass(crate::pipeline::memory_placement_remover::MemoryPlacementRemover)
        .pass(crate::pipeline::call_inliner::CallInliner {
            keep_partially_manual_bodies: true,
            ..crate::pipeline::call_inliner::CallInliner::new()
        })
        .pass(sharding_propagation::ShardingPropagation::new(
            options,
            log.clone(),
        ))
        .pass(spmd_partitioning::SpmdPartitioning::new(
            options,
            log.clone(),
        ))
}

/// The module after the `spmd-partitioner` pipeline alone (no dumps): the per-partition
/// program with its entry parameters' and result's shardings, before the CPU pipeline
/// rewrites the root.
pub fn partition(mut module: Module, options: SpmdOptions) -> Result<Module, String> {
    let log = Rc::new(RefCell::new(DecisionLog::default()));
    let mut p = spmd_pipeline(options, &log);
    p.run(&mut module, &mut crate::pipeline::PipelineContext::new())
        .map_err(|e| e.to_string())?;
    Ok(module)
}

/// True if any instruction of the module carries a sharding other than `{replicated}`, or
/// the module uses partition ids: such a module needs partitioning (or `--partitions 1`).
pub fn needs_partitioning(module: &Module) -> bool {
    module.order.iter().any(|&c| {
        module.computations[c].iter().any(|(_, i)| {
            i.sharding
                .as_ref()
                .is_some_and(|s| !matches!(s, HloSharding::Replicated) && !s.is_replicated())
                || matches!(
                    i.op,
                    crate::ir::Op::CustomCall(ref cc) if is_spmd_custom_call(&cc.target)
                )
        })
    })
}

/// The custom calls that only mean something to the partitioner.
pub fn is_spmd_custom_call(target: &str) -> bool {
    matches!(
        target,
        "Sharding"
            | "SPMDFullToShardShape"
            | "SPMDShardToFullShape"
            | "xla.sdy.FuncResultSharding"
            | "xla.sdy.GlobalToLocalShape"
            | "xla.sdy.LocalToGlobalShape"
    )
}

/// The largest device count named by the module's shardings (for `--partitions` when
/// neither the flag nor the module says).
pub fn devices_in_shardings(module: &Module) -> Option<usize> {
    fn count(s: &HloSharding) -> Option<i64> {
        match s {
            HloSharding::Tiled(t) => Some(t.tiles.count()),
            HloSharding::Maximal { device } => Some(device + 1),
            HloSharding::Tuple(v) => v.iter().filter_map(count).max(),
            _ => None,
        }
    }
    module
        .order
        .iter()
        .flat_map(|&c| module.computations[c].iter())
        .filter_map(|(_, i)| i.sharding.as_ref().and_then(count))
        .max()
        .map(|n| n as usize)
}

/// True if the module is already per-partition: XLA partitioned it (its entry is named
/// `*_spmd`, or it has collectives with per-device shapes and no SPMD custom calls left).
pub fn is_partitioned(module: &Module) -> bool {
    let entry = module.entry_computation();
    if entry.name.ends_with("_spmd") {
        return true;
    }
    let has_spmd_calls = module.order.iter().any(|&c| {
        module.computations[c].iter().any(|(_, i)| {
            matches!(i.op, crate::ir::Op::CustomCall(ref cc) if is_spmd_custom_call(&cc.target))
        })
    });
    let has_collectives = module.order.iter().any(|&c| {
        module.computations[c]
            .iter()
            .any(|(_, i)| i.opcode().category() == crate::ir::OpCategory::Collective)
    });
    module.config.is_scheduled && has_collectives && !has_spmd_calls
}
