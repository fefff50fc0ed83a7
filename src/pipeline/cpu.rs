//! The CPU pass pipeline, in order; it reads like XLA's `cpu_compiler.cc`
//! (`RunHloPassesThroughLayoutAssn`), keeping the passes that matter for xlac
//! (../shared/notes/xla-cpu.md §3.5).

use super::Pipeline;
use super::dce::Dce;

/// The HLO optimization pipeline `xlac run` and `xlac compile` apply before execution.
pub fn cpu_pipeline() -> Pipeline {
    Pipeline::new("cpu-hlo-passes").pass(Dce)
}
