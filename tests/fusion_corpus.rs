//! XLA's own optimized HLO (`xla_opt.hlo`) through xlac's pipeline: its `kCustom` library
//! fusions (`__ynn_fusion`) are put back as plain instructions and fused again by xlac's
//! rules, its `kLoop` fusions are kept, and the result still matches `expected.npz`.

use xlac::compiler::{CompileOptions, optimize};
use xlac::front::hlo_text::parse_module;
use xlac::ir::{FusionKind, Op};
use xlac::testdata::{check_against_expected, model_dirs};

#[test]
fn xla_custom_fusions_are_inlined_and_refused_again() {
    let mut checked = 0;
    let mut problems = Vec::new();
    for dir in model_dirs() {
        let text = std::fs::read_to_string(dir.join("xla_opt.hlo")).unwrap();
        if !text.contains("kind=kCustom") {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let module = parse_module(&text, "xla_opt.hlo").unwrap().module;
        let optimized = match optimize(module, &CompileOptions::default()) {
            Ok(o) => o.module,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let custom_left = optimized.order.iter().any(|&c| {
            optimized.computations[c].iter().any(|(_, i)| {
                matches!(
                    i.op,
                    Op::Fusion {
                        kind: FusionKind::Custom,
                        ..
                    }
                )
            })
        });
        if custom_left {
            problems.push(format!("{name}: a kCustom fusion is left"));
        }
        problems.extend(
            check_against_expected(&optimized, &dir)
                .into_iter()
                .map(|p| format!("{name}: {p}")),
        );
        checked += 1;
    }
    assert!(checked > 0, "no xla_opt.hlo with kCustom fusions");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
