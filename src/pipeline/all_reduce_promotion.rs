//! `all-reduce-promotion`: a bf16 `all-reduce` or `reduce-scatter` runs in f32, with
//! converts around it: `bf16 all-reduce(x)` becomes `convert(all-reduce(convert(x)))`, its
//! reduction computation replaced by one f32 binary op of the same opcode.
//! XLA: `xla/service/all_reduce_promotion.cc` (over `ChangeOpDataType`), which
//! `cpu_compiler.cc` runs with `{BF16, F32}` right before `float-normalization-bf16`.
//!
//! Why it shows in results: the partial sums cross devices unrounded. A bf16 dot whose
//! contracting dimension is sharded becomes a local dot and an all-reduce; after this pass
//! the all-reduce reads `convert(dot)` to f32, and `float-normalization-bf16` then lets the
//! (now f32) dot feed it directly (excess precision), so the sum across devices is one f32
//! sum rounded once to bf16, as XLA:CPU computes it, not a sum of bf16-rounded partials
//! rounded again at each step.
//!
//! As `ChangeOpDataType`: only array-shaped results whose operands all have the low type;
//! the promoted computation is `NAME_promoted(x, y) = OP(x, y)` with `OP` the original
//! root's opcode (XLA builds it that way too: a reduction computation of more than one op
//! is not expected here).

use super::{Pass, PassError};
use crate::ir::{
    ArrayShape, ComputationBuilder, ComputationId, InstrId, Instruction, Module, Op, OpCategory,
    Opcode, PrimitiveType, Shape,
};

/// Runs `all-reduce` and `reduce-scatter` of one float type in a wider one.
pub struct AllReducePromotion {
    from: PrimitiveType,
    to: PrimitiveType,
}

impl AllReducePromotion {
    /// bf16 collectives reduced in f32, the instance `cpu_compiler.cc` runs.
    pub fn bf16() -> AllReducePromotion {
        AllReducePromotion {
            from: PrimitiveType::BF16,
            to: PrimitiveType::F32,
        }
    }

    /// Whether `id` in computation `c` is a reduction collective this pass rewrites.
    fn matches(&self, module: &Module, c: ComputationId, id: InstrId) -> bool {
        let comp = &module.computations[c];
        let instr = &comp.instrs[id];
        matches!(
            instr.op,
            Op::Unmodeled {
                opcode: Opcode::AllReduce | Opcode::ReduceScatter,
                ..
            }
        ) && matches!(&instr.shape, Shape::Array(a) if a.element_type == self.from)
            && !instr.operands.is_empty()
            && instr.operands.iter().all(|&o| {
                matches!(&comp.instrs[o].shape, Shape::Array(a) if a.element_type == self.from)
            })
    }

    /// `NAME_promoted(x, y) = OP(x, y)` over scalars of the wide type.
    fn promoted_computation(
        &self,
        module: &mut Module,
        caller: ComputationId,
        reducer: ComputationId,
        instr: &str,
    ) -> Result<ComputationId, PassError> {
        let original = &module.computations[reducer];
        let root = original.root_instr();
        let opcode = root.opcode();
        if !matches!(root.op, Op::Plain(_)) || opcode.category() != OpCategory::ElementwiseBinary {
            return Err(PassError::new(format!(
                "{instr}: the reduction computation {} has root {}, not a binary op",
                original.name,
                opcode.name()
            )));
        }
        let scalar = Shape::Array(ArrayShape::new(self.to, &[]));
        let mut b = ComputationBuilder::new(format!("{}_promoted", original.name));
        let x = b.parameter(0, scalar.clone());
        let y = b.parameter(1, scalar);
        let root = b.binary(opcode, x, y);
        Ok(module.add_computation_before(caller, b.build(root)))
    }
}

impl Pass for AllReducePromotion {
    fn name(&self) -> &'static str {
        "all-reduce-promotion"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            for id in module.computations[c].order.clone() {
                if !self.matches(module, c, id) {
                    continue;
                }
                let name = module.computations[c].instrs[id].name.clone();
                let called = module.computations[c].instrs[id].op.called_computations();
                let [reducer] = called[..] else {
                    return Err(PassError::new(format!(
                        "{name}: {} reduction computations, expected one",
                        called.len()
                    )));
                };
                let promoted = self.promoted_computation(module, c, reducer, &name)?;
                let comp = &mut module.computations[c];
                for i in 0..comp.instrs[id].operands.len() {
                    let operand = comp.instrs[id].operands[i];
                    let shape = with_type(&comp.instrs[operand].shape, self.to);
                    let convert = Instruction::new(
                        "convert",
                        shape,
                        Op::Plain(Opcode::Convert),
                        vec![operand],
                    );
                    comp.instrs[id].operands[i] = comp.insert_before(id, convert);
                }
                let original = comp.instrs[id].shape.clone();
                comp.instrs[id].shape = with_type(&original, self.to);
                for called in comp.instrs[id].op.called_computations_mut() {
                    *called = promoted;
                }
                let back = comp.insert_after(
                    id,
                    Instruction::new("convert", original, Op::Plain(Opcode::Convert), vec![id]),
                );
                comp.replace_uses_except(id, back, &[back]);
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// An array shape with another element type (layout kept).
fn with_type(shape: &Shape, to: PrimitiveType) -> Shape {
    let mut shape = shape.clone();
    if let Shape::Array(a) = &mut shape {
        a.element_type = to;
    }
    shape
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::hlo_text::parse_module;

    const HLO: &str = r#"
HloModule m, num_partitions=2

add.bf16 {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] add(x, y)
}

ENTRY main {
  p = f32[4] parameter(0)
  c = bf16[4] convert(p)
  ar = bf16[4] all-reduce(c), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add.bf16
  ROOT r = f32[4] convert(ar)
}
"#;

    #[test]
    fn a_bf16_all_reduce_reduces_in_f32() {
        let mut m = parse_module(HLO, "t.hlo").unwrap().module;
        assert!(AllReducePromotion::bf16().run(&mut m).unwrap());
        let text = m.to_string();
        assert!(
            text.contains("f32[4]{0} all-reduce(") && text.contains("to_apply=%add.bf16_promoted"),
            "{text}"
        );
        let promoted = m.find_computation("add.bf16_promoted").expect("added");
        let comp = &m.computations[promoted];
        assert_eq!(comp.root_instr().opcode(), Opcode::Add);
        assert_eq!(
            comp.root_instr().shape,
            Shape::Array(ArrayShape::new(PrimitiveType::F32, &[]))
        );
        // The all-reduce reads a convert to f32 and its users read a convert back to bf16.
        let entry = m.entry_computation();
        let ar = entry.find("ar").unwrap();
        let operand = entry.instrs[entry.instrs[ar].operands[0]].clone();
        assert_eq!(operand.opcode(), Opcode::Convert);
        let root = entry.root_instr();
        let back = &entry.instrs[root.operands[0]];
        assert_eq!(back.opcode(), Opcode::Convert);
        assert_eq!(back.operands, [ar]);
        assert!(
            !AllReducePromotion::bf16().run(&mut m).unwrap(),
            "a fixed point"
        );
    }

    #[test]
    fn f32_and_tuple_all_reduces_stay() {
        let text = HLO.replace("bf16", "f32");
        let mut m = parse_module(&text, "t.hlo").unwrap().module;
        assert!(!AllReducePromotion::bf16().run(&mut m).unwrap());
    }
}
