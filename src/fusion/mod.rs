//! Fusion: which instructions run together in one kernel, in which kind (`kLoop`, `kInput`,
//! `kOutput`), and why not when they don't. Every producer–consumer pair considered is
//! logged with the rule that decided (`fusion-decisions.txt`).
//! XLA: `xla/service/instruction_fusion.cc`, `xla/service/cpu/cpu_instruction_fusion.cc`,
//! `xla/service/cpu/fusion_wrapper.cc`, `multi_output_fusion.cc`.
//!
//! Files: the passes in pipeline order (`custom_fusion_inliner.rs`, `instruction_fusion.rs`,
//! `multi_output_fusion.rs`, `fusion_wrapper.rs`); the policy (`cpu_fusion_policy.rs`,
//! `output_fusion.rs` for the dot epilogue, `indexing.rs` for reuse and duplication
//! counts); the mechanics of building fusions (`fusion_instruction.rs`); the log
//! (`decisions.rs`). The contract with codegen and the runtime (which instructions become
//! kernel code) is `ir::kernel_ops`, where all three may read it.

pub mod cpu_fusion_policy;
pub mod custom_fusion_inliner;
pub mod decisions;
pub mod fusion_instruction;
pub mod fusion_wrapper;
pub mod indexing;
pub mod instruction_fusion;
pub mod loop_invariance;
pub mod multi_output_fusion;
pub mod output_fusion;
pub mod row_cache;

pub use decisions::{DecisionLog, FusionDecision, FusionRule};

use crate::pipeline::Pipeline;
use crate::pipeline::dce::Dce;

/// The fusion stage, run after layout assignment: library (`kCustom`) fusions put back as
/// plain instructions, producer–consumer fusion, multi-output fusion, then every
/// leftover op that becomes a kernel is wrapped into a one-op `wrapped_<op>` fusion.
/// Decisions go to `log`.
///
/// The pipeline is not called `fusion`: that is the producer–consumer pass's name (XLA's),
/// and `--disable-passes fusion` must skip that pass alone, as XLA's
/// `--xla_disable_hlo_passes=fusion` does, so that `fusion-wrapper` still makes one loop
/// kernel per leftover op.
pub fn fusion_pipeline(log: &DecisionLog) -> Pipeline {
    Pipeline::new("fusion-passes")
        .pass(custom_fusion_inliner::CustomFusionInliner::new(log.clone()))
        .pass(instruction_fusion::CpuInstructionFusion::new(log.clone()))
        .pass(multi_output_fusion::MultiOutputFusion::new(log.clone()))
        .pass(fusion_wrapper::FusionWrapper)
        .pass(Dce)
}
