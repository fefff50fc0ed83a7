//! Tests for `triangular_solve_expander`: every combination of side, triangle, transpose
//! and unit diagonal against the interpreter's `triangular-solve`, within a small
//! tolerance, plus loose structure (no triangular-solve left, a while loop appears).

use super::TriangularSolveExpander;
use crate::eval::compare::Tolerance;
use crate::eval::{EvalOptions, evaluate};
use crate::ir::{Literal, Opcode};
use crate::pipeline::testing::{check_expansion, check_unchanged};

const CLOSE: Tolerance = Tolerance {
    rtol: 1e-4,
    atol: 1e-5,
};

/// Solves with `a + 4·I` (well conditioned for random `a` in [-1, 1)).
fn module(batch: &str, k: usize, b_dims: &str, attrs: &str) -> String {
    let a_dims = format!("{batch}{k},{k}");
    let rank = a_dims.split(',').count();
    let layout: Vec<String> = (0..rank).rev().map(|d| d.to_string()).collect();
    let layout = layout.join(",");
    let nb = rank - 2;
    format!(
        "
HloModule m
ENTRY main {{
  a = f32[{a_dims}]{{{layout}}} parameter(0)
  b = f32[{batch}{b_dims}]{{{layout}}} parameter(1)
  i0 = s32[{a_dims}]{{{layout}}} iota(), iota_dimension={nb}
  i1 = s32[{a_dims}]{{{layout}}} iota(), iota_dimension={}
  eq = pred[{a_dims}]{{{layout}}} compare(i0, i1), direction=EQ
  c = f32[] constant(4)
  z = f32[] constant(0)
  cb = f32[{a_dims}]{{{layout}}} broadcast(c), dimensions={{}}
  zb = f32[{a_dims}]{{{layout}}} broadcast(z), dimensions={{}}
  diag = f32[{a_dims}]{{{layout}}} select(eq, cb, zb)
  m = f32[{a_dims}]{{{layout}}} add(a, diag)
  ROOT x = f32[{batch}{b_dims}]{{{layout}}} triangular-solve(m, b), {attrs}
}}",
        nb + 1
    )
}

fn check(module: &str) {
    let m = check_expansion(TriangularSolveExpander, module, CLOSE);
    assert!(
        !m.entry_computation()
            .contains_opcode(Opcode::TriangularSolve)
    );
    assert!(
        m.order
            .iter()
            .any(|&c| m.computations[c].contains_opcode(Opcode::While))
    );
}

#[test]
fn every_left_side_variant_matches_the_interpreter() {
    for lower in ["lower=true, ", ""] {
        for unit in ["unit_diagonal=true, ", ""] {
            for t in ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"] {
                let attrs = format!("left_side=true, {lower}{unit}transpose_a={t}");
                check(&module("", 5, "5,3", &attrs));
            }
        }
    }
}

#[test]
fn every_right_side_variant_matches_the_interpreter() {
    for lower in ["lower=true, ", ""] {
        for unit in ["unit_diagonal=true, ", ""] {
            for t in ["NO_TRANSPOSE", "TRANSPOSE"] {
                let attrs = format!("{lower}{unit}transpose_a={t}");
                check(&module("", 5, "2,5", &attrs));
            }
        }
    }
}

#[test]
fn batched_solves_match_the_interpreter() {
    check(&module(
        "2,",
        4,
        "4,2",
        "left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
    ));
    check(&module("2,3,", 3, "2,3", "transpose_a=TRANSPOSE"));
}

#[test]
fn solves_a_system_worked_by_hand() {
    // [[2, 0], [1, 4]] x = [[2], [9]]: x0 = 1, x1 = (9 - 1) / 4 = 2. The upper triangle
    // (99) must not be read.
    let text = "
HloModule m
ENTRY main {
  a = f32[2,2]{1,0} constant({{2, 99}, {1, 4}})
  b = f32[2,1]{1,0} constant({{2}, {9}})
  ROOT x = f32[2,1]{1,0} triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
}";
    let m = check_expansion(TriangularSolveExpander, text, Tolerance::EXACT);
    let Literal::Array(x) = evaluate(&m, &[], &EvalOptions::default()).unwrap() else {
        panic!()
    };
    assert_eq!(x.values::<f32>().unwrap(), &[1.0, 2.0]);
}

#[test]
fn leaves_lapack_custom_calls_alone() {
    check_unchanged(
        TriangularSolveExpander,
        r#"
HloModule m
ENTRY main {
  a = f32[3,3]{0,1} parameter(0)
  b = f32[3,2]{0,1} parameter(1)
  ROOT x = f32[3,2]{0,1} custom-call(a, b), custom_call_target="lapack_strsm_ffi", operand_layout_constraints={f32[3,3]{0,1}, f32[3,2]{0,1}}, output_to_operand_aliasing={{}: (1, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}
}"#,
    );
}

#[test]
fn half_precision_solves_in_f32_between_converts() {
    // XLA:CPU has no f16/bf16 solver and computes its expansion in f32; the interpreter
    // solves in f32 too and rounds once, so the two agree to the narrow type's rounding.
    let narrow = Tolerance {
        rtol: 1e-2,
        atol: 1e-2,
    };
    for ty in ["f16", "bf16"] {
        for attrs in [
            "left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
            "unit_diagonal=true, transpose_a=TRANSPOSE",
        ] {
            let dims = if attrs.starts_with("left_side=true") {
                "4,3"
            } else {
                "3,4"
            };
            let text = module("2,", 4, dims, attrs).replace("f32", ty);
            let m = check_expansion(TriangularSolveExpander, &text, narrow);
            let entry = m.entry_computation();
            assert!(!entry.contains_opcode(Opcode::TriangularSolve), "{ty}: {m}");
            let callee = m.to_string();
            assert!(
                callee.contains("f32[2,4,4]{2,1,0} convert("),
                "{ty}: the solve is not computed in f32:\n{callee}"
            );
        }
    }
}
