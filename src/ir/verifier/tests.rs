//! Verifier tests: modules built in code (the HLO text parser is tested elsewhere), each
//! broken in one known way; the expected messages are written by hand.

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` in a table of cases.
#![allow(clippy::cloned_ref_to_slice_refs)]

use super::{VerifyError, verify};
use crate::ir::PrimitiveType::*;
use crate::ir::*;

fn f32s(dims: &[i64]) -> Shape {
    Shape::array(F32, dims)
}

/// The rendered errors of `verify`, or an empty list when it passes.
fn errors(module: &Module) -> Vec<String> {
    match verify(module) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(VerifyError::to_string).collect(),
    }
}

/// `main(p0: f32[4], p1: rhs) { ROOT add.2 = declared add(p0, p1) }`.
fn add_module(rhs: Shape, declared: Shape) -> Module {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, f32s(&[4]));
    let y = b.parameter(1, rhs);
    let add = b.instr(declared, Op::Plain(Opcode::Add), &[x, y]);
    Module::new("m", b.build(add))
}

/// `(a: f32[], b: f32[]) -> f32[]` adding its parameters.
fn add_reducer() -> Computation {
    let mut b = ComputationBuilder::new("add");
    let x = b.parameter(0, f32s(&[]));
    let y = b.parameter(1, f32s(&[]));
    let r = b.binary(Opcode::Add, x, y);
    b.build(r)
}

#[test]
fn a_good_module_passes() {
    let mut module = Module::new("m", Computation::new("placeholder"));
    let add = module.add_computation(add_reducer());
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, f32s(&[2, 3]));
    let e = b.unary(Opcode::Exp, x);
    let zero = b.constant(ArrayLiteral::scalar(0.0f32));
    let sum = b.instr(
        f32s(&[2]),
        Op::Reduce {
            dimensions: vec![1],
            to_apply: add,
        },
        &[e, zero],
    );
    let entry = module.entry;
    module.computations[entry] = b.build(sum);
    assert_eq!(errors(&module), Vec::<String>::new());
}

#[test]
fn operand_mismatch_names_the_instruction_and_both_shapes() {
    let mut module = add_module(f32s(&[5]), f32s(&[4]));
    assert_eq!(
        errors(&module),
        vec!["main/add.2: operands are f32[4] and f32[5]; add needs equal shapes"]
    );
    // Parsed from text, the error starts at the instruction's line and column.
    let entry = module.entry;
    let comp = &mut module.computations[entry];
    let root = comp.root;
    comp.spans[root] = Span { line: 7, col: 3 };
    assert_eq!(
        errors(&module),
        vec!["7:3: main/add.2: operands are f32[4] and f32[5]; add needs equal shapes"]
    );
}

#[test]
fn declared_shape_mismatch_shows_both() {
    let module = add_module(f32s(&[4]), f32s(&[5]));
    assert_eq!(
        errors(&module),
        vec!["main/add.2: inferred f32[4] but declared f32[5]"]
    );
    // Layouts are not part of the comparison.
    let mut col = ArrayShape::new(F32, &[4]);
    col.layout.minor_to_major = vec![0];
    assert_eq!(
        errors(&add_module(f32s(&[4]), Shape::Array(col))),
        Vec::<String>::new()
    );
}

#[test]
fn every_error_is_collected() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, f32s(&[4]));
    let bad_neg = b.instr(f32s(&[3]), Op::Plain(Opcode::Negate), &[x]);
    let bad_exp = b.instr(Shape::array(S32, &[4]), Op::Plain(Opcode::Exp), &[x]);
    let t = b.instr(
        Shape::Tuple(vec![f32s(&[3]), Shape::array(S32, &[4])]),
        Op::Plain(Opcode::Tuple),
        &[bad_neg, bad_exp],
    );
    let module = Module::new("m", b.build(t));
    assert_eq!(
        errors(&module),
        vec![
            "main/negate.1: inferred f32[4] but declared f32[3]",
            "main/exponential.2: inferred f32[4] but declared s32[4]",
        ]
    );
}

#[test]
fn operands_must_come_first() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, f32s(&[4]));
    let n = b.unary(Opcode::Negate, x);
    let e = b.unary(Opcode::Exp, n);
    let mut comp = b.build(e);
    comp.order = vec![x, e, n];
    let module = Module::new("m", comp);
    assert_eq!(
        errors(&module),
        vec![
            "main/exponential.2: operand negate.1 is defined later; it must come before its users"
        ]
    );
}

#[test]
fn operands_and_root_must_be_live() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, f32s(&[4]));
    let dead = b.unary(Opcode::Negate, x);
    let e = b.unary(Opcode::Exp, dead);
    let mut comp = b.build(e);
    comp.order.retain(|&id| id != dead);
    let module = Module::new("m", comp.clone());
    assert_eq!(
        errors(&module),
        vec!["main/exponential.2: operand 0 refers to an instruction that is not in main"]
    );

    comp.order = vec![x];
    let module = Module::new("m", comp);
    assert_eq!(
        errors(&module),
        vec!["main: the ROOT instruction is not one of the computation's instructions"]
    );
}

#[test]
fn parameter_numbers_are_dense_and_unique() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, f32s(&[4]));
    let y = b.parameter(2, f32s(&[4]));
    let add = b.binary(Opcode::Add, x, y);
    let module = Module::new("m", b.build(add));
    assert_eq!(
        errors(&module),
        vec!["main/parameter.1: parameter(2) follows parameter(0); numbers must have no gaps"]
    );

    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(1, f32s(&[4]));
    let y = b.parameter(1, f32s(&[4]));
    let add = b.binary(Opcode::Add, x, y);
    let module = Module::new("m", b.build(add));
    assert_eq!(
        errors(&module),
        vec![
            "main/parameter.1: parameter(1) appears twice",
            "main/parameter.0: parameter numbers must start at 0, but the first is 1",
        ]
    );
}

#[test]
fn fixed_arity_is_checked() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, f32s(&[4]));
    let add = b.instr(f32s(&[4]), Op::Plain(Opcode::Add), &[x]);
    let module = Module::new("m", b.build(add));
    assert_eq!(
        errors(&module),
        vec!["main/add.1: add takes 2 operands but has 1"]
    );
}

#[test]
fn called_computations_must_exist_be_live_and_take_the_right_count() {
    let mut module = Module::new("m", Computation::new("placeholder"));
    let add = module.add_computation(add_reducer());
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, f32s(&[]));
    let call = b.instr(f32s(&[]), Op::Call { to_apply: add }, &[x]);
    let entry = module.entry;
    module.computations[entry] = b.build(call);
    assert_eq!(
        errors(&module),
        vec!["main/call.1: call calls add with 1 argument, but it has 2 parameters"]
    );

    // A computation removed from the module's order is dead.
    module.order.retain(|&c| c != add);
    assert_eq!(
        errors(&module),
        vec!["main/call.1: calls add, which is not in the module"]
    );

    // Calling the entry from itself.
    module.computations[entry].instrs[call].op = Op::Call { to_apply: entry };
    assert_eq!(
        errors(&module),
        vec!["main/call.1: calls its own computation main; recursion is not allowed"]
    );
}

#[test]
fn structure_errors_come_before_shape_checks() {
    // Both a wrong arity and a wrong shape: only the structural error is reported, because
    // shape inference cannot run on a broken computation.
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, f32s(&[4]));
    let add = b.instr(f32s(&[9]), Op::Plain(Opcode::Add), &[x, x, x]);
    let module = Module::new("m", b.build(add));
    assert_eq!(
        errors(&module),
        vec!["main/add.1: add takes 2 operands but has 3"]
    );
}

#[test]
fn entry_layout_must_match_the_entry() {
    let mut module = add_module(f32s(&[4]), f32s(&[4]));
    module.config.entry_computation_layout = Some(ProgramShape {
        parameters: vec![f32s(&[4]), f32s(&[4])],
        result: f32s(&[4]),
    });
    assert_eq!(errors(&module), Vec::<String>::new());
    module.config.entry_computation_layout = Some(ProgramShape {
        parameters: vec![f32s(&[4]), f32s(&[3])],
        result: f32s(&[4]),
    });
    assert_eq!(
        errors(&module),
        vec!["main: entry_computation_layout says parameter 1 is f32[3] but it is f32[4]"]
    );
}

#[test]
fn layouts_must_be_permutations() {
    let mut bad = ArrayShape::new(F32, &[2, 2]);
    bad.layout.minor_to_major = vec![0, 0];
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, Shape::Array(bad));
    let module = Module::new("m", b.build(x));
    assert_eq!(
        errors(&module),
        vec![
            "main/parameter.0: the layout {0,0} of f32[2,2] must list each of its 2 dimensions once"
        ]
    );
}

#[test]
fn while_loop_with_tuple_state_verifies() {
    // cond: (s32[], f32[4]) -> pred[]; body: the same state back; main: while(tuple(i, x)).
    let state = Shape::Tuple(vec![Shape::array(S32, &[]), f32s(&[4])]);
    let mut module = Module::new("m", Computation::new("placeholder"));

    let mut b = ComputationBuilder::new("cond");
    let p = b.parameter(0, state.clone());
    let i = b.instr(
        Shape::array(S32, &[]),
        Op::GetTupleElement { index: 0 },
        &[p],
    );
    let ten = b.constant(ArrayLiteral::scalar(10i32));
    let lt = b.compare(ComparisonDirection::Lt, i, ten);
    let cond = module.add_computation(b.build(lt));

    let mut b = ComputationBuilder::new("body");
    let p = b.parameter(0, state.clone());
    let i = b.instr(
        Shape::array(S32, &[]),
        Op::GetTupleElement { index: 0 },
        &[p],
    );
    let x = b.instr(f32s(&[4]), Op::GetTupleElement { index: 1 }, &[p]);
    let one = b.constant(ArrayLiteral::scalar(1i32));
    let next = b.binary(Opcode::Add, i, one);
    let t = b.instr(state.clone(), Op::Plain(Opcode::Tuple), &[next, x]);
    let body = module.add_computation(b.build(t));

    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, f32s(&[4]));
    let zero = b.constant(ArrayLiteral::scalar(0i32));
    let init = b.instr(state.clone(), Op::Plain(Opcode::Tuple), &[zero, x]);
    let w = b.instr(
        state.clone(),
        Op::While {
            condition: cond,
            body,
        },
        &[init],
    );
    let out = b.instr(f32s(&[4]), Op::GetTupleElement { index: 1 }, &[w]);
    let entry = module.entry;
    module.computations[entry] = b.build(out);
    assert_eq!(errors(&module), Vec::<String>::new());

    // A body that drops the counter no longer matches the loop state.
    let body_comp = &mut module.computations[body];
    let root = body_comp.root;
    body_comp.instrs[root].shape = Shape::Tuple(vec![f32s(&[4])]);
    body_comp.instrs[root].operands = vec![x_of(body_comp)];
    let errs = errors(&module);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].starts_with("main/while."), "{errs:?}");
    assert!(
        errs[0].contains("the body is ((s32[], f32[4])) -> (f32[4])"),
        "{errs:?}"
    );
}

/// The `get-tuple-element(p), index=1` of the body built above.
fn x_of(comp: &Computation) -> InstrId {
    comp.iter()
        .find(|(_, i)| matches!(i.op, Op::GetTupleElement { index: 1 }))
        .map(|(id, _)| id)
        .expect("the body has a get-tuple-element of index 1")
}
