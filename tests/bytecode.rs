//! `xlac` on StableHLO portable artifacts (MLIR bytecode): every `testdata/` model's
//! artifacts (`testdata/bytecode/programs/`, written by jaxlib) run to the same outputs,
//! bit for bit, as its `model.mlir`; `--dump-to` writes the artifact as text; `convert`
//! prints it; bad bytes give one `error:` line naming a byte offset.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn xlac(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .env_remove("XLAC_BACKTRACE")
        .output()
        .expect("the xlac binary runs");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xlac-bytecode-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `xlac run MODEL --input inputs.npz --output OUT --quiet`; the output file's bytes.
fn run_to_npz(model: &Path, inputs: &Path, out: &Path) -> Result<Vec<u8>, String> {
    let o = xlac(&[
        "run",
        &model.display().to_string(),
        "--input",
        &inputs.display().to_string(),
        "--output",
        &out.display().to_string(),
        "--quiet",
    ]);
    if o.code != 0 {
        return Err(format!(
            "{}: exit {}: {}",
            model.display(),
            o.code,
            o.stderr.trim()
        ));
    }
    std::fs::read(out).map_err(|e| e.to_string())
}

#[test]
fn artifacts_run_like_their_text_bit_for_bit() {
    let dir = scratch("run");
    let programs = root().join("bytecode/programs");
    let mut models: Vec<PathBuf> = Vec::new();
    for e in std::fs::read_dir(root()).unwrap() {
        let p = e.unwrap().path();
        if p.join("model.mlir").exists() && p.join("inputs.npz").exists() {
            models.push(p);
        }
    }
    models.sort();
    assert!(models.len() >= 60, "{} models", models.len());
    let mut problems = Vec::new();
    let mut compared = 0;
    for m in &models {
        let name = m.file_name().unwrap().to_str().unwrap().to_string();
        let inputs = m.join("inputs.npz");
        let want = match run_to_npz(
            &m.join("model.mlir"),
            &inputs,
            &dir.join(format!("{name}.text.npz")),
        ) {
            Ok(b) => b,
            Err(e) => {
                problems.push(format!("{name}: model.mlir: {e}"));
                continue;
            }
        };
        for target in ["1.0.0", "1.13.7", "1.17.0", "jit"] {
            let bc = programs.join(format!("{name}.{target}.mlirbc"));
            assert!(
                bc.exists() || target == "jit",
                "{} is missing",
                bc.display()
            );
            if !bc.exists() {
                continue;
            }
            match run_to_npz(&bc, &inputs, &dir.join(format!("{name}.{target}.npz"))) {
                Ok(got) if got == want => compared += 1,
                Ok(_) => problems.push(format!(
                    "{name}: {target}: outputs differ from model.mlir's"
                )),
                Err(e) => problems.push(format!("{name}: {target}: {e}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{compared} artifacts gave the same outputs as their model.mlir");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn dump_holds_the_artifact_as_text_and_convert_prints_it() {
    let dir = scratch("dump");
    let bc = root().join("bytecode/programs/mlp.jit.mlirbc");
    let dump = dir.join("dump");
    let o = xlac(&[
        "compile",
        &bc.display().to_string(),
        "--dump-to",
        &dump.display().to_string(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut text_file = None;
    for e in std::fs::read_dir(&dump).unwrap() {
        let p = e.unwrap().path();
        if p.to_str().unwrap().ends_with(".stablehlo.mlir") {
            text_file = Some(p);
        }
    }
    let text = std::fs::read_to_string(text_file.expect("a .stablehlo.mlir file")).unwrap();
    assert!(
        text.starts_with(
            "// StableHLO portable artifact: producer StableHLO_v1.17.0, MLIR bytecode version 6\n"
        ),
        "{}",
        text.lines().next().unwrap_or_default()
    );
    let index = std::fs::read_to_string(dump.join("index.txt")).unwrap();
    assert!(index.contains("portable artifact"), "{index}");
    // The printed text parses back and runs like the artifact.
    let as_text = dir.join("mlp.mlir");
    let c = xlac(&["convert", &bc.display().to_string(), "--to", "mlir"]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    assert_eq!(c.stdout, text);
    std::fs::write(&as_text, &c.stdout).unwrap();
    let inputs = root().join("mlp/inputs.npz");
    let a = run_to_npz(&bc, &inputs, &dir.join("a.npz")).unwrap();
    let b = run_to_npz(&as_text, &inputs, &dir.join("b.npz")).unwrap();
    assert_eq!(a, b);
    let h = xlac(&["convert", &bc.display().to_string(), "--to", "hlo"]);
    assert_eq!(h.code, 0, "{}", h.stderr);
    assert!(h.stdout.starts_with("HloModule "), "{}", h.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_artifacts_get_one_error_line_with_a_byte_offset() {
    let dir = scratch("bad");
    let good = std::fs::read(root().join("bytecode/programs/softmax.1.17.0.mlirbc")).unwrap();
    let mut cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", good[..good.len() / 2].to_vec(), "byte "),
        (
            "wrong_version",
            [&b"ML\xefR\x0b"[..], &good[5..]].concat(),
            "unsupported bytecode version 5",
        ),
        (
            "magic_only",
            b"ML\xefR".to_vec(),
            "byte 4: expected the bytecode version",
        ),
    ];
    let mut flipped = good.clone();
    flipped[40] ^= 0xff;
    cases.push(("flipped", flipped, "byte "));
    for (name, bytes, want) in &cases {
        let path = dir.join(format!("{name}.bin"));
        std::fs::write(&path, bytes).unwrap();
        let o = xlac(&["run", &path.display().to_string(), "--quiet"]);
        assert_eq!(o.code, 1, "{name}: {}", o.stderr);
        let lines: Vec<&str> = o.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{name}: {}", o.stderr);
        assert!(lines[0].starts_with("error: "), "{name}: {}", lines[0]);
        assert!(
            lines[0].contains(want),
            "{name}: {} lacks {want:?}",
            lines[0]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
