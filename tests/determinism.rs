//! Results never depend on how a program runs (design.md §9): every `testdata/` model,
//! run by the `xlac` binary on its `inputs.npz`, writes bit-identical `--output` files
//! across three runs with `RAYON_NUM_THREADS=8` and runs with 1 and 2 threads (the kernels split their ranges, the GEMM tiles and the autotuner's choices all
//! follow the pool size).

use std::path::Path;
use std::process::Command;

fn run(model: &Path, inputs: &Path, out: &Path, threads: Option<usize>) -> Result<Vec<u8>, String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xlac"));
    cmd.arg("run")
        .arg(model)
        .arg("--input")
        .arg(inputs)
        .arg("--output")
        .arg(out)
        .arg("--quiet")
        // The autotune cache is per machine; results must not depend on it either, but a
        // stale cache from another test run must not make this test flaky.
        .env("XLAC_AUTOTUNE_CACHE", out.with_extension("autotune.json"));
    if let Some(n) = threads {
        cmd.env("RAYON_NUM_THREADS", n.to_string());
    }
    let status = cmd.output().map_err(|e| format!("cannot run xlac: {e}"))?;
    if !status.status.success() {
        return Err(format!(
            "xlac run {} failed: {}",
            model.display(),
            String::from_utf8_lossy(&status.stderr)
        ));
    }
    std::fs::read(out).map_err(|e| format!("cannot read {}: {e}", out.display()))
}

#[test]
fn outputs_are_bit_identical_across_runs_and_thread_counts() {
    let scratch = std::env::temp_dir().join(format!("xlac-determinism-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in xlac::testdata::model_dirs() {
        let model = dir.join("model.hlo");
        let inputs = dir.join("inputs.npz");
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let out = scratch.join(format!("{name}.npz"));
        // Three runs at 8 threads (more than this machine has cores), then 1 and 2.
        let settings = [Some(8), Some(8), Some(8), Some(1), Some(2)];
        let mut first: Option<Vec<u8>> = None;
        for (k, threads) in settings.iter().enumerate() {
            match run(&model, &inputs, &out, *threads) {
                Ok(bytes) => match &first {
                    None => first = Some(bytes),
                    Some(f) if *f != bytes => {
                        failures.push(format!(
                            "{name}: run {k} (RAYON_NUM_THREADS={threads:?}) differs from run 0"
                        ));
                        break;
                    }
                    Some(_) => {}
                },
                Err(e) => {
                    failures.push(e);
                    break;
                }
            }
        }
        checked += 1;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(checked >= 50, "only {checked} models");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
