//! Fusion: which instructions run together in one kernel, in which kind (`kLoop`, `kInput`,
//! `kOutput`), and why not when they don't. Every producer–consumer pair considered is
//! logged with the rule that decided (`fusion-decisions.txt`).
//! XLA: `xla/service/instruction_fusion.cc`, `xla/service/cpu/cpu_instruction_fusion.cc`,
//! `xla/service/cpu/fusion_wrapper.cc`, `multi_output_fusion.cc`. See
//! ../shared/notes/xla-cpu.md §4.

pub mod decisions;
pub mod fusion_wrapper;
pub mod instruction_fusion;
pub mod kernel_ops;
pub mod multi_output_fusion;

pub use decisions::{DecisionLog, FusionDecision};

use crate::pipeline::Pipeline;
use crate::pipeline::dce::Dce;

/// The fusion stage, run after layout assignment: producer–consumer fusion, sibling
/// multi-output fusion, then every leftover op that becomes a kernel is wrapped into a
/// one-op `wrapped_<op>` fusion. Decisions go to `log`.
pub fn fusion_pipeline(log: &DecisionLog) -> Pipeline {
    Pipeline::new("fusion")
        .pass(instruction_fusion::CpuInstructionFusion::new(log.clone()))
        .pass(multi_output_fusion::MultiOutputFusion::new(log.clone()))
        .pass(fusion_wrapper::FusionWrapper)
        .pass(Dce)
}
