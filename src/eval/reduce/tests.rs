//! Tests of reduce, reduce-window and select-and-scatter. Expected values are worked out by
//! hand from XLA's operation semantics.

use half::bf16;

use super::test_util::*;
use crate::eval::EvalResult;
use crate::ir::{
    ComparisonDirection, ComputationBuilder, Literal, Module, Op, Opcode, PrimitiveType as P,
    Shape, Window, WindowDimension,
};

fn reduce(
    m: &mut Module,
    args: &[Literal],
    shape: Shape,
    dims: &[usize],
    to_apply: crate::ir::ComputationId,
) -> EvalResult {
    eval_op(
        m,
        args,
        shape,
        Op::Reduce {
            dimensions: dims.to_vec(),
            to_apply,
        },
    )
}

#[test]
fn reduce_add_over_each_dimension() {
    let mut m = module();
    let add = binary(&mut m, Opcode::Add, P::F32);
    let x = lit(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = reduce(
        &mut m,
        &[x.clone(), scalar(0.0f32)],
        Shape::array(P::F32, &[2]),
        &[1],
        add,
    )
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![6.0, 15.0]);
    let r = reduce(
        &mut m,
        &[x.clone(), scalar(0.0f32)],
        Shape::array(P::F32, &[3]),
        &[0],
        add,
    )
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![5.0, 7.0, 9.0]);
    let r = reduce(
        &mut m,
        &[x, scalar(10.0f32)],
        Shape::array(P::F32, &[]),
        &[1, 0],
        add,
    )
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![31.0]);
}

#[test]
fn reduce_middle_dimension_of_rank_3() {
    let mut m = module();
    let add = binary(&mut m, Opcode::Add, P::S32);
    // x[i][j][k] = 100*i + 10*j + k, shape [2,3,2]; summing j gives 300*i + 30 + 3*k.
    let v: Vec<i32> = (0..2)
        .flat_map(|i| (0..3).flat_map(move |j| (0..2).map(move |k| 100 * i + 10 * j + k)))
        .collect();
    let r = reduce(
        &mut m,
        &[lit(&[2, 3, 2], v), scalar(0i32)],
        Shape::array(P::S32, &[2, 2]),
        &[1],
        add,
    )
    .unwrap();
    assert_eq!(values::<i32>(&r), vec![30, 33, 330, 333]);
    assert_eq!(dims(&r), vec![2, 2]);
}

#[test]
fn reduce_integer_add_wraps() {
    let mut m = module();
    let add = binary(&mut m, Opcode::Add, P::S32);
    let r = reduce(
        &mut m,
        &[lit(&[2], vec![i32::MAX, 1]), scalar(0i32)],
        Shape::array(P::S32, &[]),
        &[0],
        add,
    )
    .unwrap();
    assert_eq!(values::<i32>(&r), vec![i32::MIN]);
}

#[test]
fn reduce_float_add_accumulates_in_f64_like_hlo_evaluator() {
    let mut m = module();
    let add = binary(&mut m, Opcode::Add, P::F32);
    // In f32 step by step 1e8 + 1 rounds back to 1e8 and the result would be 0.
    let x = lit(&[3], vec![1.0e8f32, 1.0, -1.0e8]);
    let r = reduce(
        &mut m,
        &[x, scalar(0.0f32)],
        Shape::array(P::F32, &[]),
        &[0],
        add,
    )
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![1.0]);

    // bf16: 1 + 2^-8 + 2^-8 = 1 + 2^-7 (representable); step by step each add would tie
    // and round back to 1.
    let add = binary(&mut m, Opcode::Add, P::BF16);
    let e = bf16::from_f32(1.0 / 256.0);
    let x = lit(&[3], vec![bf16::ONE, e, e]);
    let r = reduce(
        &mut m,
        &[x, scalar(bf16::ZERO)],
        Shape::array(P::BF16, &[]),
        &[0],
        add,
    )
    .unwrap();
    assert_eq!(values::<bf16>(&r), vec![bf16::from_f32(1.0078125)]);
}

