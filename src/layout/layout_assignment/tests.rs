//! Layout-assignment rules, one test each: HLO text in, layouts and copies out (expected
//! layouts worked out by hand), and the interpreter's result unchanged by the pass.

use super::LayoutAssignment;
use crate::eval::{EvalOptions, evaluate};
use crate::front::hlo_text::parse_module;
use crate::ir::{ArrayLiteral, Layout, Literal, Module, Opcode};
use crate::pipeline::Pass;

fn parse(text: &str) -> Module {
    parse_module(text, "t.hlo").expect("parses").module
}

fn assign(m: &mut Module, forced: Vec<(usize, Layout)>) -> bool {
    let changed = LayoutAssignment {
        forced_parameter_layouts: forced,
    }
    .run(m)
    .unwrap();
    crate::ir::verifier::verify(m).expect("verifies");
    changed
}

fn m2m(m: &Module, name: &str) -> Vec<usize> {
    let c = m.entry_computation();
    c.instr(c.find(name).expect(name))
        .shape
        .as_array()
        .unwrap()
        .layout
        .minor_to_major
        .clone()
}

fn col_major() -> Layout {
    Layout {
        minor_to_major: vec![0, 1],
        extra: None,
    }
}

const ADD: &str = r#"HloModule add
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  q = f32[2,3]{1,0} parameter(1)
  ROOT a = f32[2,3]{1,0} add(p, q)
}
"#;

fn args() -> Vec<Literal> {
    let p = ArrayLiteral::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]);
    let q = ArrayLiteral::from_vec(&[2, 3], vec![10f32, 20., 30., 40., 50., 60.]);
    vec![Literal::Array(p), Literal::Array(q)]
}

#[test]
fn row_major_module_is_unchanged() {
    let mut m = parse(ADD);
    let before = m.clone();
    assign(&mut m, vec![]);
    assert_eq!(m.entry_computation().order.len(), 3);
    assert_eq!(m2m(&m, "a"), vec![1, 0]);
    // Only the header gains the entry layout.
    assert_eq!(
        m.to_string().lines().skip(1).collect::<Vec<_>>(),
        before.to_string().lines().skip(1).collect::<Vec<_>>()
    );
    assert!(m.to_string().starts_with(
        "HloModule add, entry_computation_layout={(f32[2,3]{1,0}, f32[2,3]{1,0})->f32[2,3]{1,0}}"
    ));
}

#[test]
fn forced_column_major_parameter_gets_a_copy_and_the_same_result() {
    let mut m = parse(ADD);
    assign(&mut m, vec![(0, col_major())]);
    assert_eq!(m2m(&m, "p"), vec![0, 1]);
    let comp = m.entry_computation();
    let add = comp.instr(comp.find("a").unwrap());
    let copy = comp.instr(add.operands[0]);
    assert_eq!(copy.opcode(), Opcode::Copy);
    assert_eq!(
        copy.shape.as_array().unwrap().layout.minor_to_major,
        vec![1, 0]
    );
    assert!(
        m.to_string()
            .contains("entry_computation_layout={(f32[2,3]{0,1}, f32[2,3]{1,0})->f32[2,3]{1,0}}")
    );
    // Logical values: 11 22 33 / 44 55 66 whatever the parameter's layout.
    let out = evaluate(&m, &args(), &EvalOptions::default()).unwrap();
    let want = ArrayLiteral::from_vec(&[2, 3], vec![11f32, 22., 33., 44., 55., 66.]);
    assert_eq!(out, Literal::Array(want));
}

#[test]
fn entry_computation_layout_is_honoured() {
    let text = ADD.replace(
        "HloModule add",
        "HloModule add, entry_computation_layout={(f32[2,3]{1,0}, f32[2,3]{0,1})->f32[2,3]{0,1}}",
    );
    let mut m = parse(&text);
    assign(&mut m, vec![]);
    assert_eq!(m2m(&m, "q"), vec![0, 1]);
    // The result is copied into the requested column-major layout.
    let comp = m.entry_computation();
    assert_eq!(comp.root_instr().opcode(), Opcode::Copy);
    assert_eq!(
        comp.root_instr()
            .shape
            .as_array()
            .unwrap()
            .layout
            .minor_to_major,
        vec![0, 1]
    );
    let out = evaluate(&m, &args(), &EvalOptions::default()).unwrap();
    let want = ArrayLiteral::from_vec(&[2, 3], vec![11f32, 22., 33., 44., 55., 66.]);
    assert_eq!(crate::eval::to_row_major(&out), Literal::Array(want));
}

