//! Custom calls that are identities on xlac (sharding annotations on one device, memory
//! placement annotations on devices of one memory): every use of one reads its operand
//! instead, and the call goes. The passes that name which targets those are share this.

use crate::ir::{Module, Op};
use crate::pipeline::PassError;

/// Replaces every custom call whose target `is_identity` accepts by its one operand, in
/// every computation; `kind` names them in errors ("a sharding custom call"). A call with
/// other than one operand, or whose shape is not its operand's, is an error: it is not an
/// identity. Returns whether anything changed.
pub fn forward_operands(
    module: &mut Module,
    is_identity: impl Fn(&str) -> bool,
    kind: &str,
) -> Result<bool, PassError> {
    let mut changed = false;
    for c in module.order.clone() {
        let comp = &mut module.computations[c];
        let mut removed = Vec::new();
        for id in comp.order.clone() {
            let instr = &comp.instrs[id];
            let Op::CustomCall(cc) = &instr.op else {
                continue;
            };
            if !is_identity(&cc.target) {
                continue;
            }
            let [operand] = instr.operands[..] else {
                return Err(PassError::new(format!(
                    "{}: custom call '{}' has {} operands; {kind} has one",
                    instr.name,
                    cc.target,
                    instr.operands.len()
                )));
            };
            if comp.instrs[operand].shape != instr.shape {
                return Err(PassError::new(format!(
                    "{}: custom call '{}' changes the shape from {} to {}; {kind} keeps it",
                    instr.name, cc.target, comp.instrs[operand].shape, instr.shape
                )));
            }
            comp.replace_all_uses(id, operand);
            removed.push(id);
            changed = true;
        }
        // Side-effect-free now that nothing reads them.
        comp.remove_instructions(&removed);
    }
    Ok(changed)
}