#[test]
fn reduce_bf16_multiply_rounds_every_step() {
    let mut m = module();
    let mul = binary(&mut m, Opcode::Multiply, P::BF16);
    // a = 1 + 2^-7. a*a = 1 + 2^-6 + 2^-14 rounds to 1 + 2^-6 = 1.015625; times 1.25 is
    // 1.26953125, exactly halfway between bf16 neighbours 1.265625 and 1.2734375, so it
    // rounds to even: 1.265625. Kept in f32, the 2^-14 term would tip it to 1.2734375.
    let a = bf16::from_f32(1.0078125);
    let x = lit(&[3], vec![a, a, bf16::from_f32(1.25)]);
    let r = reduce(
        &mut m,
        &[x, scalar(bf16::ONE)],
        Shape::array(P::BF16, &[]),
        &[0],
        mul,
    )
    .unwrap();
    assert_eq!(values::<bf16>(&r), vec![bf16::from_f32(1.265625)]);
}

#[test]
fn reduce_max_propagates_nan_and_min_of_ints() {
    let mut m = module();
    let max = binary(&mut m, Opcode::Maximum, P::F32);
    let x = lit(&[2, 2], vec![1.0f32, f32::NAN, 3.0, 2.0]);
    let r = reduce(
        &mut m,
        &[x, scalar(f32::NEG_INFINITY)],
        Shape::array(P::F32, &[2]),
        &[1],
        max,
    )
    .unwrap();
    let v = values::<f32>(&r);
    assert!(v[0].is_nan());
    assert_eq!(v[1], 3.0);

    let min = binary(&mut m, Opcode::Minimum, P::U8);
    let r = reduce(
        &mut m,
        &[lit(&[3], vec![7u8, 3, 9]), scalar(255u8)],
        Shape::array(P::U8, &[]),
        &[0],
        min,
    )
    .unwrap();
    assert_eq!(values::<u8>(&r), vec![3]);
}

#[test]
fn reduce_of_empty_dimension_is_the_init() {
    let mut m = module();
    let add = binary(&mut m, Opcode::Add, P::F32);
    let r = reduce(
        &mut m,
        &[lit::<f32>(&[2, 0], vec![]), scalar(5.0f32)],
        Shape::array(P::F32, &[2]),
        &[1],
        add,
    )
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![5.0, 5.0]);
}

/// `(acc0, acc1, x0, x1) -> (x0, acc1)`: keeps the last x0 and the init of the second
/// input. Uses only parameters and `tuple`, so it exercises the per-element call path.
fn last_and_init(m: &mut Module, ty0: P, ty1: P) -> crate::ir::ComputationId {
    let mut b = ComputationBuilder::new("last_and_init");
    let _acc0 = b.parameter(0, Shape::scalar(ty0));
    let acc1 = b.parameter(1, Shape::scalar(ty1));
    let x0 = b.parameter(2, Shape::scalar(ty0));
    let _x1 = b.parameter(3, Shape::scalar(ty1));
    let shape = Shape::Tuple(vec![Shape::scalar(ty0), Shape::scalar(ty1)]);
    let root = b.instr(shape, Op::Plain(Opcode::Tuple), &[x0, acc1]);
    m.add_computation(b.build(root))
}

