//! XLA:CPU's own field reports as regression programs (`testdata/field_reports/`, written
//! by `scripts/field_reports.py` with jax 0.10.2; each folder's report.txt names its
//! report): a rank-8 broadcast-multiply-reduce and a rank-7 reduce that crash jaxlib
//! 0.10.2, a module whose results changed from call to call with several threads, and
//! fusion-dependent NaN/infinity/cancellation arithmetic that differed from the
//! interpreter. xlac must run each without crashing, give bit-identical results on every
//! call, with fusion on and off, and at every thread count, and agree with its interpreter
//! and with XLA's outputs.

use std::path::{Path, PathBuf};
use std::process::Command;

use xlac::compiler::{CompileOptions, compile};
use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::eval::{EvalOptions, evaluate};
use xlac::front::hlo_text;
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::read_npz;
use xlac::ir::{ArrayLiteral, Literal, Module};
use xlac::testdata::compare_with_expected;

const PROGRAMS: [&str; 4] = ["jax39257", "jax40412", "jax39741", "xla47316"];

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/field_reports")
        .join(name)
}

fn load(name: &str) -> (Module, Vec<Literal>) {
    let d = dir(name);
    let text = std::fs::read_to_string(d.join("model.hlo")).unwrap();
    let module = hlo_text::parse_module(&text, "model.hlo").unwrap().module;
    let inputs = read_npz(&d.join("inputs.npz")).unwrap();
    let args = bind_arguments(&entry_parameters(&module), inputs, 0).unwrap();
    assert!(args.randomized.is_empty(), "{name}: inputs.npz is short");
    (module, args.literals)
}

/// Every leaf's bits, to compare runs exactly (NaN payloads included).
fn bits(result: &Literal) -> Vec<Vec<u8>> {
    result
        .leaves()
        .iter()
        .map(|a| xlac::runtime::buffers::literal_bytes(a).to_vec())
        .collect()
}

fn run_compiled(module: &Module, args: &[Literal], options: &CompileOptions) -> Vec<Literal> {
    let mut exe = compile(module.clone(), options).unwrap().executable;
    (0..3).map(|_| exe.execute(args).unwrap()).collect()
}

/// Within `tol` of each other, NaN where the other has NaN.
fn close(a: &[&ArrayLiteral], b: &[&ArrayLiteral], tol: Tolerance, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: output counts");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let c = compare_arrays(x, y, tol).unwrap();
        assert!(c.ok(), "{what}: output {i}: {c}");
    }
}

#[test]
fn field_report_programs_are_deterministic_and_agree_with_the_interpreter_and_xla() {
    let tight = Tolerance {
        rtol: 1e-5,
        atol: 1e-6,
    };
    for name in PROGRAMS {
        let (module, args) = load(name);
        let fused = run_compiled(&module, &args, &CompileOptions::default());
        let first = bits(&fused[0]);
        for (call, r) in fused.iter().enumerate().skip(1) {
            assert!(bits(r) == first, "{name}: call {call} differs from call 0");
        }
        let unfused = run_compiled(
            &module,
            &args,
            &CompileOptions {
                disabled_passes: vec!["fusion".into()],
                ..CompileOptions::default()
            },
        );
        close(
            &unfused[0].leaves(),
            &fused[0].leaves(),
            tight,
            &format!("{name}: fusion off vs on"),
        );
        let interpreted = evaluate(&module, &args, &EvalOptions::default()).unwrap();
        close(
            &fused[0].leaves(),
            &interpreted.leaves(),
            tight,
            &format!("{name}: compiled vs interpreter"),
        );
        let problems = compare_with_expected(&module, &fused[0].leaves(), &dir(name));
        assert!(problems.is_empty(), "{name} vs XLA: {problems:?}");
    }
}

#[test]
fn field_report_programs_give_the_same_bits_at_every_thread_count() {
    let scratch = std::env::temp_dir().join(format!("xlac-field-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for name in PROGRAMS {
        let d = dir(name);
        let mut outputs = Vec::new();
        for threads in [1, 2, 3, 8] {
            let out = scratch.join(format!("{name}-{threads}.npz"));
            let status = Command::new(env!("CARGO_BIN_EXE_xlac"))
                .arg("run")
                .arg(d.join("model.hlo"))
                .arg("--input")
                .arg(d.join("inputs.npz"))
                .arg("--output")
                .arg(&out)
                .args(["--quiet", "--threads", &threads.to_string()])
                .status()
                .unwrap();
            assert!(status.success(), "{name} --threads {threads}");
            let leaves: Vec<Vec<u8>> = read_npz(&out)
                .unwrap()
                .iter()
                .map(|a| xlac::runtime::buffers::literal_bytes(&a.literal).to_vec())
                .collect();
            outputs.push((threads, leaves));
        }
        for (threads, leaves) in &outputs[1..] {
            assert!(
                *leaves == outputs[0].1,
                "{name}: --threads {threads} differs from --threads 1"
            );
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}
