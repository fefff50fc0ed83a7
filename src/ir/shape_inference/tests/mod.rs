//! Tests for shape inference. Every expected shape is worked out by hand from XLA's
//! operation semantics (https://openxla.org/xla/operation_semantics) or copied from a real
//! XLA:CPU dump in `testdata/` (cited where so); none comes from the code under test.

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` in a table of cases.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod contraction;
mod control;
mod data_movement;
mod elementwise;
mod reduction;

use super::{human_string, infer_shape};
use crate::ir::PrimitiveType;
use crate::ir::*;

fn s(t: PrimitiveType, dims: &[i64]) -> Shape {
    Shape::array(t, dims)
}

fn tuple(elements: Vec<Shape>) -> Shape {
    Shape::Tuple(elements)
}

/// A module whose entry is a placeholder, with these callees; returns their ids.
fn module_with(callees: Vec<Computation>) -> (Module, Vec<ComputationId>) {
    let mut module = Module::new("m", Computation::new("placeholder"));
    let ids = callees
        .into_iter()
        .map(|c| module.add_computation(c))
        .collect();
    (module, ids)
}

/// Builds `ROOT r = declared op(p0, p1, ...)` as the entry of `module` and infers its shape,
/// printed without layout.
fn infer_in(
    mut module: Module,
    params: &[Shape],
    op: Op,
    declared: Shape,
) -> Result<String, String> {
    let mut b = ComputationBuilder::new("main");
    let ids: Vec<InstrId> = params
        .iter()
        .enumerate()
        .map(|(i, p)| b.parameter(i, p.clone()))
        .collect();
    let root = b.instr(declared, op, &ids);
    let entry = module.entry;
    module.computations[entry] = b.build(root);
    infer_shape(&module, &module.computations[entry], root).map(|shape| human_string(&shape))
}

/// [`infer_in`] with no called computations.
fn infer(params: &[Shape], op: Op, declared: Shape) -> Result<String, String> {
    infer_in(module_with(vec![]).0, params, op, declared)
}

fn plain(opcode: Opcode, params: &[Shape], declared: Shape) -> Result<String, String> {
    infer(params, Op::Plain(opcode), declared)
}

fn ok(text: &str) -> Result<String, String> {
    Ok(text.to_string())
}

/// Asserts an error whose message contains `needle`.
#[track_caller]
fn assert_err(result: Result<String, String>, needle: &str) {
    match result {
        Err(message) => assert!(
            message.contains(needle),
            "message {message:?} lacks {needle:?}"
        ),
        Ok(shape) => panic!("expected an error containing {needle:?}, got {shape}"),
    }
}

/// `(a: T[], b: T[]) -> T[]` computing `opcode(a, b)`: a scalar reducer.
fn scalar_binary(name: &str, t: PrimitiveType, opcode: Opcode) -> Computation {
    let mut b = ComputationBuilder::new(name);
    let x = b.parameter(0, s(t, &[]));
    let y = b.parameter(1, s(t, &[]));
    let r = b.binary(opcode, x, y);
    b.build(r)
}

/// A computation with these parameters whose root (a `tuple` of the parameters) is declared
/// `root`: callers' inference reads only this signature, never the root's op.
fn signature_only(name: &str, params: &[Shape], root: Shape) -> Computation {
    let mut b = ComputationBuilder::new(name);
    let ids: Vec<InstrId> = params
        .iter()
        .enumerate()
        .map(|(i, p)| b.parameter(i, p.clone()))
        .collect();
    let r = b.instr(root, Op::Plain(Opcode::Tuple), &ids);
    b.build(r)
}

fn window(sizes: &[i64], strides: &[i64], pads: &[(i64, i64)]) -> Window {
    Window {
        dimensions: sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| WindowDimension {
                stride: strides[i],
                padding_low: pads[i].0,
                padding_high: pads[i].1,
                ..WindowDimension::of_size(size)
            })
            .collect(),
    }
}