#[test]
fn variadic_reduce_calls_the_reducer_in_row_major_order() {
    let mut m = module();
    let f = last_and_init(&mut m, P::F32, P::S32);
    let x = lit(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let y = lit(&[2, 3], vec![0i32; 6]);
    let shape = Shape::Tuple(vec![Shape::array(P::F32, &[2]), Shape::array(P::S32, &[2])]);
    let r = reduce(
        &mut m,
        &[x, y, scalar(0.0f32), scalar(-1i32)],
        shape,
        &[1],
        f,
    )
    .unwrap();
    let t = r.as_tuple().unwrap();
    assert_eq!(values::<f32>(&t[0]), vec![3.0, 6.0]);
    assert_eq!(values::<i32>(&t[1]), vec![-1, -1]);
}

#[test]
fn variadic_argmax_reduce() {
    // (max_val, max_idx) reducer: keep the accumulator unless x > acc.
    let mut m = module();
    let mut b = ComputationBuilder::new("argmax");
    let av = b.parameter(0, Shape::scalar(P::F32));
    let ai = b.parameter(1, Shape::scalar(P::S32));
    let xv = b.parameter(2, Shape::scalar(P::F32));
    let xi = b.parameter(3, Shape::scalar(P::S32));
    let gt = b.compare(ComparisonDirection::Gt, xv, av);
    let v = b.instr(
        Shape::scalar(P::F32),
        Op::Plain(Opcode::Select),
        &[gt, xv, av],
    );
    let i = b.instr(
        Shape::scalar(P::S32),
        Op::Plain(Opcode::Select),
        &[gt, xi, ai],
    );
    let shape = Shape::Tuple(vec![Shape::scalar(P::F32), Shape::scalar(P::S32)]);
    let root = b.instr(shape.clone(), Op::Plain(Opcode::Tuple), &[v, i]);
    let f = m.add_computation(b.build(root));
    let x = lit(&[5], vec![1.0f32, 7.0, 3.0, 7.0, 2.0]);
    let idx = lit(&[5], vec![0i32, 1, 2, 3, 4]);
    let shape = Shape::Tuple(vec![Shape::array(P::F32, &[]), Shape::array(P::S32, &[])]);
    let r = reduce(
        &mut m,
        &[x, idx, scalar(f32::NEG_INFINITY), scalar(-1i32)],
        shape,
        &[0],
        f,
    )
    .unwrap();
    let t = r.as_tuple().unwrap();
    assert_eq!(values::<f32>(&t[0]), vec![7.0]);
    assert_eq!(values::<i32>(&t[1]), vec![1]);
}

#[test]
fn reduce_with_a_two_instruction_reducer_takes_the_call_path() {
    // add(p0, multiply(p1, p1)): sum of squares, not recognized as a single op.
    let mut m = module();
    let mut b = ComputationBuilder::new("sumsq");
    let p0 = b.parameter(0, Shape::scalar(P::F32));
    let p1 = b.parameter(1, Shape::scalar(P::F32));
    let sq = b.binary(Opcode::Multiply, p1, p1);
    let root = b.binary(Opcode::Add, p0, sq);
    let f = m.add_computation(b.build(root));
    let r = reduce(
        &mut m,
        &[lit(&[3], vec![1.0f32, 2.0, 3.0]), scalar(0.0f32)],
        Shape::array(P::F32, &[]),
        &[0],
        f,
    )
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![14.0]);
}

fn window(dims: &[(i64, i64, i64, i64, i64, i64)]) -> Window {
    // (size, stride, pad_low, pad_high, base_dilation, window_dilation)
    Window {
        dimensions: dims
            .iter()
            .map(|&(size, stride, lo, hi, lhs, rhs)| WindowDimension {
                stride,
                padding_low: lo,
                padding_high: hi,
                base_dilation: lhs,
                window_dilation: rhs,
                ..WindowDimension::of_size(size)
            })
            .collect(),
    }
}

fn reduce_window_1d(
    x: Vec<f32>,
    out: i64,
    w: (i64, i64, i64, i64, i64, i64),
    opcode: Opcode,
    init: f32,
) -> Vec<f32> {
    let mut m = module();
    let f = binary(&mut m, opcode, P::F32);
    let n = x.len() as i64;
    let op = Op::ReduceWindow {
        window: window(&[w]),
        to_apply: f,
    };
    let r = eval_op(
        &mut m,
        &[lit(&[n], x), scalar(init)],
        Shape::array(P::F32, &[out]),
        op,
    )
    .unwrap();
    values::<f32>(&r)
}

