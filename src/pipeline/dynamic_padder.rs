//! `dynamic-padder`, the part of it a program with static shapes needs: a
//! `get-dimension-size` of a static dimension is that dimension's size, an `s32[]`
//! constant. (XLA's pass also pads dynamic dimensions to their bounds and rewrites the ops
//! that read them; xlac's kernels have static shapes only, so a `get-dimension-size` of a
//! dynamic dimension stays and runs on the interpreter's implementation.)
//! XLA: `xla/service/dynamic_padder.cc` (`ReplaceGetSize`), run by `cpu_compiler.cc`.

use super::{Pass, PassError};
use crate::ir::{ArrayLiteral, Instruction, Literal, Module, Op, Opcode};

/// Replaces `get-dimension-size` of static dimensions with constants.
pub struct DynamicPadder;

impl Pass for DynamicPadder {
    fn name(&self) -> &'static str {
        "dynamic-padder"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            for id in module.computations[c].order.clone() {
                let comp = &module.computations[c];
                let instr = &comp.instrs[id];
                let Op::DimensionSize {
                    opcode: Opcode::GetDimensionSize,
                    dimension,
                } = instr.op
                else {
                    continue;
                };
                let Some(operand) = comp.instrs[instr.operands[0]].shape.as_array() else {
                    return Err(PassError::new(format!(
                        "{}: get-dimension-size of a tuple",
                        instr.name
                    )));
                };
                let Some(&size) = operand.dims.get(dimension) else {
                    return Err(PassError::new(format!(
                        "{}: get-dimension-size of dimension {dimension} of a rank-{} array",
                        instr.name,
                        operand.rank()
                    )));
                };
                if operand
                    .dynamic_dims
                    .get(dimension)
                    .copied()
                    .unwrap_or(false)
                {
                    continue;
                }
                let size = i32::try_from(size).map_err(|_| {
                    PassError::new(format!(
                        "{}: dimension size {size} does not fit the s32 result",
                        instr.name
                    ))
                })?;
                let literal = Literal::Array(ArrayLiteral::scalar(size));
                let shape = instr.shape.clone();
                let comp = &mut module.computations[c];
                let constant =
                    Instruction::new("constant", shape, Op::Constant { literal }, vec![]);
                let new = comp.insert_before(id, constant);
                comp.replace_all_uses(id, new);
                comp.remove_unused_from(&[id]);
                changed = true;
            }
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{EvalOptions, evaluate};
    use crate::front::hlo_text::parse_module;

    const HLO: &str = r#"
HloModule m

ENTRY main {
  p = f32[3,7]{1,0} parameter(0)
  d0 = s32[] get-dimension-size(p), dimensions={0}
  d1 = s32[] get-dimension-size(p), dimensions={1}
  ROOT m = s32[] multiply(d0, d1)
}
"#;

    #[test]
    fn static_sizes_become_constants_and_keep_the_value() {
        let mut m = parse_module(HLO, "t.hlo").unwrap().module;
        let arg = Literal::Array(ArrayLiteral::zeros(crate::ir::ArrayShape::new(
            crate::ir::PrimitiveType::F32,
            &[3, 7],
        )));
        let before = evaluate(&m, std::slice::from_ref(&arg), &EvalOptions::default()).unwrap();
        assert!(DynamicPadder.run(&mut m).unwrap());
        let entry = m.entry_computation();
        assert!(
            entry
                .iter()
                .all(|(_, i)| i.opcode() != Opcode::GetDimensionSize),
            "{}",
            m
        );
        let after = evaluate(&m, &[arg], &EvalOptions::default()).unwrap();
        assert_eq!(before, after);
        assert_eq!(after, Literal::Array(ArrayLiteral::scalar(21i32)));
        assert!(!DynamicPadder.run(&mut m).unwrap(), "a fixed point");
    }

    #[test]
    fn a_dimension_out_of_range_is_an_error() {
        let text = HLO.replace("dimensions={1}", "dimensions={2}");
        if let Ok(parsed) = parse_module(&text, "t.hlo") {
            let mut m = parsed.module;
            assert!(DynamicPadder.run(&mut m).is_err());
        }
    }
}