#[test]
fn custom_call_operand_constraints_are_met() {
    let mut m = parse(
        r#"HloModule lapack
ENTRY main {
  p = f32[3,3]{1,0} parameter(0)
  ROOT c = f32[3,3]{0,1} custom-call(p), custom_call_target="lapack_spotrf_ffi", operand_layout_constraints={f32[3,3]{0,1}}
}
"#,
    );
    assign(&mut m, vec![]);
    let comp = m.entry_computation();
    let cc = comp.instr(comp.find("c").unwrap());
    let operand = comp.instr(cc.operands[0]);
    assert_eq!(operand.opcode(), Opcode::Copy);
    assert_eq!(
        operand.shape.as_array().unwrap().layout.minor_to_major,
        vec![0, 1]
    );
    // The column-major result is copied to the row-major entry result.
    assert_eq!(comp.root_instr().opcode(), Opcode::Copy);
    assert_eq!(m2m(&m, "c"), vec![0, 1]);
}

#[test]
fn gemv_constant_becomes_column_major() {
    let mut m = parse(
        r#"HloModule gemv
ENTRY main {
  v = f32[8]{0} parameter(0)
  w = f32[8,2]{1,0} constant({{1,2},{3,4},{5,6},{7,8},{9,10},{11,12},{13,14},{15,16}})
  ROOT d = f32[2]{0} dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
"#,
    );
    let arg = ArrayLiteral::from_vec(&[8], vec![1f32; 8]);
    let before = evaluate(&m, &[Literal::Array(arg.clone())], &EvalOptions::default()).unwrap();
    assign(&mut m, vec![]);
    assert_eq!(m2m(&m, "w"), vec![0, 1]);
    let after = evaluate(&m, &[Literal::Array(arg)], &EvalOptions::default()).unwrap();
    // Column sums: 1+3+...+15 = 64, 2+4+...+16 = 72.
    let want = Literal::Array(ArrayLiteral::from_vec(&[2], vec![64f32, 72.]));
    assert_eq!(before, want);
    assert_eq!(after, want);
}

#[test]
fn transpose_feeding_a_dot_gets_the_layout_that_makes_it_a_bitcast() {
    let mut m = parse(
        r#"HloModule tdot
ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,4]{1,0} parameter(1)
  t = f32[3,2]{1,0} transpose(a), dimensions={1,0}
  ROOT d = f32[3,4]{1,0} dot(t, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"#,
    );
    assign(&mut m, vec![]);
    // a is {1,0}: t[i,j] = a[j,i] lies at j*3+i, so t's dimension 0 is minor: {0,1}.
    assert_eq!(m2m(&m, "t"), vec![0, 1]);
    let comp = m.entry_computation();
    let d = comp.instr(comp.find("d").unwrap());
    assert_eq!(comp.instr(d.operands[0]).name, "t");
    // The layout-sensitive simplifier then makes it a bitcast.
    let mut simp = crate::pipeline::algsimp::AlgebraicSimplifier::layout_sensitive();
    simp.run(&mut m).unwrap();
    let comp = m.entry_computation();
    let d = comp.instr(comp.root);
    assert_eq!(comp.instr(d.operands[0]).opcode(), Opcode::Bitcast);
}

#[test]
fn transpose_with_a_non_dot_user_stays_row_major() {
    let mut m = parse(
        r#"HloModule tdot
ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,4]{1,0} parameter(1)
  t = f32[3,2]{1,0} transpose(a), dimensions={1,0}
  d = f32[3,4]{1,0} dot(t, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f32[3,2]{1,0} negate(t)
  ROOT r = (f32[3,4]{1,0}, f32[3,2]{1,0}) tuple(d, n)
}
"#,
    );
    assign(&mut m, vec![]);
    assert_eq!(m2m(&m, "t"), vec![1, 0]);
}

#[test]
fn transpose_into_a_requested_result_layout_produces_it_directly() {
    // JAX asks for the result layout under which the transpose moves no byte.
    let mut m = parse(
        r#"HloModule t, entry_computation_layout={(f32[2,3]{1,0})->(f32[3,2]{0,1}, f32[2,3]{1,0})}
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  t = f32[3,2]{1,0} transpose(x), dimensions={1,0}
  n = f32[2,3]{1,0} negate(x)
  ROOT r = (f32[3,2]{1,0}, f32[2,3]{1,0}) tuple(t, n)
}
"#,
    );
    assign(&mut m, vec![]);
    assert_eq!(m2m(&m, "t"), vec![0, 1]);
    let comp = m.entry_computation();
    assert_eq!(comp.instr(comp.root_instr().operands[0]).name, "t");
    assert!(!comp.contains_opcode(Opcode::Copy));
}

