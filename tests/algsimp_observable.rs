//! XLA:CPU's algebraic-simplifier rewrites that change results (`testdata/algsimp/`,
//! written by `testdata/algsimp/generate.py` with jax 0.10.2 on CPU): for each rewrite, the
//! compiled path on jit's HLO must give what the jitted program gave on XLA:CPU (`xla`),
//! and the interpreter on the same HLO must give the output the op coverage page's table says it
//! follows: `HloEvaluator` (the program as written: jax's op-by-op `eager` output) or
//! `XLA:CPU`. Bit for bit (NaN matches NaN). The test also checks that the op coverage page's table
//! has exactly one row per case, so the table is what the code does.
//!
//! Release mode: `cargo test --release --test algsimp_observable`.

use std::collections::BTreeMap;
use std::path::Path;

use xlac::compiler::{CompileOptions, compile};
use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::eval::{EvalOptions, evaluate};
use xlac::front::hlo_text;
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::{NamedArray, read_npz};
use xlac::ir::Literal;

struct Case {
    rule: String,
    hlo: String,
    inputs: Vec<NamedArray>,
    xla: Vec<NamedArray>,
    eager: Vec<NamedArray>,
}

fn load() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/algsimp");
    let text = std::fs::read_to_string(dir.join("cases.json")).expect("cases.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("cases.json parses");
    let mut arrays: BTreeMap<String, NamedArray> = read_npz(&dir.join("arrays.npz"))
        .expect("arrays.npz")
        .into_iter()
        .map(|a| (a.name.clone(), a))
        .collect();
    let cases = json["cases"].as_array().expect("a case list");
    cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let count = |k: &str| c[k].as_u64().expect("a count") as usize;
            let mut take = |what: &str, n: usize| -> Vec<NamedArray> {
                (0..n)
                    .map(|j| {
                        arrays
                            .remove(&format!("{i}_{what}{j}"))
                            .unwrap_or_else(|| panic!("arrays.npz lacks {i}_{what}{j}"))
                    })
                    .collect()
            };
            let inputs = take("in", count("inputs"));
            let xla = take("xla", count("outputs"));
            let eager = take("eager", count("outputs"));
            Case {
                rule: c["rule"].as_str().expect("a rule").to_string(),
                hlo: c["hlo"].as_str().expect("hlo").to_string(),
                inputs,
                xla,
                eager,
            }
        })
        .collect()
}

/// Which backend runs a case.
#[derive(Clone, Copy, Debug)]
enum Backend {
    Compiled,
    Interpreter,
}

fn run(case: &Case, backend: Backend) -> Vec<Literal> {
    let module = hlo_text::parse_module(&case.hlo, "model.hlo")
        .expect("parses")
        .module;
    let args =
        bind_arguments(&entry_parameters(&module), case.inputs.clone(), 0).expect("inputs bind");
    let result = match backend {
        Backend::Interpreter => {
            evaluate(&module, &args.literals, &EvalOptions::default()).expect("evaluates")
        }
        Backend::Compiled => compile(module, &CompileOptions::default())
            .expect("compiles")
            .executable
            .execute(&args.literals)
            .expect("executes"),
    };
    result
        .leaves()
        .into_iter()
        .cloned()
        .map(Literal::Array)
        .collect()
}

/// Bit-for-bit equality of every output (NaN matches NaN); `Err` says where it differs.
fn same(got: &[Literal], want: &[NamedArray]) -> Result<(), String> {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let c = compare_arrays(
            g.as_array().expect("an array"),
            &w.literal,
            Tolerance::EXACT,
        )?;
        if !c.ok() {
            return Err(format!("output {i}: {c}"));
        }
    }
    Ok(())
}

/// `rule -> (compiled, interpreter)` from the op coverage page's table.
fn page_table() -> BTreeMap<String, (String, String)> {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/op-coverage.md"))
            .expect("docs/op-coverage.md");
    let start = page
        .find("<!-- algsimp-observable -->")
        .expect("docs/op-coverage.md has a <!-- algsimp-observable --> table");
    let end = page
        .find("<!-- /algsimp-observable -->")
        .expect("docs/op-coverage.md closes the algsimp-observable table");
    page[start..end]
        .lines()
        .filter_map(|l| {
            // | rewrite | example | XLA:CPU | compiled | interpreter |
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            if cells.len() < 7 || cells[1] == "rewrite" || cells[1].starts_with("---") {
                return None;
            }
            Some((
                cells[1].trim_matches('`').to_string(),
                (cells[4].to_string(), cells[5].to_string()),
            ))
        })
        .collect()
}

#[test]
fn rewrites_that_change_results_match_the_op_coverage_table() {
    let cases = load();
    let table = page_table();
    assert_eq!(
        table.keys().collect::<Vec<_>>(),
        {
            let mut rules: Vec<&String> = cases.iter().map(|c| &c.rule).collect();
            rules.sort();
            rules
        },
        "the op coverage page's table must have one row per testdata/algsimp case"
    );
    let mut problems = Vec::new();
    for case in &cases {
        let (compiled, interpreter) = &table[&case.rule];
        for (backend, follows) in [
            (Backend::Compiled, compiled),
            (Backend::Interpreter, interpreter),
        ] {
            let want = match follows.as_str() {
                "XLA:CPU" => &case.xla,
                "HloEvaluator" => &case.eager,
                other => panic!("{}: unknown column value {other:?}", case.rule),
            };
            if let Err(e) = same(&run(case, backend), want) {
                problems.push(format!(
                    "{} on {backend:?} (follows {follows}): {e}",
                    case.rule
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
