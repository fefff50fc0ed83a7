//! While, conditional and map on small modules built with `ComputationBuilder`.

use super::*;
use crate::eval::{EvalOptions, evaluate};
use crate::ir::{
    ArrayLiteral, ComparisonDirection, ComputationBuilder, Module, Op, Opcode, PrimitiveType,
};

fn s32() -> Shape {
    Shape::scalar(PrimitiveType::S32)
}

fn scalar_i32(l: &Literal) -> i32 {
    l.as_array().and_then(|a| a.values::<i32>()).unwrap()[0]
}

/// `x + k`, a one-parameter s32 computation.
fn add_const(name: &str, k: i32) -> crate::ir::Computation {
    let mut b = ComputationBuilder::new(name);
    let p = b.parameter(0, s32());
    let c = b.constant(ArrayLiteral::scalar(k));
    let r = b.binary(Opcode::Add, p, c);
    b.build(r)
}

#[test]
fn while_counts_to_ten() {
    let mut entry = ComputationBuilder::new("main");
    let init = entry.parameter(0, s32());
    let placeholder = entry.build(init);
    let mut module = Module::new("m", placeholder);
    let mut cond = ComputationBuilder::new("cond");
    let p = cond.parameter(0, s32());
    let ten = cond.constant(ArrayLiteral::scalar(10i32));
    let lt = cond.compare(ComparisonDirection::Lt, p, ten);
    let cond = module.add_computation(cond.build(lt));
    let body = module.add_computation(add_const("body", 1));
    let mut entry = ComputationBuilder::new("main");
    let init = entry.parameter(0, s32());
    let w = entry.instr(
        s32(),
        Op::While {
            condition: cond,
            body,
        },
        &[init],
    );
    module.computations[module.entry] = entry.build(w);
    let run = |start: i32| {
        let arg = Literal::Array(ArrayLiteral::scalar(start));
        scalar_i32(&evaluate(&module, &[arg], &EvalOptions::default()).unwrap())
    };
    assert_eq!(run(0), 10);
    assert_eq!(run(3), 10);
    // The condition is false at once: the body never runs.
    assert_eq!(run(42), 42);
}

fn conditional_module(selector_type: PrimitiveType) -> Module {
    let mut placeholder = ComputationBuilder::new("main");
    let p = placeholder.parameter(0, s32());
    let mut module = Module::new("m", placeholder.build(p));
    let b0 = module.add_computation(add_const("b0", 100));
    let b1 = module.add_computation(add_const("b1", 200));
    let b2 = module.add_computation(add_const("b2", 300));
    let branches = if selector_type == PrimitiveType::Pred {
        vec![b0, b1]
    } else {
        vec![b0, b1, b2]
    };
    let mut entry = ComputationBuilder::new("main");
    let sel = entry.parameter(0, Shape::scalar(selector_type));
    let x = entry.parameter(1, s32());
    let operands: Vec<_> = std::iter::once(sel)
        .chain(branches.iter().map(|_| x))
        .collect();
    let c = entry.instr(
        s32(),
        Op::Conditional {
            branch_computations: branches,
        },
        &operands,
    );
    module.computations[module.entry] = entry.build(c);
    module
}

#[test]
fn conditional_selects_branches() {
    let m = conditional_module(PrimitiveType::Pred);
    let x = Literal::Array(ArrayLiteral::scalar(1i32));
    let run = |m: &Module, sel: Literal| {
        scalar_i32(&evaluate(m, &[sel, x.clone()], &EvalOptions::default()).unwrap())
    };
    // pred true runs branch 0 (true_computation), false runs branch 1.
    assert_eq!(run(&m, Literal::Array(ArrayLiteral::scalar(true))), 101);
    assert_eq!(run(&m, Literal::Array(ArrayLiteral::scalar(false))), 201);
    let m = conditional_module(PrimitiveType::S32);
    assert_eq!(run(&m, Literal::Array(ArrayLiteral::scalar(1i32))), 201);
    // Out of range (either side) runs the last branch.
    assert_eq!(run(&m, Literal::Array(ArrayLiteral::scalar(7i32))), 301);
    assert_eq!(run(&m, Literal::Array(ArrayLiteral::scalar(-1i32))), 301);
}

#[test]
fn map_applies_a_scalar_computation() {
    let mut placeholder = ComputationBuilder::new("main");
    let p = placeholder.parameter(0, s32());
    let mut module = Module::new("m", placeholder.build(p));
    let mut f = ComputationBuilder::new("mul_add");
    let a = f.parameter(0, s32());
    let b = f.parameter(1, s32());
    let m = f.binary(Opcode::Multiply, a, b);
    let r = f.binary(Opcode::Add, m, a);
    let f = module.add_computation(f.build(r));
    let v = Shape::array(PrimitiveType::S32, &[3]);
    let mut entry = ComputationBuilder::new("main");
    let x = entry.parameter(0, v.clone());
    let y = entry.parameter(1, v.clone());
    let out = entry.instr(
        v,
        Op::Map {
            dimensions: vec![0],
            to_apply: f,
        },
        &[x, y],
    );
    module.computations[module.entry] = entry.build(out);
    let x = Literal::Array(ArrayLiteral::from_vec(&[3], vec![1i32, 2, 3]));
    let y = Literal::Array(ArrayLiteral::from_vec(&[3], vec![4i32, 5, 6]));
    let out = evaluate(&module, &[x, y], &EvalOptions::default()).unwrap();
    // a*b + a: 1*4+1, 2*5+2, 3*6+3
    assert_eq!(
        out.as_array().unwrap().values::<i32>().unwrap(),
        &[5, 12, 21]
    );
}

#[test]
fn entry_runs_elementwise_chain_with_column_major_argument() {
    // exp(x) - x on f32[2,2] given in column-major layout: the result is row-major.
    let shape = Shape::array(PrimitiveType::F32, &[2, 2]);
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, shape);
    let e = b.unary(Opcode::Exp, x);
    let r = b.binary(Opcode::Subtract, e, x);
    let module = Module::new("m", b.build(r));
    let row_major = ArrayLiteral::from_vec(&[2, 2], vec![0.0f32, 1.0, 2.0, 3.0]);
    let layout = crate::ir::Layout {
        minor_to_major: vec![0, 1],
        extra: None,
    };
    let arg = Literal::Array(row_major.with_layout(&layout));
    let out = evaluate(&module, &[arg], &EvalOptions::default()).unwrap();
    let got = out.as_array().unwrap().values::<f32>().unwrap().to_vec();
    let want: Vec<f32> = [0.0f32, 1.0, 2.0, 3.0]
        .iter()
        .map(|&v| v.exp() - v)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn copy_of_a_tuple_and_get_tuple_element() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(0, s32());
    let y = b.parameter(1, Shape::scalar(PrimitiveType::F32));
    let tuple_shape = Shape::Tuple(vec![s32(), Shape::scalar(PrimitiveType::F32)]);
    let t = b.instr(tuple_shape.clone(), Op::Plain(Opcode::Tuple), &[x, y]);
    let c = b.instr(tuple_shape, Op::Plain(Opcode::Copy), &[t]);
    let g = b.instr(s32(), Op::GetTupleElement { index: 0 }, &[c]);
    let module = Module::new("m", b.build(g));
    let args = [
        Literal::Array(ArrayLiteral::scalar(5i32)),
        Literal::Array(ArrayLiteral::scalar(1.5f32)),
    ];
    assert_eq!(
        scalar_i32(&evaluate(&module, &args, &EvalOptions::default()).unwrap()),
        5
    );
}
