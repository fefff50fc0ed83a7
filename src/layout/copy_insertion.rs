//! `copy-insertion`: adds a `copy` only where two values would otherwise share a buffer
//! wrongly (while-loop state that is read after it is overwritten, an in-place update of a
//! value that is still live, entry outputs that alias parameters or constants).
//! XLA: `xla/service/copy_insertion.cc`.

use crate::ir::Module;
use crate::pipeline::{Pass, PassError};

/// The copy-insertion pass.
#[derive(Clone, Debug, Default)]
pub struct CopyInsertion;

impl Pass for CopyInsertion {
    fn name(&self) -> &'static str {
        "copy-insertion"
    }

    fn run(&mut self, _module: &mut Module) -> Result<bool, PassError> {
        Ok(false)
    }
}
