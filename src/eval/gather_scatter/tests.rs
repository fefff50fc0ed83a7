//! Tests of gather and scatter; expected values worked out by hand from the semantics.

use super::*;
use crate::eval::reduce::test_util::*;
use crate::ir::{ComputationBuilder, Module, Op, Opcode, PrimitiveType as P};

fn gdn(
    offset: &[usize],
    collapsed: &[usize],
    start_map: &[usize],
    ivd: usize,
) -> GatherDimensionNumbers {
    GatherDimensionNumbers {
        offset_dims: offset.to_vec(),
        collapsed_slice_dims: collapsed.to_vec(),
        start_index_map: start_map.to_vec(),
        index_vector_dim: ivd,
        operand_batching_dims: vec![],
        start_indices_batching_dims: vec![],
    }
}

fn operand_3x2() -> Literal {
    lit(&[3, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])
}

fn run_gather(
    operand: Literal,
    indices: Literal,
    out: &[i64],
    d: &GatherDimensionNumbers,
    sizes: &[i64],
) -> Vec<f32> {
    values::<f32>(&gather(&Shape::array(P::F32, out), &operand, &indices, d, sizes).unwrap())
}

#[test]
fn gather_rows_with_implicit_index_vector_dim() {
    let d = gdn(&[1], &[0], &[0], 1);
    let r = run_gather(
        operand_3x2(),
        lit(&[2], vec![2i32, 0]),
        &[2, 2],
        &d,
        &[1, 2],
    );
    assert_eq!(r, vec![5.0, 6.0, 1.0, 2.0]);
    // Column 1 as a [3, 1] result: offset dim first, batch dim last.
    let d = gdn(&[0], &[1], &[1], 1);
    let r = run_gather(operand_3x2(), lit(&[1], vec![1u8]), &[3, 1], &d, &[3, 1]);
    assert_eq!(r, vec![2.0, 4.0, 6.0]);
}

#[test]
fn gather_clamps_start_indices() {
    let d = gdn(&[1], &[0], &[0], 1);
    let r = run_gather(
        operand_3x2(),
        lit(&[2], vec![5i64, -3]),
        &[2, 2],
        &d,
        &[1, 2],
    );
    assert_eq!(r, vec![5.0, 6.0, 1.0, 2.0]);
    // A 2-row slice starting at 2 is clamped to start at 1.
    let d = gdn(&[1, 2], &[], &[0], 1);
    let r = run_gather(
        operand_3x2(),
        lit(&[1], vec![2i32]),
        &[1, 2, 2],
        &d,
        &[2, 2],
    );
    assert_eq!(r, vec![3.0, 4.0, 5.0, 6.0]);
}

#[test]
fn gather_points_with_explicit_index_vectors() {
    let d = gdn(&[], &[0, 1], &[0, 1], 1);
    let r = run_gather(
        operand_3x2(),
        lit(&[2, 2], vec![2i64, 1, 0, 0]),
        &[2],
        &d,
        &[1, 1],
    );
    assert_eq!(r, vec![6.0, 1.0]);
    // The index vector dim first: indices [[2, 0], [1, 0]] read column-wise as (2,1), (0,0).
    let d = gdn(&[], &[0, 1], &[0, 1], 0);
    let r = run_gather(
        operand_3x2(),
        lit(&[2, 2], vec![2i64, 0, 1, 0]),
        &[2],
        &d,
        &[1, 1],
    );
    assert_eq!(r, vec![6.0, 1.0]);
}

