//! Kernel count against XLA:CPU: summed over every `testdata/` model, xlac's optimized
//! module launches no more kernels than XLA's. A kernel is an entry instruction that
//! launches work (all but parameter, constant, tuple, get-tuple-element, bitcast), counted
//! the same way in xlac's module and in XLA's `xla_opt.hlo` (`meta.json`'s
//! `xla_kernel_count`, written by the testdata generator).
//! The per-model table: `cargo run --release --example kernel_table`.

use xlac::compiler::{CompileOptions, optimize};
use xlac::front::hlo_text::parse_module;
use xlac::ir::kernel_ops::kernel_count;
use xlac::testdata::model_dirs;

#[test]
fn xlac_launches_no_more_kernels_than_xla() {
    let (mut xlac, mut xla, mut models) = (0, 0, 0);
    for dir in model_dirs() {
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
        let Some(want) = meta["xla_kernel_count"].as_u64() else {
            continue;
        };
        let text = std::fs::read_to_string(dir.join("model.hlo")).unwrap();
        let module = parse_module(&text, "model.hlo").unwrap().module;
        let optimized = optimize(module, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        xlac += kernel_count(&optimized.module);
        xla += want as usize;
        models += 1;
    }
    assert!(models >= 40, "only {models} models have a kernel count");
    assert!(
        xlac <= xla,
        "xlac launches {xlac} kernels over {models} models, XLA:CPU {xla}"
    );
}
