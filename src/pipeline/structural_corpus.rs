//! Whole-corpus check of the structural passes: every `testdata/*/model.hlo` (and
//! `xla_opt.hlo`) goes through call-inliner, the simplification fixed point and
//! flatten-call-graph, must still verify, and must still match XLA:CPU's `expected.npz`
//! (with the golden tests' tolerances). Also prints instruction counts before and after
//! for a few models (`cargo test --lib structural_corpus -- --nocapture`).

use std::path::Path;

use super::call_inliner::CallInliner;
use super::conditional_simplifier::ConditionalSimplifier;
use super::constant_folding::ConstantFolding;
use super::cse::Cse;
use super::dce::Dce;
use super::flatten_call_graph::FlattenCallGraph;
use super::tuple_simplifier::TupleSimplifier;
use super::while_loop_simplifier::WhileLoopSimplifier;
use super::{Pipeline, PipelineContext};
use crate::front::hlo_text::parse_module;
use crate::ir::Module;
use crate::testdata::{check_against_expected, model_dirs};

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
    check_against_expected(&module, dir)
        .into_iter()
        .map(|p| format!("{name}: {p}"))
        .collect()
}

fn run_all(file: &str) {
    let models = model_dirs();
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
