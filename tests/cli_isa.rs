//! `xlac compile --isa`: every testdata model's kernels compile for x86_64, aarch64, riscv64
//! (scalar), riscv64v and s390x with a non-empty listing each (through the library, so the
//! 60 models stay fast), and the command line writes `KERNEL.ISA.asm` files and rejects
//! unknown names with one `error:` line.

use std::path::Path;
use std::process::{Command, Output};

use xlac::codegen::inspect::cross_isa::{SUPPORTED_ISAS, compile_for_isas, parse_isas};
use xlac::codegen::{CodegenOptions, compile_kernels};
use xlac::compiler::{CompileOptions, optimize};

fn xlac(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .output()
        .expect("xlac runs")
}

#[test]
fn every_testdata_kernel_lists_on_every_isa() {
    let isas = parse_isas(&[
        "x86_64,aarch64,riscv64,s390x".to_string(),
        "riscv64v".into(),
    ])
    .unwrap();
    assert_eq!(isas.len(), SUPPORTED_ISAS.len());
    let mut failures = Vec::new();
    let mut kernel_count = 0;
    for dir in xlac::testdata::model_dirs() {
        let text = std::fs::read_to_string(dir.join("model.hlo")).unwrap();
        let module = xlac::front::hlo_text::parse_module(&text, "model.hlo")
            .unwrap()
            .module;
        let module = optimize(module, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .module;
        let kernels = compile_kernels(
            &module,
            &CodegenOptions {
                keep_artifacts: true,
                block_math: true,
                no_fp_contraction: false,
            },
        )
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let listings = compile_for_isas(&module, &kernels, &isas).unwrap();
        assert_eq!(listings.len(), kernels.kernels.len() * isas.len());
        kernel_count += kernels.kernels.len();
        for l in &listings {
            let body_lines = l.text.lines().filter(|l| !l.starts_with(';')).count();
            if l.error.is_some() || body_lines < 2 {
                failures.push(format!(
                    "{} {} {}: {:?}",
                    dir.display(),
                    l.kernel,
                    l.isa,
                    l.error
                ));
            }
        }
    }
    assert!(kernel_count > 60, "only {kernel_count} kernels");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn compile_writes_one_listing_per_kernel_and_isa() {
    let dump = std::env::temp_dir().join(format!("xlac_cli_isa_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dump);
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/softmax/model.hlo");
    let out = xlac(&[
        "compile",
        model.to_str().unwrap(),
        "--dump-to",
        dump.to_str().unwrap(),
        "--isa",
        "x86_64,aarch64,riscv64,s390x",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = std::fs::read_to_string(dump.join("index.txt")).unwrap();
    let hosts: Vec<&str> = index
        .lines()
        .filter(|l| l.contains("host machine code"))
        .collect();
    assert!(!hosts.is_empty());
    for isa in ["x86_64", "aarch64", "riscv64", "s390x"] {
        let files: Vec<&str> = index
            .lines()
            .filter_map(|l| l.split('\t').next())
            .filter(|f| f.ends_with(&format!(".{isa}.asm")))
            .collect();
        assert_eq!(files.len(), hosts.len(), "{isa}:\n{index}");
        for f in files {
            let text = std::fs::read_to_string(dump.join(f)).unwrap();
            assert!(
                text.lines().count() > 3 && !text.contains("NOT COMPILED"),
                "{f}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dump);
}

#[test]
fn an_unknown_isa_is_one_usage_error() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/softmax/model.hlo");
    let out = xlac(&[
        "compile",
        model.to_str().unwrap(),
        "--dump-to",
        std::env::temp_dir()
            .join("xlac_never_written")
            .to_str()
            .unwrap(),
        "--isa",
        "aarch64,mips",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains("mips"),
        "{stderr}"
    );
    assert!(
        stderr.contains("riscv64") && stderr.contains("s390x"),
        "{stderr}"
    );
}
