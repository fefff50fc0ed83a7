//! `topk-decomposer`: rewrites `topk(x), k=K` as a stable `sort` of `(x, iota)` along the
//! last dimension followed by slices of the first K elements, so that the compiled path
//! needs no top-k kernel.
//! XLA: `xla/service/topk_rewriter.cc` (`TopkDecomposer`, `TopkDecomposerVisitor`), with
//! the comparator of `xla/hlo/builder/lib/comparators.cc` (`CreateScalarGtComputation`).
//!
//! The comparator compares only the values: `GT` for `largest=true`, `LT` otherwise, with
//! `type=TOTALORDER` for floats (NaN above +inf, -0 below +0), as XLA builds it; the
//! stable sort keeps equal values in index order, so ties come out lower index first.
//! When the only user of the topk reads the values (`get-tuple-element` index 0), the iota
//! is skipped and only the values are sorted, as XLA does.
//!
//! Not handled: the legacy `custom-call` with target `TopK` (JAX emits the `topk` op).

use super::op_expander::{find_instructions, import_computations};
use super::{Pass, PassError};
use crate::ir::shape_inference::human_string;
use crate::ir::{
    ComputationId, InstrId, Instruction, Module, Op, Opcode, PrimitiveType, Shape, SliceDimension,
};

/// Decomposes `topk` into `sort` and `slice`.
pub struct TopkDecomposer;

impl Pass for TopkDecomposer {
    fn name(&self) -> &'static str {
        "topk-decomposer"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let topks = find_instructions(module, |op| matches!(op, Op::TopK { .. }));
        for &(c, id) in &topks {
            decompose_topk(module, c, id)?;
        }
        Ok(!topks.is_empty())
    }
}

/// Replaces one `topk` with `sort` + `slice`s.
fn decompose_topk(module: &mut Module, c: ComputationId, id: InstrId) -> Result<(), PassError> {
    let comp = &module.computations[c];
    let topk = &comp.instrs[id];
    let Op::TopK { largest, .. } = topk.op else {
        return Err(PassError::new("not a topk"));
    };
    let input = topk.operands[0];
    let input_shape = comp.instrs[input].shape.clone();
    let (Some(array), Some([values_shape, indices_shape])) =
        (input_shape.as_array(), topk.shape.tuple_elements())
    else {
        return Err(PassError::new(format!("{}: bad topk shapes", topk.name)));
    };
    let rank = array.rank();
    if rank == 0 {
        return Err(PassError::new(format!("{}: topk of a scalar", topk.name)));
    }
    let (values_shape, indices_shape) = (values_shape.clone(), indices_shape.clone());
    let users = comp.users()[id].clone();
    let values_only = users.len() == 1
        && comp.root != id
        && matches!(comp.instrs[users[0]].op, Op::GetTupleElement { index: 0 });
    let comparator_name = format!("comparator_{}", topk.name);
    let comparator = import_comparator(
        module,
        c,
        &comparator_name,
        array.element_type,
        largest,
        values_only,
    )?;

    let comp = &mut module.computations[c];
    let sort_dimension = rank - 1;
    let slice_of = |shape: &Shape| -> Op {
        Op::Slice {
            slice: shape
                .dims()
                .iter()
                .map(|&d| SliceDimension {
                    start: 0,
                    limit: d,
                    stride: 1,
                })
                .collect(),
        }
    };
    let sort_op = Op::Sort {
        dimension: sort_dimension,
        is_stable: true,
        to_apply: comparator,
    };
    if values_only {
        let sort = comp.insert_before(
            id,
            Instruction::new("sort", input_shape.clone(), sort_op, vec![input]),
        );
        let slice = comp.insert_before(
            id,
            Instruction::new(
                "slice",
                values_shape.clone(),
                slice_of(&values_shape),
                vec![sort],
            ),
        );
        comp.replace_all_uses(users[0], slice);
        // XLA's ReplaceInstruction removes what it replaces.
        comp.remove_instructions(&[users[0], id]);
        return Ok(());
    }
    let mut iota_shape = array.clone();
    iota_shape.element_type = PrimitiveType::S32;
    let iota_shape = Shape::Array(iota_shape);
    let iota = comp.insert_before(
        id,
        Instruction::new(
            "iota",
            iota_shape.clone(),
            Op::Iota {
                dimension: sort_dimension,
            },
            vec![],
        ),
    );
    let sort_shape = Shape::Tuple(vec![input_shape.clone(), iota_shape.clone()]);
    let sort = comp.insert_before(
        id,
        Instruction::new("sort", sort_shape, sort_op, vec![input, iota]),
    );
    let mut slices = Vec::new();
    for (index, (full, part)) in [(input_shape, values_shape), (iota_shape, indices_shape)]
        .into_iter()
        .enumerate()
    {
        let gte = comp.insert_before(
            id,
            Instruction::new(
                "get-tuple-element",
                full,
                Op::GetTupleElement { index },
                vec![sort],
            ),
        );
        slices.push(comp.insert_before(
            id,
            Instruction::new("slice", part.clone(), slice_of(&part), vec![gte]),
        ));
    }
    let shape = comp.instrs[id].shape.clone();
    let tuple = comp.insert_before(
        id,
        Instruction::new("tuple", shape, Op::Plain(Opcode::Tuple), slices),
    );
    comp.replace_all_uses(id, tuple);
    comp.remove_instructions(&[id]);
    Ok(())
}

