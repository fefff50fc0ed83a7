//! Prints the README's "compile time per pass" table: every `testdata/*/model.hlo` through
//! xlac's CPU pipeline, milliseconds summed per pass over all models (median of 5 runs).
//! Run: `cargo run --release --example pass_times`.

use std::collections::BTreeMap;
use std::path::Path;

use xlac::compiler::{CompileOptions, optimize};
use xlac::front::hlo_text::parse_module;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut modules = Vec::new();
    for entry in std::fs::read_dir(root).expect("testdata/") {
        let path = entry.expect("a folder entry").path().join("model.hlo");
        if let Ok(text) = std::fs::read_to_string(&path) {
            modules.push(
                parse_module(&text, &path.display().to_string())
                    .expect("parses")
                    .module,
            );
        }
    }
    // pass -> one total per run
    let mut runs: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut changed: BTreeMap<String, usize> = BTreeMap::new();
    const RUNS: usize = 5;
    for run in 0..RUNS {
        let mut totals: BTreeMap<String, f64> = BTreeMap::new();
        for module in &modules {
            let optimized =
                optimize(module.clone(), &CompileOptions::default()).expect("the pipeline runs");
            for p in optimized.passes {
                let key = format!("{}/{}", p.pipeline, p.pass);
                *totals.entry(key.clone()).or_default() += p.time.as_secs_f64() * 1e3;
                if run == 0 && p.changed {
                    *changed.entry(key).or_default() += 1;
                }
            }
        }
        for (k, v) in totals {
            runs.entry(k).or_default().push(v);
        }
    }
    println!(
        "| pass | ms over {} models (median of {RUNS} runs) | times it changed a module |",
        modules.len()
    );
    println!("|---|---|---|");
    let mut total = 0.0;
    for (pass, mut times) in runs {
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        total += median;
        println!(
            "| `{pass}` | {median:.2} | {} |",
            changed.get(&pass).copied().unwrap_or(0)
        );
    }
    println!("| total | {total:.2} | |");
}
