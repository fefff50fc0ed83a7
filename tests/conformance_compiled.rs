//! The compiled backend on the StableHLO conformance corpus (`../shared/conformance/`):
//! every case that loads is compiled (layout, fusion, buffers, Cranelift kernels, thunks)
//! inside `catch_unwind`. A compile may fail with an error naming the instruction (an op
//! the compiled path does not take); it must never panic. The cases' `check.*` ops are
//! custom calls that only `xlac check` (the interpreter) evaluates, so nothing runs here;
//! the golden tests run the compiled code.

use std::path::{Path, PathBuf};

use xlac::check::loader;
use xlac::check::split_cases;
use xlac::compiler::{CompileOptions, compile};

fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XLAC_CONFORMANCE_DIR") {
        return PathBuf::from(dir);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        root.join("../shared/conformance"),
        root.join("../../shared/conformance"),
    ]
    .into_iter()
    .find(|d| d.join("index.tsv").exists())
    .expect("the conformance corpus is missing: expected ../shared/conformance")
}

fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            mlir_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "mlir") {
            out.push(path);
        }
    }
}

#[test]
fn every_conformance_case_compiles_or_fails_cleanly() {
    let mut files = Vec::new();
    mlir_files(&corpus_dir(), &mut files);
    files.sort();
    let (mut compiled, mut errors, mut panics) = (0, 0, Vec::new());
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.display().to_string();
        for chunk in split_cases(&text, "func.func") {
            let Ok(module) = loader::stablehlo(&chunk.text, &name, chunk.line_offset) else {
                continue;
            };
            let result = std::panic::catch_unwind(|| {
                compile(module, &CompileOptions::default()).map(|_| ())
            });
            match result {
                Ok(Ok(())) => compiled += 1,
                Ok(Err(_)) => errors += 1,
                Err(_) => panics.push(format!("{name}:{}", chunk.line_offset + 1)),
            }
        }
    }
    println!("conformance cases compiled: {compiled}, clean compile errors: {errors}");
    assert!(compiled > 800, "only {compiled} cases compiled");
    assert!(panics.is_empty(), "compile panicked on: {panics:?}");
}
