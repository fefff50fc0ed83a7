//! Tests of sort and topk; expected orders worked out by hand.

use super::*;
use crate::eval::reduce::test_util::*;
use crate::ir::{
    ComparisonDirection as Dir, ComparisonType, ComputationBuilder, Module, Op, Opcode,
    PrimitiveType as P,
};

fn run_sort(m: &mut Module, args: &[Literal], dimension: usize, cmp: ComputationId) -> EvalResult {
    let shapes: Vec<Shape> = args.iter().map(Literal::shape).collect();
    let shape = if shapes.len() == 1 {
        shapes[0].clone()
    } else {
        Shape::Tuple(shapes)
    };
    eval_op(
        m,
        args,
        shape,
        Op::Sort {
            dimension,
            is_stable: true,
            to_apply: cmp,
        },
    )
}

#[test]
fn sort_floats_along_either_dimension() {
    let mut m = module();
    let lt = comparator(&mut m, 1, P::F32, Dir::Lt, None);
    let x = lit(&[2, 3], vec![3.0f32, 1.0, 2.0, 0.0, 5.0, -1.0]);
    let r = run_sort(&mut m, std::slice::from_ref(&x), 1, lt).unwrap();
    assert_eq!(values::<f32>(&r), vec![1.0, 2.0, 3.0, -1.0, 0.0, 5.0]);
    let r = run_sort(&mut m, &[x], 0, lt).unwrap();
    assert_eq!(values::<f32>(&r), vec![0.0, 1.0, -1.0, 3.0, 5.0, 2.0]);
    let gt = comparator(&mut m, 1, P::S32, Dir::Gt, None);
    let r = run_sort(&mut m, &[lit(&[4], vec![2i32, 9, -4, 7])], 0, gt).unwrap();
    assert_eq!(values::<i32>(&r), vec![9, 7, 2, -4]);
}

#[test]
fn sort_is_stable_and_permutes_every_operand() {
    let mut m = module();
    let lt = comparator(&mut m, 2, P::S32, Dir::Lt, None);
    let keys = lit(&[5], vec![2i32, 1, 2, 1, 0]);
    let vals = lit(&[5], vec![10.0f32, 11.0, 12.0, 13.0, 14.0]);
    let r = run_sort(&mut m, &[keys, vals], 0, lt).unwrap();
    let t = r.as_tuple().unwrap();
    assert_eq!(values::<i32>(&t[0]), vec![0, 1, 1, 2, 2]);
    assert_eq!(values::<f32>(&t[1]), vec![14.0, 11.0, 13.0, 10.0, 12.0]);
}

#[test]
fn totalorder_comparator_orders_nans_and_zeros() {
    let mut m = module();
    let lt = comparator(&mut m, 1, P::F32, Dir::Lt, Some(ComparisonType::TotalOrder));
    let neg_nan = -f32::NAN;
    let x = lit(
        &[6],
        vec![f32::NAN, 1.0, neg_nan, 0.0, -0.0, f32::NEG_INFINITY],
    );
    let r = values::<f32>(&run_sort(&mut m, &[x], 0, lt).unwrap());
    let bits: Vec<u32> = r.iter().map(|v| v.to_bits()).collect();
    let expected = [neg_nan, f32::NEG_INFINITY, -0.0, 0.0, 1.0, f32::NAN].map(f32::to_bits);
    assert_eq!(bits, expected);
}

/// A comparator with `2 * n` f32 parameters whose root is `constant(value)`.
fn constant_comparator(m: &mut Module, n: usize, value: bool) -> ComputationId {
    let mut b = ComputationBuilder::new("constant_cmp");
    for i in 0..2 * n {
        b.parameter(i, Shape::scalar(P::F32));
    }
    let root = b.constant(ArrayLiteral::scalar(value));
    m.add_computation(b.build(root))
}

#[test]
fn sort_calls_an_unrecognized_comparator() {
    // "Nothing is less than anything": a stable sort keeps the input order.
    let mut m = module();
    let never = constant_comparator(&mut m, 1, false);
    let r = run_sort(&mut m, &[lit(&[4], vec![3.0f32, 1.0, 2.0, 0.0])], 0, never).unwrap();
    assert_eq!(values::<f32>(&r), vec![3.0, 1.0, 2.0, 0.0]);
}

