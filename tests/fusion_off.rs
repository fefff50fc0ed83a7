//! `--disable-passes fusion` skips the producer–consumer `fusion` pass alone, as XLA's
//! `--xla_disable_hlo_passes=fusion` does: `fusion-wrapper` still wraps every leftover op,
//! so the elementwise and softmax benchmark programs run one generated loop kernel per op
//! (never a reference-implementation library thunk), and their results still match the
//! fused compile's.
//!
//! The expected kernel count is read from the module the pipeline leaves when both
//! `fusion` and `fusion-wrapper` are skipped: one kernel per op there that codegen turns
//! into a kernel (`ir::kernel_ops::is_kernel_instruction`) and that launches work
//! (parameters and constants do not: `is_free`).

use std::path::Path;

use xlac::compiler::{CompileOptions, compile, optimize};
use xlac::front::hlo_text::parse_module;
use xlac::ir::kernel_ops::{is_free, is_kernel_instruction};
use xlac::ir::{Module, Op};

fn load(name: &str) -> Module {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("testdata/bench/{name}/model.hlo"));
    let text = std::fs::read_to_string(&path).unwrap();
    parse_module(&text, &path.display().to_string())
        .unwrap()
        .module
}

fn disabled(passes: &[&str]) -> CompileOptions {
    CompileOptions {
        disabled_passes: passes.iter().map(|p| p.to_string()).collect(),
        ..CompileOptions::default()
    }
}

#[test]
fn fusion_off_runs_one_loop_kernel_per_op() {
    for (name, fused_kernels) in [("elementwise", 1), ("softmax", 1)] {
        let module = load(name);
        let unwrapped = optimize(module.clone(), &disabled(&["fusion", "fusion-wrapper"])).unwrap();
        let entry = unwrapped.module.entry_computation();
        let ops = entry
            .order
            .iter()
            .filter(|&&i| is_kernel_instruction(entry, i) && !is_free(entry.instr(i).op.opcode()))
            .count();
        assert!(ops > 3, "{name}: only {ops} kernel ops before fusion");

        let off = compile(module.clone(), &disabled(&["fusion"])).unwrap();
        let exe = &off.executable;
        assert_eq!(exe.kernels.kernels.len(), ops, "{name}: one kernel per op");
        for k in &exe.kernels.kernels {
            let comp = &exe.module.computations[k.computation];
            let Op::Fusion { calls, .. } = comp.instr(k.instruction).op else {
                panic!("{name}: kernel {} is not a fusion", k.name);
            };
            let fused = &exe.module.computations[calls];
            let computing = fused
                .order
                .iter()
                .filter(|&&i| !matches!(fused.instr(i).op, Op::Parameter { .. }))
                .count();
            assert_eq!(
                computing, 1,
                "{name}: kernel {} computes {computing} ops",
                k.name
            );
            assert!(k.name.starts_with("wrapped_"), "{name}: {}", k.name);
        }
        let thunks = exe.thunk_sequence_text();
        assert!(
            !thunks.contains("reference implementation"),
            "{name}: a reference thunk with fusion off:\n{thunks}"
        );

        // Fused, the same program is one kernel; both compute the same values.
        let on = compile(module.clone(), &CompileOptions::default()).unwrap();
        assert_eq!(
            on.executable.kernels.kernels.len(),
            fused_kernels,
            "{name}: fused"
        );
        let params = xlac::io::arguments::entry_parameters(&module);
        let args = xlac::io::arguments::bind_arguments(&params, Vec::new(), 7).unwrap();
        let (mut on, mut off) = (on.executable, off.executable);
        let a = on.execute(&args.literals).unwrap();
        let b = off.execute(&args.literals).unwrap();
        for (x, y) in a.leaves().iter().zip(b.leaves()) {
            let c = xlac::eval::compare::compare_arrays(
                x,
                y,
                xlac::eval::compare::Tolerance {
                    rtol: 1e-5,
                    atol: 1e-6,
                },
            )
            .unwrap();
            assert!(c.ok(), "{name}: fused and unfused differ: {c}");
        }
    }
}
