//! Whole-corpus check for the normalization and expander passes: every `testdata/` model,
//! after `dot_decomposer`, `rng-bit-generator-expander`, `topk-decomposer`,
//! `cholesky_expander`, `triangular_solve_expander`, `float-normalization-bf16` and `dce`
//! (in `cpu_compiler.cc`'s order), still verifies and matches XLA:CPU's `expected.npz`
//! with the golden tolerances.

use std::path::Path;

use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::eval::{EvalOptions, evaluate};
use xlac::front::hlo_text::parse_module;
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::read_npz;
use xlac::pipeline::cholesky_expander::CholeskyExpander;
use xlac::pipeline::dce::Dce;
use xlac::pipeline::dot_decomposer::DotDecomposer;
use xlac::pipeline::float_normalization::FloatNormalization;
use xlac::pipeline::rng_bit_generator_expander::RngBitGeneratorExpander;
use xlac::pipeline::topk_decomposer::TopkDecomposer;
use xlac::pipeline::triangular_solve_expander::TriangularSolveExpander;
use xlac::pipeline::{Pipeline, PipelineContext};
use xlac::testdata::{check_against_expected, model_dirs};

/// The passes under test, in `cpu_compiler.cc`'s order.
fn pipeline() -> Pipeline {
    Pipeline::new("expanders")
        .pass(DotDecomposer)
        .pass(RngBitGeneratorExpander::cpu())
        .pass(TopkDecomposer)
        .pass(CholeskyExpander)
        .pass(TriangularSolveExpander)
        .pass(FloatNormalization::bf16())
        .pass(Dce)
}

/// Runs one model through the passes and the interpreter; one line per problem.
fn check(dir: &Path) -> Vec<String> {
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(dir.join("model.hlo")).unwrap();
    let mut module = match parse_module(&text, "model.hlo") {
        Ok(p) => p.module,
        Err(e) => return vec![format!("{name}: parse: {e}")],
    };
    let mut ctx = PipelineContext::new();
    if let Err(e) = pipeline().run(&mut module, &mut ctx) {
        return vec![format!("{name}: {e}")];
    }
    check_against_expected(&module, dir)
        .into_iter()
        .map(|p| format!("{name}: {p}"))
        .collect()
}

#[test]
fn corpus_matches_xla_after_expanders() {
    let models = model_dirs();
    assert!(models.len() >= 40, "found only {} models", models.len());
    let problems: Vec<String> = models.iter().flat_map(|d| check(d)).collect();
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The interpreter on the model before and after the passes: bit-equal (the linear-algebra
/// loops add the interpreter's products in its order), except in modules that compute in
/// bf16, where normalization keeps f32 results that a convert back to f32 reads (XLA's
/// excess precision) and the interpreter rounds them: there to bf16 precision.
#[test]
fn corpus_results_are_bit_equal_to_the_interpreter_before_the_passes() {
    let mut problems = Vec::new();
    for dir in model_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(dir.join("model.hlo")).unwrap();
        let original = parse_module(&text, "model.hlo").unwrap().module;
        let mut module = original.clone();
        pipeline()
            .run(&mut module, &mut PipelineContext::new())
            .unwrap();
        let inputs = read_npz(&dir.join("inputs.npz")).unwrap();
        let args = bind_arguments(&entry_parameters(&original), inputs, 0).unwrap();
        let options = EvalOptions::default();
        let want = evaluate(&original, &args.literals, &options).unwrap();
        let got = evaluate(&module, &args.literals, &options).unwrap();
        for (i, (g, w)) in got.leaves().iter().zip(want.leaves()).enumerate() {
            let tol = match Tolerance::for_output(&original, g.element_type()) {
                t if t == Tolerance::for_type(g.element_type()) => Tolerance::EXACT,
                t => t,
            };
            let c = compare_arrays(g, w, tol).unwrap();
            if !c.ok() {
                problems.push(format!("{name}: output {i}: {c}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn expanders_remove_what_they_expand() {
    for model in ["linalg_hlo", "random_rbg", "top_k"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata")
            .join(model);
        let text = std::fs::read_to_string(dir.join("model.hlo")).unwrap();
        let mut module = parse_module(&text, "model.hlo").unwrap().module;
        pipeline()
            .run(&mut module, &mut PipelineContext::new())
            .unwrap();
        let printed = module.to_string();
        for op in [
            " cholesky(",
            " triangular-solve(",
            " rng-bit-generator(",
            " topk(",
        ] {
            assert!(
                !printed.contains(op),
                "{model}: {op} left after the expanders"
            );
        }
    }
}
