//! Prints, per testdata model, xlac's preallocated temp bytes against XLA:CPU's, with the
//! totals (the memory yardstick): `cargo run --release --example memory_table`. xlac's side
//! is the `preallocated-temp` allocation after `compiler::optimize` and buffer assignment,
//! XLA's the `temp_size_in_bytes` each `meta.json` records (written by the testdata
//! generator). Rerun it after any change to fusion, scheduling or buffer assignment. (An
//! example, not a library module: it strings the compiler's stages together, which only
//! `compiler.rs` and its callers may do.)

use std::path::Path;

use xlac::compiler::{CompileOptions, optimize};
use xlac::front::hlo_text::parse_module;
use xlac::layout::BufferAssignment;

/// One model's row.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TempBytesRow {
    /// The model folder's name.
    model: String,
    /// xlac's preallocated temp bytes, or the error that stopped it.
    xlac: Result<usize, String>,
    /// XLA:CPU's temp bytes (`xla_temp_size_in_bytes`), when recorded.
    xla: Option<usize>,
}

/// xlac's and XLA's temp bytes for one model folder (`model.hlo`, `meta.json`).
fn temp_bytes_row(dir: &Path) -> TempBytesRow {
    let model = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let xla = std::fs::read_to_string(dir.join("meta.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("xla_temp_size_in_bytes")?.as_u64())
        .map(|n| n as usize);
    let xlac = (|| {
        let text = std::fs::read_to_string(dir.join("model.hlo")).map_err(|e| e.to_string())?;
        let module = parse_module(&text, "model.hlo")
            .map_err(|e| e.to_string())?
            .module;
        let optimized = optimize(module, &CompileOptions::default()).map_err(|e| e.to_string())?;
        Ok(BufferAssignment::run(&optimized.module)
            .map_err(|e| e.to_string())?
            .temp_bytes())
    })();
    TempBytesRow { model, xlac, xla }
}

/// Every testdata model's row, sorted by name.
fn temp_bytes_table() -> Vec<TempBytesRow> {
    xlac::testdata::model_dirs()
        .iter()
        .map(|d| temp_bytes_row(d))
        .collect()
}

/// The table as markdown, with a total row (models where either side failed are left out
/// of the totals).
fn temp_bytes_markdown(rows: &[TempBytesRow]) -> String {
    let mut out = String::from("| model | xlac temp bytes | XLA temp bytes |\n|---|---:|---:|\n");
    let (mut ours, mut theirs) = (0usize, 0usize);
    for r in rows {
        let x = match &r.xlac {
            Ok(n) => n.to_string(),
            Err(e) => format!("error: {e}"),
        };
        let y = r.xla.map_or("-".to_string(), |n| n.to_string());
        out.push_str(&format!("| {} | {x} | {y} |\n", r.model));
        if let (Ok(a), Some(b)) = (&r.xlac, r.xla) {
            ours += a;
            theirs += b;
        }
    }
    out.push_str(&format!("| **total** | **{ours}** | **{theirs}** |\n"));
    out
}

fn main() {
    let rows = temp_bytes_table();
    print!("{}", temp_bytes_markdown(&rows));
}
