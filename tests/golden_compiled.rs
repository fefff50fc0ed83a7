//! Golden tests of the compiled backend: every `testdata/` model, from `model.hlo`,
//! `model.mlir` and `xla_opt.hlo`, goes through `compiler::compile` (pipeline, buffer
//! assignment, codegen, runtime) and runs on the model's `inputs.npz`; every output leaf
//! must match XLA:CPU's `expected.npz` (integers and booleans exactly, floats within
//! `Tolerance::for_output`, as the interpreter's golden tests). Each test prints how many
//! models pass, so a partial result is visible in the test output.
//!
//! The `*_one_buffer_per_value` tests run the same pipeline and kernels over the runtime's
//! simplest plan (`Plan::one_buffer_per_value`: nothing shared, every alias a copy)
//! instead of buffer assignment's: when only the real plan fails, the bug is in the plan.

use std::path::Path;

use xlac::codegen::{CodegenOptions, compile_kernels};
use xlac::compiler::thunk_emitter::emit_executable;
use xlac::compiler::{CompileOptions, compile, optimize};
use xlac::front::{hlo_text, stablehlo};
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::read_npz;
use xlac::ir::Module;
use xlac::ir::verifier::verify;
use xlac::layout::BufferAssignment;
use xlac::runtime::buffer_plan::Plan;
use xlac::runtime::{BufferMode, Executable};
use xlac::testdata::{compare_with_expected, model_dirs};

/// Loads and verifies one model file.
fn load(path: &Path) -> Result<Module, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let shown = path.display().to_string();
    let module = if shown.ends_with(".mlir") {
        stablehlo::parse_module(&text, &shown)
            .map_err(|e| format!("parse: {e}"))?
            .module
    } else {
        hlo_text::parse_module(&text, &shown)
            .map_err(|e| format!("parse: {e}"))?
            .module
    };
    verify(&module).map_err(|errors| {
        let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        format!("verify: {}", lines.join("; "))
    })?;
    Ok(module)
}

/// Which buffer plan the executable runs on.
#[derive(Clone, Copy, PartialEq)]
enum PlanKind {
    /// Buffer assignment's (what `xlac run` uses).
    Assigned,
    /// `Plan::one_buffer_per_value`.
    OneBufferPerValue,
}

/// The executable of a module: `compile`, or the pipeline and codegen over the simplest plan.
fn build(module: Module, plan: PlanKind) -> Result<Executable, String> {
    if plan == PlanKind::Assigned {
        return compile(module, &CompileOptions::default())
            .map(|c| c.executable)
            .map_err(|e| format!("compile: {e}"));
    }
    let module = optimize(module, &CompileOptions::default())
        .map_err(|e| format!("optimize: {e}"))?
        .module;
    let kernels =
        compile_kernels(&module, &CodegenOptions::default()).map_err(|e| e.to_string())?;
    let plan = Plan::one_buffer_per_value(&module);
    emit_executable(
        module,
        BufferAssignment::default(),
        plan,
        kernels,
        BufferMode::Plain,
    )
    .map_err(|e| e.to_string())
}

/// Compiles and runs one model file; one line per problem.
fn check(dir: &Path, file: &str, plan: PlanKind) -> Vec<String> {
    let module = match load(&dir.join(file)) {
        Ok(m) => m,
        Err(e) => return vec![e],
    };
    // Tolerances are judged on the module as written (bf16 anywhere loosens them).
    let tolerance_module = module.clone();
    let mut exe = match build(module, plan) {
        Ok(e) => e,
        Err(e) => return vec![e],
    };
    let inputs = match read_npz(&dir.join("inputs.npz")) {
        Ok(i) => i,
        Err(e) => return vec![format!("inputs: {}", e.message)],
    };
    let args = match bind_arguments(&entry_parameters(&exe.module), inputs, 0) {
        Ok(a) if a.randomized.is_empty() => a,
        Ok(_) => return vec!["inputs.npz has too few arrays".into()],
        Err(e) => return vec![format!("inputs: {}", e.message)],
    };
    let result = match exe.execute(&args.literals) {
        Ok(r) => r,
        Err(e) => return vec![format!("execute: {e}")],
    };
    compare_with_expected(&tolerance_module, &result.leaves(), dir)
}

fn run_all(file: &str, plan: PlanKind) {
    let models: Vec<_> = model_dirs()
        .into_iter()
        .filter(|d| d.join(file).exists())
        .collect();
    assert!(
        models.len() >= 40,
        "expected at least 40 models with {file}"
    );
    let mut problems = Vec::new();
    let mut passed = 0;
    for dir in &models {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let p = check(dir, file, plan);
        if p.is_empty() {
            passed += 1;
        }
        problems.extend(p.into_iter().map(|p| format!("{name}/{file}: {p}")));
    }
    println!("compiled {file}: {passed} of {} models match", models.len());
    assert!(
        problems.is_empty(),
        "compiled {file}: {passed} of {} models match; problems:\n{}",
        models.len(),
        problems.join("\n")
    );
}

#[test]
fn model_hlo_compiled_matches_xla() {
    run_all("model.hlo", PlanKind::Assigned);
}

#[test]
fn model_mlir_compiled_matches_xla() {
    run_all("model.mlir", PlanKind::Assigned);
}

#[test]
fn xla_opt_hlo_compiled_matches_xla() {
    run_all("xla_opt.hlo", PlanKind::Assigned);
}

#[test]
fn model_hlo_one_buffer_per_value_matches_xla() {
    run_all("model.hlo", PlanKind::OneBufferPerValue);
}

#[test]
fn xla_opt_hlo_one_buffer_per_value_matches_xla() {
    run_all("xla_opt.hlo", PlanKind::OneBufferPerValue);
}
