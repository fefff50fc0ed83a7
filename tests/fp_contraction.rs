//! Floating-point contraction against XLA:CPU (`ir::fp_contraction`): the `fp_contraction*`
//! programs of `testdata/` (written by `testdata/generate.py` from jax 0.10.2's CPU backend)
//! hold the multiply-add shapes XLA's LLVM contracts into one FMA and the ones it does not;
//! the compiled backend must reproduce every output bit for bit, and so must the
//! interpreter with `EvalOptions::fp_contraction` on the optimized module. Without
//! contraction the same programs differ, so the data does tell the two apart.
//!
//! `golden_outputs_get_closer` compiles every `testdata/` model with and without contraction
//! and counts the float elements equal to XLA's bit for bit: contraction may only add.

use std::path::Path;

use xlac::compiler::{CompileOptions, compile, optimize};
use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::eval::{EvalOptions, evaluate};
use xlac::front::hlo_text;
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::read_npz;
use xlac::ir::{ArrayLiteral, Literal, Module};
use xlac::testdata::model_dirs;

const PROGRAMS: &[&str] = &["fp_contraction", "fp_contraction_f64", "fp_contraction_f16"];

fn dir(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

fn load(path: &Path) -> Option<Module> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        hlo_text::parse_module(&text, &path.display().to_string())
            .ok()?
            .module,
    )
}

fn inputs(dir: &Path, module: &Module) -> Option<Vec<Literal>> {
    let inputs = read_npz(&dir.join("inputs.npz")).ok()?;
    let args = bind_arguments(&entry_parameters(module), inputs, 0).ok()?;
    args.randomized.is_empty().then_some(args.literals)
}

fn expected(dir: &Path) -> Vec<ArrayLiteral> {
    read_npz(&dir.join("expected.npz"))
        .unwrap()
        .into_iter()
        .map(|e| e.literal)
        .collect()
}

/// The compiled result of `module`, with or without contraction.
fn run_compiled(module: Module, args: &[Literal], contract: bool) -> Option<Vec<ArrayLiteral>> {
    let options = CompileOptions {
        no_fp_contraction: !contract,
        ..CompileOptions::default()
    };
    let mut exe = compile(module, &options).ok()?.executable;
    let result = exe.execute(args).ok()?;
    Some(result.leaves().into_iter().cloned().collect())
}

/// (elements differing from XLA's, elements compared) over the float leaves.
fn differing(actual: &[ArrayLiteral], want: &[ArrayLiteral]) -> (usize, usize) {
    let (mut diff, mut total) = (0, 0);
    for (a, w) in actual.iter().zip(want) {
        if !a.element_type().is_float() {
            continue;
        }
        if let Ok(c) = compare_arrays(a, w, Tolerance::EXACT) {
            diff += c.mismatches;
            total += c.elements;
        }
    }
    (diff, total)
}

#[test]
fn compiled_matches_xla_bit_for_bit() {
    if !xlac::codegen::isa::host_contracts_fma() {
        eprintln!("the host has no FMA: XLA:CPU would not contract here either");
        return;
    }
    let mut problems = Vec::new();
    for name in PROGRAMS {
        let d = dir(name);
        let module = load(&d.join("model.hlo")).expect("model.hlo parses");
        let args = inputs(&d, &module).expect("inputs bind");
        let want = expected(&d);
        let with = run_compiled(module.clone(), &args, true).expect("compiles and runs");
        for (i, (a, w)) in with.iter().zip(&want).enumerate() {
            let c = compare_arrays(a, w, Tolerance::EXACT).unwrap();
            if !c.ok() {
                problems.push(format!("{name} output {i}: {c}"));
            }
        }
        let without = run_compiled(module, &args, false).expect("compiles and runs");
        let (diff, total) = differing(&without, &want);
        eprintln!("{name}: without contraction {diff} of {total} elements differ from XLA's");
        if diff == 0 {
            problems.push(format!("{name}: the data does not tell contraction apart"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn interpreter_contracts_the_optimized_module_like_the_kernels() {
    let reference = EvalOptions {
        fp_contraction: true,
        ..EvalOptions::default()
    };
    let mut problems = Vec::new();
    for name in PROGRAMS {
        let d = dir(name);
        let module = load(&d.join("model.hlo")).unwrap();
        let args = inputs(&d, &module).unwrap();
        let want = expected(&d);
        let optimized = optimize(module.clone(), &CompileOptions::default())
            .unwrap()
            .module;
        let got = evaluate(&optimized, &args, &reference).unwrap();
        for (i, (a, w)) in got.leaves().iter().zip(&want).enumerate() {
            let c = compare_arrays(a, w, Tolerance::EXACT).unwrap();
            if !c.ok() {
                problems.push(format!("{name} output {i}: {c}"));
            }
        }
        // HLO's own semantics (every op rounded) on the module as written: not XLA:CPU's bits.
        let plain = evaluate(&module, &args, &EvalOptions::default()).unwrap();
        let plain: Vec<ArrayLiteral> = plain.leaves().into_iter().cloned().collect();
        let (diff, _) = differing(&plain, &want);
        if diff == 0 {
            problems.push(format!("{name}: unfused evaluation matches XLA exactly"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn golden_outputs_get_closer() {
    if !xlac::codegen::isa::host_contracts_fma() {
        return;
    }
    let (mut before, mut after, mut total, mut models) = (0, 0, 0, 0);
    let mut changed = Vec::new();
    for d in model_dirs() {
        let Some(module) = load(&d.join("model.hlo")) else {
            continue;
        };
        let Some(args) = inputs(&d, &module) else {
            continue;
        };
        let want = expected(&d);
        let (Some(with), Some(without)) = (
            run_compiled(module.clone(), &args, true),
            run_compiled(module, &args, false),
        ) else {
            continue;
        };
        let (diff_with, n) = differing(&with, &want);
        let (diff_without, _) = differing(&without, &want);
        models += 1;
        total += n;
        before += n - diff_without;
        after += n - diff_with;
        if diff_with != diff_without {
            let name = d.file_name().unwrap().to_string_lossy().into_owned();
            changed.push(format!("{name}: {diff_without} -> {diff_with} differing"));
        }
    }
    eprintln!(
        "{models} models, {total} float elements: bit-equal to XLA's {before} without \
         contraction, {after} with\n{}",
        changed.join("\n")
    );
    assert!(models > 50, "only {models} models ran");
    assert!(
        after >= before,
        "contraction moved results away from XLA's: {before} -> {after}\n{}",
        changed.join("\n")
    );
}
