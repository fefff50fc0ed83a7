//! The op sweep (`testdata/sweep/`, written by `testdata/sweep/generate.py` with jax/jaxlib
//! 0.10.2): every case runs on three paths, the compiled backend from the HLO text, the
//! interpreter on the HLO text, and the compiled backend from the StableHLO text, and each
//! output leaf is compared with XLA:CPU's (integers and booleans exactly, floats within the
//! case's tolerance or `Tolerance::for_output`). Each path must pass at least 99.5% of the
//! cases, and every case that fails must be listed with its reason in the op coverage page's table of
//! remaining sweep failures (and every listed case must still fail there), so the page
//! says exactly what does not work yet.
//!
//! Release mode: `cargo test --release --test sweep` (about a minute on two cores).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Mutex;

use xlac::compiler::{CompileOptions, compile};
use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::eval::{EvalOptions, evaluate};
use xlac::front::{hlo_text, stablehlo};
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::{NamedArray, read_npz};
use xlac::ir::verifier::verify;
use xlac::ir::{Literal, Module};

/// One way to run a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Path3 {
    CompiledHlo,
    Interpreter,
    CompiledStablehlo,
}

impl Path3 {
    fn name(self) -> &'static str {
        match self {
            Path3::CompiledHlo => "compiled-hlo",
            Path3::Interpreter => "interpreter",
            Path3::CompiledStablehlo => "compiled-stablehlo",
        }
    }
}

struct Case {
    name: String,
    hlo: String,
    mlir: String,
    inputs: Vec<NamedArray>,
    expected: Vec<NamedArray>,
    tolerance: Option<Tolerance>,
}

fn load() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sweep");
    let text = std::fs::read_to_string(dir.join("cases.json")).expect("testdata/sweep/cases.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("cases.json parses");
    let mut arrays: BTreeMap<String, NamedArray> = read_npz(&dir.join("arrays.npz"))
        .expect("testdata/sweep/arrays.npz")
        .into_iter()
        .map(|a| (a.name.clone(), a))
        .collect();
    let cases = json["cases"].as_array().expect("a case list");
    cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let count = |k: &str| c[k].as_u64().expect("a count") as usize;
            let take = |arrays: &mut BTreeMap<String, NamedArray>, what: &str, n: usize| {
                (0..n)
                    .map(|j| {
                        arrays
                            .remove(&format!("{i}_{what}{j}"))
                            .unwrap_or_else(|| panic!("arrays.npz lacks {i}_{what}{j}"))
                    })
                    .collect::<Vec<_>>()
            };
            let inputs = take(&mut arrays, "in", count("inputs"));
            let expected = take(&mut arrays, "out", count("outputs"));
            Case {
                name: c["name"].as_str().expect("a name").to_string(),
                hlo: c["hlo"].as_str().expect("hlo").to_string(),
                mlir: c["mlir"].as_str().expect("mlir").to_string(),
                inputs,
                expected,
                tolerance: c["rtol"].as_f64().map(|rtol| Tolerance {
                    rtol,
                    atol: c["atol"].as_f64().unwrap_or(0.0),
                }),
            }
        })
        .collect()
}

fn parse(case: &Case, path: Path3) -> Result<Module, String> {
    let module = match path {
        Path3::CompiledStablehlo => {
            stablehlo::parse_module(&case.mlir, "model.mlir")
                .map_err(|e| format!("parse: {e}"))?
                .module
        }
        _ => {
            hlo_text::parse_module(&case.hlo, "model.hlo")
                .map_err(|e| format!("parse: {e}"))?
                .module
        }
    };
    verify(&module).map_err(|errors| {
        let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        format!("verify: {}", lines.join("; "))
    })?;
    Ok(module)
}

