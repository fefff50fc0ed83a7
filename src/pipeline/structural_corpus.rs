//! Whole-corpus check of the structural passes: every `testdata/*/model.hlo` (and
//! `xla_opt.hlo`) goes through call-inliner, the simplification fixed point and
//! flatten-call-graph, must still verify, and must still match XLA:CPU's `expected.npz`
//! (with the golden tests' tolerances). Also prints instruction counts before and after
//! for a few models (`cargo test --lib structural_corpus -- --nocapture`).

use std::path::{Path, PathBuf};

use super::call_inliner::CallInliner;
use super::conditional_simplifier::ConditionalSimplifier;
use super::constant_folding::ConstantFolding;
use super::cse::Cse;
use super::dce::Dce;
use super::flatten_call_graph::FlattenCallGraph;
use super::tuple_simplifier::TupleSimplifier;
use super::while_loop_simplifier::WhileLoopSimplifier;
use super::{Pipeline, PipelineContext};
use crate::eval::compare::{Tolerance, compare_arrays};
use crate::eval::{EvalOptions, evaluate};
use crate::io::arguments::{bind_arguments, entry_parameters};
use crate::io::npz::read_npz;
use crate::ir::Module;
use crate::ir::hlo_text::parse_module;

/// The structural passes in the order recommended for `cpu.rs`.
fn structural_pipeline() -> Pipeline {
    Pipeline::new("structural")
        .pass(CallInliner::new())
        .pipeline(
            Pipeline::new("simplification")
                .pass(Dce)
                .pass(TupleSimplifier)
                .pass(WhileLoopSimplifier)
                .pass(Dce)
                .pass(ConstantFolding)
                .pass(ConditionalSimplifier)
                .pass(Dce)
                .until_fixed_point(25),
        )
        .pass(Cse)
        .pass(Dce)
        .pass(FlattenCallGraph)
        .pass(Dce)
}

/// The model folders under `testdata/`, sorted.
fn models() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/ is missing")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.npz").exists())
        .collect();
    dirs.sort();
    dirs
}

/// (entry instructions, live instructions of every live computation).
fn counts(module: &Module) -> (usize, usize) {
    let entry = module.entry_computation().order.len();
    let all = module
        .order
        .iter()
        .map(|&c| module.computations[c].order.len())
        .sum();
    (entry, all)
}

/// Optimizes one HLO file of a model folder, runs it and compares with `expected.npz`.
fn check(dir: &Path, file: &str, report: &mut Vec<String>) -> Vec<String> {
    let name = format!("{}/{file}", dir.file_name().unwrap().to_string_lossy());
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let mut module = match parse_module(&text, file) {
        Ok(p) => p.module,
        Err(e) => return vec![format!("{name}: parse: {e}")],
    };
    let before = counts(&module);
    if let Err(e) = structural_pipeline().run(&mut module, &mut PipelineContext::new()) {
        return vec![format!("{name}: {e}")];
    }
    let after = counts(&module);
    report.push(format!(
        "{name}: entry {} -> {}, all computations {} -> {}",
        before.0, after.0, before.1, after.1
    ));
    let inputs = read_npz(&dir.join("inputs.npz")).unwrap();
    let args = match bind_arguments(&entry_parameters(&module), inputs, 0) {
        Ok(a) if a.randomized.is_empty() => a,
        Ok(_) => return vec![format!("{name}: inputs.npz is short")],
        Err(e) => return vec![format!("{name}: inputs: {e}")],
    };
    let result = match evaluate(&module, &args.literals, &EvalOptions::default()) {
        Ok(r) => r,
        Err(e) => return vec![format!("{name}: eval: {e}")],
    };
    let expected = read_npz(&dir.join("expected.npz")).unwrap();
    let leaves = result.leaves();
    if leaves.len() != expected.len() {
        return vec![format!(
            "{name}: {} outputs, expected {}",
            leaves.len(),
            expected.len()
        )];
    }
    let mut problems = Vec::new();
    for (i, (actual, want)) in leaves.iter().zip(&expected).enumerate() {
        let tol = Tolerance::for_output(&module, actual.element_type());
        match compare_arrays(actual, &want.literal, tol) {
            Ok(c) if c.ok() => {}
            Ok(c) => problems.push(format!("{name}: output {i}: {c}")),
            Err(e) => problems.push(format!("{name}: output {i}: {e}")),
        }
    }
    problems
}

fn run_all(file: &str) {
    let models = models();
    assert!(models.len() >= 40, "expected the testdata models");
    let mut report = Vec::new();
    let problems: Vec<String> = models
        .iter()
        .flat_map(|d| check(d, file, &mut report))
        .collect();
    for line in &report {
        println!("{line}");
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn model_hlo_still_matches_xla_after_structural_passes() {
    run_all("model.hlo");
}

#[test]
fn xla_opt_hlo_still_matches_xla_after_structural_passes() {
    run_all("xla_opt.hlo");
}