#[test]
fn reduce_window_strides_padding_and_dilations() {
    let x = vec![1.0f32, 2.0, 3.0, 4.0, 5.0];
    // Plain sliding sum of 2.
    assert_eq!(
        reduce_window_1d(x.clone(), 4, (2, 1, 0, 0, 1, 1), Opcode::Add, 0.0),
        vec![3.0, 5.0, 7.0, 9.0]
    );
    // Size 3 with one padding element on each side: padded positions are skipped.
    assert_eq!(
        reduce_window_1d(x.clone(), 5, (3, 1, 1, 1, 1, 1), Opcode::Add, 0.0),
        vec![3.0, 6.0, 9.0, 12.0, 9.0]
    );
    // The cumulative-sum pattern JAX emits: size n, pad n-1 low.
    assert_eq!(
        reduce_window_1d(
            vec![1.0, 2.0, 3.0, 4.0],
            4,
            (4, 1, 3, 0, 1, 1),
            Opcode::Add,
            0.0
        ),
        vec![1.0, 3.0, 6.0, 10.0]
    );
    // Negative low padding drops the first element: windows over [2,3,4,5].
    assert_eq!(
        reduce_window_1d(x.clone(), 3, (2, 1, -1, 0, 1, 1), Opcode::Add, 0.0),
        vec![5.0, 7.0, 9.0]
    );
    // Stride 2.
    assert_eq!(
        reduce_window_1d(x.clone(), 2, (2, 2, 0, 0, 1, 1), Opcode::Add, 0.0),
        vec![3.0, 7.0]
    );
    // Window dilation 2: pairs (0,2), (1,3), (2,4).
    assert_eq!(
        reduce_window_1d(x.clone(), 3, (2, 1, 0, 0, 1, 2), Opcode::Add, 0.0),
        vec![4.0, 6.0, 8.0]
    );
    // Base dilation 2: the base is [1,_,2,_,3]; each window of 2 sees one element.
    assert_eq!(
        reduce_window_1d(
            vec![1.0, 2.0, 3.0],
            4,
            (2, 1, 0, 0, 2, 1),
            Opcode::Add,
            100.0
        ),
        vec![101.0, 102.0, 102.0, 103.0]
    );
    // Max with -inf init; a window entirely in the padding yields the init.
    assert_eq!(
        reduce_window_1d(
            vec![1.0, 2.0],
            3,
            (1, 1, 1, 0, 1, 1),
            Opcode::Maximum,
            f32::NEG_INFINITY
        ),
        vec![f32::NEG_INFINITY, 1.0, 2.0]
    );
}

#[test]
fn reduce_window_2d_max_pool() {
    let mut m = module();
    let max = binary(&mut m, Opcode::Maximum, P::S32);
    let x: Vec<i32> = vec![1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16];
    let w = window(&[(2, 2, 0, 0, 1, 1), (2, 2, 0, 0, 1, 1)]);
    let op = Op::ReduceWindow {
        window: w,
        to_apply: max,
    };
    let r = eval_op(
        &mut m,
        &[lit(&[4, 4], x), scalar(i32::MIN)],
        Shape::array(P::S32, &[2, 2]),
        op,
    )
    .unwrap();
    assert_eq!(values::<i32>(&r), vec![4, 8, 12, 16]);
}

#[test]
fn variadic_reduce_window_uses_the_call_path() {
    let mut m = module();
    let f = last_and_init(&mut m, P::F32, P::S32);
    let x = lit(&[4], vec![1.0f32, 2.0, 3.0, 4.0]);
    let y = lit(&[4], vec![0i32; 4]);
    let shape = Shape::Tuple(vec![Shape::array(P::F32, &[3]), Shape::array(P::S32, &[3])]);
    let op = Op::ReduceWindow {
        window: window(&[(2, 1, 0, 0, 1, 1)]),
        to_apply: f,
    };
    let r = eval_op(&mut m, &[x, y, scalar(0.0f32), scalar(9i32)], shape, op).unwrap();
    let t = r.as_tuple().unwrap();
    assert_eq!(values::<f32>(&t[0]), vec![2.0, 3.0, 4.0]);
    assert_eq!(values::<i32>(&t[1]), vec![9, 9, 9]);
}

