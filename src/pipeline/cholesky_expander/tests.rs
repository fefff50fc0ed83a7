//! Tests for `cholesky_expander`: the structure loosely (no `cholesky` left, a `while`
//! appears) and the numbers against the interpreter's `cholesky` on the original op,
//! within a small tolerance (the interpreter's left-looking sums and the expansion's
//! masked dots add the same products in the same order, but nothing guarantees it).

use super::CholeskyExpander;
use crate::eval::compare::Tolerance;
use crate::eval::{EvalOptions, evaluate};
use crate::ir::{Literal, Opcode};
use crate::pipeline::testing::{check_expansion, check_unchanged, parse_verified};

const CLOSE: Tolerance = Tolerance {
    rtol: 1e-5,
    atol: 1e-6,
};

/// A module that factors `a·aᵀ + n·I` (positive definite for any `a`).
fn spd_module(ty: &str, batch: &str, n: usize, lower: bool) -> String {
    let dims = format!("{batch}{n},{n}");
    let rank = dims.split(',').count();
    let layout: Vec<String> = (0..rank).rev().map(|d| d.to_string()).collect();
    let layout = layout.join(",");
    let nb = rank - 2;
    let batch_dims: Vec<String> = (0..nb).map(|d| d.to_string()).collect();
    let bd = batch_dims.join(",");
    let batch_attr = if nb == 0 {
        String::new()
    } else {
        format!("lhs_batch_dims={{{bd}}}, rhs_batch_dims={{{bd}}}, ")
    };
    format!(
        "
HloModule m
ENTRY main {{
  a = {ty}[{dims}]{{{layout}}} parameter(0)
  aat = {ty}[{dims}]{{{layout}}} dot(a, a), {batch_attr}lhs_contracting_dims={{{}}}, rhs_contracting_dims={{{}}}
  i0 = s32[{dims}]{{{layout}}} iota(), iota_dimension={nb}
  i1 = s32[{dims}]{{{layout}}} iota(), iota_dimension={}
  eq = pred[{dims}]{{{layout}}} compare(i0, i1), direction=EQ
  c = {ty}[] constant({n})
  z = {ty}[] constant(0)
  cb = {ty}[{dims}]{{{layout}}} broadcast(c), dimensions={{}}
  zb = {ty}[{dims}]{{{layout}}} broadcast(z), dimensions={{}}
  diag = {ty}[{dims}]{{{layout}}} select(eq, cb, zb)
  spd = {ty}[{dims}]{{{layout}}} add(aat, diag)
  ROOT l = {ty}[{dims}]{{{layout}}} cholesky(spd), lower={lower}
}}",
        nb + 1,
        nb + 1,
        nb + 1
    )
}

fn check(module: &str) {
    let m = check_expansion(CholeskyExpander, module, CLOSE);
    assert!(!m.entry_computation().contains_opcode(Opcode::Cholesky));
    assert!(m.entry_computation().contains_opcode(Opcode::Call));
    assert!(
        m.order
            .iter()
            .any(|&c| m.computations[c].contains_opcode(Opcode::While))
    );
}

/// `check` for a 1x1 matrix, which needs no loop.
fn check_one_by_one(module: &str) {
    let m = check_expansion(CholeskyExpander, module, CLOSE);
    assert!(!m.entry_computation().contains_opcode(Opcode::Cholesky));
    assert!(
        m.order
            .iter()
            .any(|&c| m.computations[c].contains_opcode(Opcode::Sqrt))
    );
}

#[test]
fn lower_factor_matches_the_interpreter() {
    check(&spd_module("f32", "", 5, true));
    check(&spd_module("f64", "", 4, true));
}

#[test]
fn upper_factor_matches_the_interpreter() {
    check(&spd_module("f32", "", 5, false));
}

#[test]
fn batched_factor_matches_the_interpreter() {
    check(&spd_module("f32", "2,3,", 4, true));
    check(&spd_module("f32", "2,", 3, false));
}

#[test]
fn one_by_one_is_a_square_root() {
    check_one_by_one(&spd_module("f32", "", 1, true));
    check_one_by_one(&spd_module("f32", "3,", 1, false));
}

#[test]
fn known_factor_and_nan_on_failure() {
    // [[4, 2], [2, 5]] = L·Lᵀ with L = [[2, 0], [1, 2]] (by hand); a matrix that is not
    // positive definite gives NaN everywhere, as XLA's expander does.
    let text = "
HloModule m
ENTRY main {
  a = f32[2,2,2]{2,1,0} constant({{{4, 2}, {2, 5}}, {{1, 2}, {2, 1}}})
  ROOT l = f32[2,2,2]{2,1,0} cholesky(a), lower=true
}";
    let m = check_expansion(CholeskyExpander, text, Tolerance::EXACT);
    let out = evaluate(&m, &[], &EvalOptions::default()).unwrap();
    let Literal::Array(out) = out else { panic!() };
    let v = out.values::<f32>().unwrap();
    assert_eq!(&v[..4], &[2.0, 0.0, 1.0, 2.0]);
    assert!(v[4..].iter().all(|x| x.is_nan()), "{v:?}");
}

#[test]
fn leaves_lapack_custom_calls_and_complex_alone() {
    check_unchanged(
        CholeskyExpander,
        r#"
HloModule m
ENTRY main {
  a = f32[3,3]{0,1} parameter(0)
  ROOT p = (f32[3,3]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_spotrf_ffi", operand_layout_constraints={f32[3,3]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}
}"#,
    );
    let m = parse_verified(
        "
HloModule m
ENTRY main {
  a = c64[2,2]{1,0} parameter(0)
  ROOT l = c64[2,2]{1,0} cholesky(a), lower=true
}",
    );
    let mut after = m.clone();
    use crate::pipeline::Pass;
    assert!(!CholeskyExpander.run(&mut after).unwrap());
}
