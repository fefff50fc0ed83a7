//! The test harness for passes: HLO text before → after (style.md §5.5).
//!
//! `check_pass` parses and verifies the input, runs the pass, verifies the result, compares
//! the printed result with the expected text, checks that `changed` is true exactly when
//! the text changed (XLA's silent-change check), and runs the interpreter before and after
//! on seeded random inputs, requiring bit-equal results (design.md §6).
//!
//! Two variants: `check_pass_with_tolerance` (same, but results need only agree within a
//! tolerance: for rewrites that move rounding points, with the reason at each use) and
//! `check_expansion` (for expanders whose output is too long to spell out: no expected
//! text, the module is returned for loose structural checks).

use super::Pass;
use crate::eval::compare::{Tolerance, compare_arrays};
use crate::eval::{EvalOptions, evaluate};
use crate::front::hlo_text::parse_module;
use crate::io::random_inputs::random_literal;
use crate::ir::Module;
use crate::ir::verifier::verify;

/// Parses and verifies HLO text, panicking with the errors (test input must be valid).
pub fn parse_verified(text: &str) -> Module {
    let module = parse_module(text, "test.hlo")
        .unwrap_or_else(|e| panic!("bad test HLO: {e}"))
        .module;
    if let Err(errors) = verify(&module) {
        let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!("test HLO does not verify:\n{}", lines.join("\n"));
    }
    module
}

/// Runs `pass` on `before` and checks the result prints as `after` (see the module doc).
pub fn check_pass(pass: impl Pass, before: &str, after: &str) {
    check_pass_with_tolerance(pass, before, after, Tolerance::EXACT);
}

/// [`check_pass`], but the results before and after need only agree within `tolerance`.
/// For rewrites that legitimately move rounding points (a bf16 `reduce` whose reducer
/// rounds each step where the interpreter sums in f64; a Cholesky expansion): say why at
/// each use.
pub fn check_pass_with_tolerance(
    mut pass: impl Pass,
    before: &str,
    after: &str,
    tolerance: Tolerance,
) {
    let (original, module, changed) = run_verified(&mut pass, before);
    let got = module.to_string();
    let want = parse_verified(after).to_string();
    assert!(got == want, "{} gave\n{got}\nexpected\n{want}", pass.name());
    assert_eq!(
        changed,
        got != original.to_string(),
        "{} reported changed={changed}",
        pass.name()
    );
    assert_close_results(&original, &module, tolerance);
}

/// For expanders whose output is too long to spell out: runs `pass` on `before`, checks
/// that it verifies, that it reports a change and that results agree within `tolerance`
/// (`Tolerance::EXACT`: bit-equal), and returns the module for structural checks.
pub fn check_expansion(mut pass: impl Pass, before: &str, tolerance: Tolerance) -> Module {
    let (original, module, changed) = run_verified(&mut pass, before);
    assert!(changed, "{} reported no change", pass.name());
    assert_ne!(
        module.to_string(),
        original.to_string(),
        "{} changed nothing",
        pass.name()
    );
    // The printed result must parse back: later stages may read it from a dump.
    parse_verified(&module.to_string());
    assert_close_results(&original, &module, tolerance);
    module
}

/// Checks that `pass` leaves `hlo` alone and says so.
pub fn check_unchanged(pass: impl Pass, hlo: &str) {
    check_pass(pass, hlo, hlo);
}

/// Runs both modules on the same seeded inputs and requires bit-equal outputs
/// (NaN matches NaN).
pub fn assert_same_results(before: &Module, after: &Module) {
    assert_close_results(before, after, Tolerance::EXACT);
}

/// Runs both modules on the same seeded inputs and requires outputs within `tolerance`.
pub fn assert_close_results(before: &Module, after: &Module, tolerance: Tolerance) {
    for seed in [1u64, 2] {
        let args: Vec<_> = before
            .entry_parameter_shapes()
            .iter()
            .enumerate()
            .map(|(i, s)| random_literal(s, seed, i))
            .collect();
        let options = EvalOptions::default();
        let want = evaluate(before, &args, &options).expect("the module before the pass runs");
        let got = evaluate(after, &args, &options).expect("the module after the pass runs");
        let (want, got) = (want.leaves(), got.leaves());
        assert_eq!(want.len(), got.len(), "different number of outputs");
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            let c = compare_arrays(g, w, tolerance).expect("comparable outputs");
            assert!(c.ok(), "output {i} changed: {c}");
        }
    }
}

/// Parses `before`, runs `pass` on a copy and checks that the result verifies: the
/// original, the rewritten module and whether the pass reported a change.
fn run_verified(pass: &mut impl Pass, before: &str) -> (Module, Module, bool) {
    let original = parse_verified(before);
    let mut module = original.clone();
    let changed = pass
        .run(&mut module)
        .unwrap_or_else(|e| panic!("{} failed: {e}", pass.name()));
    if let Err(errors) = verify(&module) {
        let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!(
            "module does not verify after {}:\n{}\n{module}",
            pass.name(),
            lines.join("\n")
        );
    }
    (original, module, changed)
}