#[test]
fn comparator_errors_propagate() {
    let mut m = module();
    let mut b = ComputationBuilder::new("broken");
    let p0 = b.parameter(0, Shape::scalar(P::F32));
    let _p1 = b.parameter(1, Shape::scalar(P::F32));
    let root = b.instr(
        Shape::scalar(P::Pred),
        Op::Unmodeled {
            opcode: Opcode::AllReduce,
            called: vec![],
        },
        &[p0],
    );
    let broken = m.add_computation(b.build(root));
    assert!(run_sort(&mut m, &[lit(&[2], vec![2.0f32, 1.0])], 0, broken).is_err());
    // A comparator with the wrong number of parameters is rejected.
    let lt = comparator(&mut m, 2, P::F32, Dir::Lt, None);
    assert!(run_sort(&mut m, &[lit(&[2], vec![2.0f32, 1.0])], 0, lt).is_err());
}

#[test]
fn sort_by_second_operand_through_the_call_path() {
    // compare(p2, p3): the keys are the second operand.
    let mut m = module();
    let mut b = ComputationBuilder::new("by_second");
    let ps: Vec<_> = [P::F32, P::F32, P::S32, P::S32]
        .iter()
        .enumerate()
        .map(|(i, &t)| b.parameter(i, Shape::scalar(t)))
        .collect();
    let root = b.compare(Dir::Lt, ps[2], ps[3]);
    let cmp = m.add_computation(b.build(root));
    let r = run_sort(
        &mut m,
        &[
            lit(&[3], vec![1.0f32, 2.0, 3.0]),
            lit(&[3], vec![2i32, 0, 1]),
        ],
        0,
        cmp,
    )
    .unwrap();
    let t = r.as_tuple().unwrap();
    assert_eq!(values::<f32>(&t[0]), vec![2.0, 3.0, 1.0]);
}

fn run_topk(x: Literal, k: i64, largest: bool) -> (Literal, Vec<i32>) {
    let mut dims = x.shape().dims().to_vec();
    *dims.last_mut().unwrap() = k;
    let ty = x.shape().element_type().unwrap();
    let shape = Shape::Tuple(vec![Shape::array(ty, &dims), Shape::array(P::S32, &dims)]);
    let r = topk(&shape, &x, k, largest).unwrap();
    let t = r.as_tuple().unwrap().to_vec();
    (t[0].clone(), values::<i32>(&t[1]))
}

#[test]
fn topk_largest_and_smallest_with_ties() {
    let (v, i) = run_topk(lit(&[4], vec![1.0f32, 3.0, 3.0, 2.0]), 2, true);
    assert_eq!((values::<f32>(&v), i), (vec![3.0, 3.0], vec![1, 2]));
    let (v, i) = run_topk(lit(&[4], vec![1.0f32, 3.0, 3.0, 2.0]), 2, false);
    assert_eq!((values::<f32>(&v), i), (vec![1.0, 2.0], vec![0, 3]));
    // Rows of a 2-D input, integers.
    let (v, i) = run_topk(lit(&[2, 3], vec![5i32, 9, 1, 4, 4, 8]), 2, true);
    assert_eq!((values::<i32>(&v), i), (vec![9, 5, 8, 4], vec![1, 0, 2, 0]));
}

#[test]
fn topk_puts_nan_above_everything() {
    let (v, i) = run_topk(lit(&[3], vec![1.0f32, f32::NAN, 5.0]), 2, true);
    let v = values::<f32>(&v);
    assert!(v[0].is_nan());
    assert_eq!((v[1], i), (5.0, vec![1, 2]));
    let (v, i) = run_topk(lit(&[3], vec![f32::NAN, -1.0, 2.0]), 2, false);
    assert_eq!((values::<f32>(&v), i), (vec![-1.0, 2.0], vec![1, 2]));
}

#[test]
fn topk_rejects_k_larger_than_the_dimension() {
    let x = lit(&[2], vec![1.0f32, 2.0]);
    let shape = Shape::Tuple(vec![Shape::array(P::F32, &[3]), Shape::array(P::S32, &[3])]);
    assert!(topk(&shape, &x, 3, true).is_err());
}