fn select_and_scatter_1d(
    operand: Vec<f32>,
    source: Vec<f32>,
    w: (i64, i64, i64, i64, i64, i64),
    direction: ComparisonDirection,
) -> Vec<f32> {
    let mut m = module();
    let select = comparator(&mut m, 1, P::F32, direction, None);
    let scatter = binary(&mut m, Opcode::Add, P::F32);
    let n = operand.len() as i64;
    let s = source.len() as i64;
    let op = Op::SelectAndScatter {
        window: window(&[w]),
        select,
        scatter,
    };
    let args = [lit(&[n], operand), lit(&[s], source), scalar(0.0f32)];
    values::<f32>(&eval_op(&mut m, &args, Shape::array(P::F32, &[n]), op).unwrap())
}

#[test]
fn select_and_scatter_picks_the_window_maximum() {
    use ComparisonDirection::*;
    let r = select_and_scatter_1d(
        vec![1.0, 5.0, 3.0, 4.0, 2.0, 6.0],
        vec![10.0, 20.0, 30.0],
        (2, 2, 0, 0, 1, 1),
        Ge,
    );
    assert_eq!(r, vec![0.0, 10.0, 0.0, 20.0, 0.0, 30.0]);
    // Overlapping windows both select index 1 and their sources add up.
    let r = select_and_scatter_1d(vec![1.0, 3.0, 2.0], vec![1.0, 2.0], (2, 1, 0, 0, 1, 1), Ge);
    assert_eq!(r, vec![0.0, 3.0, 0.0]);
    // Ties: GE keeps the first position, GT moves to the later one.
    assert_eq!(
        select_and_scatter_1d(vec![2.0, 2.0], vec![7.0], (2, 2, 0, 0, 1, 1), Ge),
        vec![7.0, 0.0]
    );
    assert_eq!(
        select_and_scatter_1d(vec![2.0, 2.0], vec![7.0], (2, 2, 0, 0, 1, 1), Gt),
        vec![0.0, 7.0]
    );
    // Padding positions are never selected.
    assert_eq!(
        select_and_scatter_1d(vec![1.0, 2.0], vec![5.0, 6.0], (2, 2, 1, 1, 1, 1), Ge),
        vec![5.0, 6.0]
    );
}

#[test]
fn select_and_scatter_call_path_matches_native() {
    // The same GE/add case, but with select written as `not(lt(a, b))` so it is called.
    let mut m = module();
    let mut b = ComputationBuilder::new("ge_via_not_lt");
    let p0 = b.parameter(0, Shape::scalar(P::F32));
    let p1 = b.parameter(1, Shape::scalar(P::F32));
    let lt = b.compare(ComparisonDirection::Lt, p0, p1);
    let root = b.unary(Opcode::Not, lt);
    let select = m.add_computation(b.build(root));
    let scatter = binary(&mut m, Opcode::Add, P::F32);
    let op = Op::SelectAndScatter {
        window: window(&[(2, 2, 0, 0, 1, 1)]),
        select,
        scatter,
    };
    let args = [
        lit(&[4], vec![1.0f32, 5.0, 4.0, 3.0]),
        lit(&[2], vec![10.0f32, 20.0]),
        scalar(0.0f32),
    ];
    let r = eval_op(&mut m, &args, Shape::array(P::F32, &[4]), op).unwrap();
    assert_eq!(values::<f32>(&r), vec![0.0, 10.0, 20.0, 0.0]);
}