/// Adds XLA's variadic comparator: `(v.lhs, v.rhs[, i.lhs, i.rhs]) -> v.lhs GT v.rhs`
/// (LT for the smallest), TOTALORDER for floats.
fn import_comparator(
    module: &mut Module,
    caller: ComputationId,
    name: &str,
    ty: PrimitiveType,
    largest: bool,
    values_only: bool,
) -> Result<ComputationId, PassError> {
    let scalar = human_string(&Shape::scalar(ty));
    let direction = if largest { "GT" } else { "LT" };
    let order = if ty.is_float() {
        ", type=TOTALORDER"
    } else {
        ""
    };
    let indices = if values_only {
        String::new()
    } else {
        "  p.1.lhs = s32[] parameter(2)\n  p.1.rhs = s32[] parameter(3)\n".to_string()
    };
    let text = format!(
        "HloModule comparator\n\
         ENTRY {name} {{\n  \
           p.0.lhs = {scalar} parameter(0)\n  \
           p.0.rhs = {scalar} parameter(1)\n\
         {indices}  \
           ROOT compare = pred[] compare(p.0.lhs, p.0.rhs), direction={direction}{order}\n\
         }}\n"
    );
    import_computations(module, &text, caller)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::compare::Tolerance;
    use crate::pipeline::testing::{check_expansion, check_pass, check_unchanged};

    #[test]
    fn topk_becomes_sort_of_values_and_iota() {
        check_pass(
            TopkDecomposer,
            "
HloModule m
ENTRY main {
  x = f32[4,10]{1,0} parameter(0)
  t = (f32[4,3]{1,0}, s32[4,3]{1,0}) topk(x), k=3, largest=true
  v = f32[4,3]{1,0} get-tuple-element(t), index=0
  i = s32[4,3]{1,0} get-tuple-element(t), index=1
  ROOT r = (f32[4,3]{1,0}, s32[4,3]{1,0}) tuple(v, i)
}",
            "
HloModule m
comparator_t {
  p.0.lhs = f32[] parameter(0)
  p.0.rhs = f32[] parameter(1)
  p.1.lhs = s32[] parameter(2)
  p.1.rhs = s32[] parameter(3)
  ROOT compare = pred[] compare(p.0.lhs, p.0.rhs), direction=GT, type=TOTALORDER
}
ENTRY main {
  x = f32[4,10]{1,0} parameter(0)
  iota = s32[4,10]{1,0} iota(), iota_dimension=1
  sort = (f32[4,10]{1,0}, s32[4,10]{1,0}) sort(x, iota), dimensions={1}, is_stable=true, to_apply=comparator_t
  get-tuple-element = f32[4,10]{1,0} get-tuple-element(sort), index=0
  slice = f32[4,3]{1,0} slice(get-tuple-element), slice={[0:4], [0:3]}
  get-tuple-element.1 = s32[4,10]{1,0} get-tuple-element(sort), index=1
  slice.1 = s32[4,3]{1,0} slice(get-tuple-element.1), slice={[0:4], [0:3]}
  tuple = (f32[4,3]{1,0}, s32[4,3]{1,0}) tuple(slice, slice.1)
  v = f32[4,3]{1,0} get-tuple-element(tuple), index=0
  i = s32[4,3]{1,0} get-tuple-element(tuple), index=1
  ROOT r = (f32[4,3]{1,0}, s32[4,3]{1,0}) tuple(v, i)
}",
        );
    }

    #[test]
    fn values_only_topk_sorts_without_iota() {
        check_pass(
            TopkDecomposer,
            "
HloModule m
ENTRY main {
  x = s32[6]{0} parameter(0)
  t = (s32[2]{0}, s32[2]{0}) topk(x), k=2, largest=false
  ROOT v = s32[2]{0} get-tuple-element(t), index=0
}",
            "
HloModule m
comparator_t {
  p.0.lhs = s32[] parameter(0)
  p.0.rhs = s32[] parameter(1)
  ROOT compare = pred[] compare(p.0.lhs, p.0.rhs), direction=LT
}
ENTRY main {
  x = s32[6]{0} parameter(0)
  sort = s32[6]{0} sort(x), dimensions={0}, is_stable=true, to_apply=comparator_t
  ROOT slice = s32[2]{0} slice(sort), slice={[0:2]}
}",
        );
    }

    #[test]
    fn ties_and_nans_keep_topk_order() {
        // Many ties (integers in a small range) and, for floats, NaN and signed zeros:
        // the stable TOTALORDER sort must give the interpreter's topk exactly.
        let m = check_expansion(
            TopkDecomposer,
            "
HloModule m
ENTRY main {
  x = f32[3,8]{1,0} parameter(0)
  c = f32[3,8]{1,0} constant({{0, -0, nan, 1, 1, -inf, inf, -nan}, {2, 2, 2, 2, 1, 1, 1, 1}, {-0, 0, -0, 0, 5, 5, -1, -1}})
  y = f32[3,8]{1,0} add(x, c)
  t = (f32[3,5]{1,0}, s32[3,5]{1,0}) topk(c), k=5, largest=true
  u = (f32[3,5]{1,0}, s32[3,5]{1,0}) topk(c), k=5, largest=false
  w = (f32[3,2]{1,0}, s32[3,2]{1,0}) topk(y), k=2, largest=true
  ROOT r = ((f32[3,5]{1,0}, s32[3,5]{1,0}), (f32[3,5]{1,0}, s32[3,5]{1,0}), (f32[3,2]{1,0}, s32[3,2]{1,0})) tuple(t, u, w)
}",
            Tolerance::EXACT,
        );
        let main = m.entry_computation();
        assert!(!main.contains_opcode(Opcode::TopK));
        assert!(main.contains_opcode(Opcode::Sort));
    }

    #[test]
    fn leaves_modules_without_topk_alone() {
        check_unchanged(
            TopkDecomposer,
            "
HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY main {
  x = f32[10]{0} parameter(0)
  ROOT s = f32[10]{0} sort(x), dimensions={0}, to_apply=cmp
}",
        );
    }
}