/// Runs one case on one path; `Err` says what went wrong.
fn run(case: &Case, path: Path3) -> Result<(), String> {
    let module = parse(case, path)?;
    let tolerance_module = module.clone();
    let args = bind_arguments(&entry_parameters(&module), case.inputs.clone(), 0)
        .map_err(|e| format!("inputs: {}", e.message))?;
    if !args.randomized.is_empty() {
        return Err("too few inputs".into());
    }
    let result: Literal = match path {
        Path3::Interpreter => evaluate(&module, &args.literals, &EvalOptions::default())
            .map_err(|e| format!("eval: {e}"))?,
        _ => {
            let mut exe = compile(module, &CompileOptions::default())
                .map_err(|e| format!("compile: {e}"))?
                .executable;
            exe.execute(&args.literals)
                .map_err(|e| format!("execute: {e}"))?
        }
    };
    let leaves = result.leaves();
    if leaves.len() != case.expected.len() {
        return Err(format!(
            "{} outputs, expected {}",
            leaves.len(),
            case.expected.len()
        ));
    }
    for (i, (actual, want)) in leaves.iter().zip(&case.expected).enumerate() {
        let tol = case
            .tolerance
            .filter(|_| actual.element_type().is_float() || actual.element_type().is_complex())
            .unwrap_or_else(|| Tolerance::for_output(&tolerance_module, actual.element_type()));
        match compare_arrays(actual, &want.literal, tol) {
            Ok(c) if c.ok() => {}
            Ok(c) => return Err(format!("output {i} ({}): {c}", actual.element_type())),
            Err(e) => return Err(format!("output {i}: {e}")),
        }
    }
    Ok(())
}

/// `(path, case)` pairs docs/op-coverage.md lists as failing, from its sweep-failures table.
fn listed_failures() -> BTreeSet<(String, String)> {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/op-coverage.md"))
            .expect("docs/op-coverage.md");
    let start = page
        .find("<!-- sweep-failures -->")
        .expect("docs/op-coverage.md has a <!-- sweep-failures --> table");
    let end = page
        .find("<!-- /sweep-failures -->")
        .expect("docs/op-coverage.md closes the sweep-failures table");
    page[start..end]
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            // | paths | case | reason |
            if cells.len() < 4 || cells[1].starts_with("path") || cells[1].starts_with("---") {
                return None;
            }
            Some((cells[1].to_string(), cells[2].trim_matches('`').to_string()))
        })
        .flat_map(|(paths, case)| {
            paths
                .split(',')
                .map(|p| (p.trim().to_string(), case.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn sweep_matches_xla_cpu_on_every_path() {
    let cases = load();
    assert!(cases.len() >= 1500, "only {} sweep cases", cases.len());
    let failures: Mutex<BTreeMap<(Path3, String), String>> = Mutex::new(BTreeMap::new());
    let paths = [
        Path3::CompiledHlo,
        Path3::Interpreter,
        Path3::CompiledStablehlo,
    ];
    // Cases are independent: spread them over the cores (each compile is single-threaded).
    std::thread::scope(|s| {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        for t in 0..threads {
            let (cases, failures) = (&cases, &failures);
            s.spawn(move || {
                for case in cases.iter().skip(t).step_by(threads) {
                    for path in paths {
                        let outcome =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                run(case, path)
                            }))
                            .unwrap_or_else(|_| Err("panicked".into()));
                        if let Err(e) = outcome {
                            failures
                                .lock()
                                .unwrap()
                                .insert((path, case.name.clone()), e);
                        }
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let mut problems = Vec::new();
    for path in paths {
        let failed = failures.keys().filter(|(p, _)| *p == path).count();
        let passed = cases.len() - failed;
        let rate = passed as f64 / cases.len() as f64;
        println!(
            "sweep {}: {passed} of {} cases match XLA:CPU ({:.2}%)",
            path.name(),
            cases.len(),
            100.0 * rate
        );
        if rate < 0.995 {
            problems.push(format!(
                "{}: {:.2}% is below 99.5%",
                path.name(),
                100.0 * rate
            ));
        }
    }
    for ((path, case), why) in &failures {
        println!("  {} {case}: {why}", path.name());
    }
    let listed = listed_failures();
    for ((path, case), why) in &failures {
        if !listed.contains(&(path.name().to_string(), case.clone())) {
            problems.push(format!(
                "{} {case} fails but docs/op-coverage.md does not list it: {why}",
                path.name()
            ));
        }
    }
    for (path, case) in &listed {
        let still = paths
            .iter()
            .any(|p| p.name() == path && failures.contains_key(&(*p, case.clone())));
        if !still {
            problems.push(format!(
                "docs/op-coverage.md lists {path} {case} as failing, but it passes (or is not a case)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
