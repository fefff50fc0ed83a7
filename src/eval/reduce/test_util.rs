//! Test helpers for the evaluator's op tests: scalar computations (reducers, comparators)
//! built with `ComputationBuilder`, and running one instruction on literal arguments.

use crate::eval::{EvalOptions, EvalResult, evaluate};
use crate::ir::{
    ArrayLiteral, ComparisonDirection, ComparisonType, Computation, ComputationBuilder,
    ComputationId, Literal, Module, NativeType, Op, Opcode, PrimitiveType, Shape,
};

/// A module whose entry is filled in by [`eval_op`]; add called computations first.
pub(in crate::eval) fn module() -> Module {
    Module::new("test", Computation::new("placeholder"))
}

/// `(p0: T[], p1: T[]) -> opcode(p0, p1)`, added to `module`.
pub(in crate::eval) fn binary(
    module: &mut Module,
    opcode: Opcode,
    ty: PrimitiveType,
) -> ComputationId {
    let mut b = ComputationBuilder::new(format!("{}_{ty}", opcode.name()));
    let p0 = b.parameter(0, Shape::scalar(ty));
    let p1 = b.parameter(1, Shape::scalar(ty));
    let root = b.binary(opcode, p0, p1);
    module.add_computation(b.build(root))
}

/// A comparator with `2 * n` parameters of type `ty` comparing parameters 0 and 1.
pub(in crate::eval) fn comparator(
    module: &mut Module,
    n: usize,
    ty: PrimitiveType,
    direction: ComparisonDirection,
    comparison_type: Option<ComparisonType>,
) -> ComputationId {
    let mut b = ComputationBuilder::new(format!("cmp_{direction}"));
    let params: Vec<_> = (0..2 * n)
        .map(|i| b.parameter(i, Shape::scalar(ty)))
        .collect();
    let shape = Shape::scalar(PrimitiveType::Pred);
    let root = b.instr(
        shape,
        Op::Compare {
            direction,
            comparison_type,
        },
        &[params[0], params[1]],
    );
    module.add_computation(b.build(root))
}

/// Runs one instruction `op` of result `shape` whose operands are `args` (as parameters).
pub(in crate::eval) fn eval_op(
    module: &mut Module,
    args: &[Literal],
    shape: Shape,
    op: Op,
) -> EvalResult {
    let mut b = ComputationBuilder::new("main");
    let params: Vec<_> = args
        .iter()
        .enumerate()
        .map(|(i, a)| b.parameter(i, a.shape()))
        .collect();
    let root = b.instr(shape, op, &params);
    let entry = module.entry;
    module.computations[entry] = b.build(root);
    evaluate(module, args, &EvalOptions::default())
}

/// A row-major array literal.
pub(in crate::eval) fn lit<T: NativeType>(dims: &[i64], values: Vec<T>) -> Literal {
    Literal::Array(ArrayLiteral::from_vec(dims, values))
}

/// A scalar literal.
pub(in crate::eval) fn scalar<T: NativeType>(value: T) -> Literal {
    Literal::Array(ArrayLiteral::scalar(value))
}

/// The typed values of an array result (panics in tests if it is not one).
pub(in crate::eval) fn values<T: NativeType>(l: &Literal) -> Vec<T> {
    l.as_array()
        .and_then(|a| a.values::<T>())
        .expect("array of the expected type")
        .to_vec()
}

/// The dimensions of an array result.
pub(in crate::eval) fn dims(l: &Literal) -> Vec<i64> {
    l.as_array().expect("array").shape.dims.clone()
}
