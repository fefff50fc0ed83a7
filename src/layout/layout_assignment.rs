//! `layout-assignment`: gives every array a physical layout. Row-major by default; the
//! entry computation layout, layouts forced on the command line and custom-call operand
//! layout constraints win; where two constraints disagree a layout-changing `copy` is
//! inserted. XLA: `xla/service/layout_assignment.cc`, `xla/service/cpu/cpu_layout_assignment.cc`.

use crate::ir::{Layout, Module};
use crate::pipeline::{Pass, PassError};

/// The layout-assignment pass.
#[derive(Clone, Debug, Default)]
pub struct LayoutAssignment {
    /// Entry parameter layouts forced by the user (`--layout param0={0,1}`): parameter
    /// number and layout. They override the module's entry computation layout.
    pub forced_parameter_layouts: Vec<(usize, Layout)>,
}

impl Pass for LayoutAssignment {
    fn name(&self) -> &'static str {
        "layout-assignment"
    }

    fn run(&mut self, _module: &mut Module) -> Result<bool, PassError> {
        // Stub: layouts stay as written until the pass is built.
        Ok(false)
    }
}
