//! Prints the README's kernel-count table: for every `testdata/` model, the entry
//! instructions that launch work (all but parameter, constant, tuple, get-tuple-element,
//! bitcast) in xlac's optimized module and in XLA:CPU's (`meta.json`'s
//! `xla_kernel_count`), in markdown, with the totals.
//! Run: `cargo run --release --example kernel_table`.

use xlac::compiler::{CompileOptions, optimize};
use xlac::front::hlo_text::parse_module;
use xlac::ir::kernel_ops::kernel_count;
use xlac::testdata::model_dirs;

fn main() {
    println!("| model | xlac kernels | XLA kernels |");
    println!("|---|---:|---:|");
    let (mut xlac_total, mut xla_total) = (0, 0);
    for dir in model_dirs() {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        let meta: serde_json::Value = std::fs::read_to_string(dir.join("meta.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let Some(xla) = meta["xla_kernel_count"].as_u64() else {
            continue;
        };
        let xlac = std::fs::read_to_string(dir.join("model.hlo"))
            .ok()
            .and_then(|t| parse_module(&t, "model.hlo").ok())
            .and_then(|p| optimize(p.module, &CompileOptions::default()).ok())
            .map(|o| kernel_count(&o.module));
        match xlac {
            Some(n) => {
                println!("| {name} | {n} | {xla} |");
                xlac_total += n;
                xla_total += xla as usize;
            }
            None => println!("| {name} | (fails) | {xla} |"),
        }
    }
    println!("| **total** | **{xlac_total}** | **{xla_total}** |");
}