#[test]
fn gather_with_batching_dims() {
    // out[b][j] = operand[b][indices[b][j]] (take_along_axis).
    let operand = lit(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let indices = lit(&[2, 2], vec![2i32, 0, 1, 1]);
    let d = GatherDimensionNumbers {
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
        ..gdn(&[], &[1], &[1], 2)
    };
    let r = run_gather(operand, indices, &[2, 2], &d, &[1, 1]);
    assert_eq!(r, vec![3.0, 1.0, 5.0, 5.0]);
}

#[test]
fn gather_rejects_bad_dimension_numbers() {
    let d = gdn(&[1], &[0], &[0, 1], 1);
    let r = gather(
        &Shape::array(P::F32, &[2, 2]),
        &operand_3x2(),
        &lit(&[2], vec![0i32, 1]),
        &d,
        &[1, 2],
    );
    assert!(r.is_err());
}

fn sdn(
    window: &[usize],
    inserted: &[usize],
    to_operand: &[usize],
    ivd: usize,
) -> ScatterDimensionNumbers {
    ScatterDimensionNumbers {
        update_window_dims: window.to_vec(),
        inserted_window_dims: inserted.to_vec(),
        scatter_dims_to_operand_dims: to_operand.to_vec(),
        index_vector_dim: ivd,
        input_batching_dims: vec![],
        scatter_indices_batching_dims: vec![],
    }
}

fn run_scatter(
    m: &mut Module,
    args: &[Literal],
    shape: Shape,
    d: ScatterDimensionNumbers,
    f: ComputationId,
) -> EvalResult {
    let op = Op::Scatter {
        dimension_numbers: d,
        to_apply: f,
        indices_are_sorted: false,
        unique_indices: false,
    };
    eval_op(m, args, shape, op)
}

#[test]
fn scatter_add_rows_with_repeated_indices() {
    let mut m = module();
    let add = binary(&mut m, Opcode::Add, P::F32);
    let args = [
        lit(&[3, 2], vec![0.0f32; 6]),
        lit(&[2], vec![0i32, 0]),
        lit(&[2, 2], vec![1.0f32, 2.0, 10.0, 20.0]),
    ];
    let r = run_scatter(
        &mut m,
        &args,
        Shape::array(P::F32, &[3, 2]),
        sdn(&[1], &[0], &[0], 1),
        add,
    )
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![11.0, 22.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn scatter_skips_whole_out_of_bounds_windows() {
    let mut m = module();
    let add = binary(&mut m, Opcode::Add, P::S32);
    // Windows of 2 into a [4]: start 0 is fine, start 3 would cover 3..4 (4 is outside),
    // so the whole window is skipped even though position 3 exists; start 2 is fine;
    // start -1 is skipped.
    let updates = lit(&[4, 2], vec![1i32, 1, 5, 5, 7, 7, 9, 9]);
    let args = [
        lit(&[4], vec![0i32; 4]),
        lit(&[4], vec![0i32, 3, 2, -1]),
        updates,
    ];
    let r = run_scatter(
        &mut m,
        &args,
        Shape::array(P::S32, &[4]),
        sdn(&[1], &[], &[0], 1),
        add,
    )
    .unwrap();
    assert_eq!(values::<i32>(&r), vec![1, 1, 7, 7]);
}

/// `(old, new) -> new`: the combiner JAX emits for `.at[].set`.
fn overwrite(m: &mut Module, ty: P) -> ComputationId {
    let mut b = ComputationBuilder::new("overwrite");
    let _old = b.parameter(0, Shape::scalar(ty));
    let new = b.parameter(1, Shape::scalar(ty));
    m.add_computation(b.build(new))
}

#[test]
fn scatter_set_last_update_wins() {
    let mut m = module();
    let set = overwrite(&mut m, P::F32);
    let args = [
        lit(&[3], vec![1.0f32, 2.0, 3.0]),
        lit(&[3, 1], vec![1i32, 1, 2]),
        lit(&[3], vec![7.0f32, 8.0, 9.0]),
    ];
    let r = run_scatter(
        &mut m,
        &args,
        Shape::array(P::F32, &[3]),
        sdn(&[], &[0], &[0], 1),
        set,
    )
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![1.0, 8.0, 9.0]);
}

#[test]
fn scatter_with_batching_dims() {
    // operand[b][indices[b][j]] += updates[b][j].
    let mut m = module();
    let add = binary(&mut m, Opcode::Add, P::S32);
    let d = ScatterDimensionNumbers {
        input_batching_dims: vec![0],
        scatter_indices_batching_dims: vec![0],
        ..sdn(&[], &[1], &[1], 2)
    };
    let args = [
        lit(&[2, 3], vec![0i32; 6]),
        lit(&[2, 2], vec![2i32, 0, 1, 1]),
        lit(&[2, 2], vec![1i32, 2, 3, 4]),
    ];
    let r = run_scatter(&mut m, &args, Shape::array(P::S32, &[2, 3]), d, add).unwrap();
    assert_eq!(values::<i32>(&r), vec![2, 0, 1, 0, 7, 0]);
}

#[test]
fn variadic_scatter_calls_the_combiner() {
    // (a0, a1, u0, u1) -> (u0, a1): the first operand is overwritten, the second kept.
    let mut m = module();
    let mut b = ComputationBuilder::new("first_set");
    let _a0 = b.parameter(0, Shape::scalar(P::F32));
    let a1 = b.parameter(1, Shape::scalar(P::S32));
    let u0 = b.parameter(2, Shape::scalar(P::F32));
    let _u1 = b.parameter(3, Shape::scalar(P::S32));
    let shape = Shape::Tuple(vec![Shape::scalar(P::F32), Shape::scalar(P::S32)]);
    let root = b.instr(shape, Op::Plain(Opcode::Tuple), &[u0, a1]);
    let f = m.add_computation(b.build(root));
    let args = [
        lit(&[3], vec![1.0f32, 2.0, 3.0]),
        lit(&[3], vec![4i32, 5, 6]),
        lit(&[1], vec![2i32]),
        lit(&[1], vec![9.0f32]),
        lit(&[1], vec![0i32]),
    ];
    let shape = Shape::Tuple(vec![Shape::array(P::F32, &[3]), Shape::array(P::S32, &[3])]);
    let r = run_scatter(&mut m, &args, shape, sdn(&[], &[0], &[0], 1), f).unwrap();
    let t = r.as_tuple().unwrap();
    assert_eq!(values::<f32>(&t[0]), vec![1.0, 2.0, 9.0]);
    assert_eq!(values::<i32>(&t[1]), vec![4, 5, 6]);
}

#[test]
fn scatter_with_a_subtract_combiner_takes_the_call_path() {
    let mut m = module();
    let sub = binary(&mut m, Opcode::Subtract, P::F32);
    let args = [
        lit(&[2], vec![10.0f32, 20.0]),
        lit(&[2], vec![1i32, 1]),
        lit(&[2], vec![1.0f32, 2.0]),
    ];
    let r = run_scatter(
        &mut m,
        &args,
        Shape::array(P::F32, &[2]),
        sdn(&[], &[0], &[0], 1),
        sub,
    )
    .unwrap();
    assert_eq!(values::<f32>(&r), vec![10.0, 17.0]);
}