/// Attention's head split and merge: `[b,s,h*d]` reshaped to `[b,s,h,d]` and transposed to
/// `[b,h,s,d]` for batched dots, and the batched dot's result transposed back.
const ATTENTION: &str = r#"HloModule heads
ENTRY main {
  q = f32[2,3,4]{2,1,0} parameter(0)
  k = f32[2,3,4]{2,1,0} parameter(1)
  qr = f32[2,3,2,2]{3,2,1,0} reshape(q)
  kr = f32[2,3,2,2]{3,2,1,0} reshape(k)
  qt = f32[2,2,3,2]{3,2,1,0} transpose(qr), dimensions={0,2,1,3}
  kt = f32[2,2,3,2]{3,2,1,0} transpose(kr), dimensions={0,2,1,3}
  s = f32[2,2,3,3]{3,2,1,0} dot(qt, kt), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
  o = f32[2,2,3,2]{3,2,1,0} dot(s, kt), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
  ot = f32[2,3,2,2]{3,2,1,0} transpose(o), dimensions={0,2,1,3}
  ROOT r = f32[2,3,4]{2,1,0} reshape(ot)
}
"#;

#[test]
fn batched_attention_transposes_become_bitcasts() {
    let mut m = parse(ATTENTION);
    let values = |n: usize, f: f32| (0..n).map(|i| (i as f32 * f).sin()).collect::<Vec<f32>>();
    let inputs = vec![
        Literal::Array(ArrayLiteral::from_vec(&[2, 3, 4], values(24, 0.7))),
        Literal::Array(ArrayLiteral::from_vec(&[2, 3, 4], values(24, 1.3))),
    ];
    let before = evaluate(&m, &inputs, &EvalOptions::default()).unwrap();
    assign(&mut m, vec![]);
    // qr is row-major {3,2,1,0}; qt[b,h,s,d] = qr[b,s,h,d]: qt's minor-to-major lists
    // the same bytes' dimensions renamed: d=3, h=1, s=2, b=0.
    assert_eq!(m2m(&m, "qt"), vec![3, 1, 2, 0]);
    assert_eq!(m2m(&m, "kt"), vec![3, 1, 2, 0]);
    // o feeds only the transpose back: produced so that ot (row-major) renames its bytes.
    assert_eq!(m2m(&m, "o"), vec![3, 1, 2, 0]);
    assert_eq!(m2m(&m, "ot"), vec![3, 2, 1, 0]);
    // s feeds a dot: row-major.
    assert_eq!(m2m(&m, "s"), vec![3, 2, 1, 0]);
    assert!(!m.to_string().contains(" copy("), "no relayout copy:\n{m}");
    let mut simp = crate::pipeline::algsimp::AlgebraicSimplifier::layout_sensitive();
    simp.run(&mut m).unwrap();
    crate::pipeline::dce::Dce.run(&mut m).unwrap();
    let text = m.to_string();
    assert!(
        !text.contains("transpose("),
        "every transpose is a bitcast:\n{text}"
    );
    let after = evaluate(&m, &inputs, &EvalOptions::default()).unwrap();
    assert_eq!(after, before);
}

/// jax's `geqp3` alone in a module: after tuple simplification the custom call itself is
/// the root, a tuple whose first leaf is column-major. The row-major result is a new
/// tuple of get-tuple-elements and copies, all of which read the custom call and so must
/// come after it.
#[test]
fn tuple_root_with_a_column_major_leaf_is_relaid_after_the_root() {
    let mut m = parse(
        r#"HloModule geqp3
ENTRY main {
  a = f32[3,3]{1,0} parameter(0)
  p = s32[3]{0} parameter(1)
  ROOT c = (f32[3,3]{0,1}, s32[3]{0}, f32[3]{0}) custom-call(a, p), custom_call_target="lapack_sgeqp3_ffi", operand_layout_constraints={f32[3,3]{0,1}, s32[3]{0}}
}
"#,
    );
    assign(&mut m, vec![]);
    let comp = m.entry_computation();
    let root = comp.instr(comp.root);
    assert_eq!(root.opcode(), Opcode::Tuple, "{m}");
    let leaf = comp.instr(root.operands[0]);
    assert_eq!(leaf.opcode(), Opcode::Copy, "{m}");
    assert_eq!(
        leaf.shape.as_array().unwrap().layout.minor_to_major,
        vec![1, 0]
    );
}
