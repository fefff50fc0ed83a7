//! The memory yardstick: per testdata model, the bytes of xlac's
//! `preallocated-temp` allocation (after `compiler::optimize` and buffer assignment)
//! against XLA:CPU's `temp_size_in_bytes` (recorded in each `meta.json` by the testdata
//! generator). `examples/memory_table.rs` prints it; rerun it after any change to fusion,
//! scheduling or buffer assignment.

use std::path::Path;

use super::BufferAssignment;
use crate::compiler::{CompileOptions, optimize};
use crate::ir::hlo_text::parse_module;

/// One model's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TempBytesRow {
    /// The model folder's name.
    pub model: String,
    /// xlac's preallocated temp bytes, or the error that stopped it.
    pub xlac: Result<usize, String>,
    /// XLA:CPU's temp bytes (`xla_temp_size_in_bytes`), when recorded.
    pub xla: Option<usize>,
}

/// xlac's and XLA's temp bytes for one model folder (`model.hlo`, `meta.json`).
pub fn temp_bytes_row(dir: &Path) -> TempBytesRow {
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
        Ok(BufferAssignment::run(&optimized.module)?.temp_bytes())
    })();
    TempBytesRow { model, xlac, xla }
}

/// Every testdata model's row, sorted by name.
pub fn temp_bytes_table() -> Vec<TempBytesRow> {
    crate::testdata::model_dirs()
        .iter()
        .map(|d| temp_bytes_row(d))
        .collect()
}

/// The table as markdown, with a total row (models where either side failed are left out
/// of the totals).
pub fn temp_bytes_markdown(rows: &[TempBytesRow]) -> String {
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
