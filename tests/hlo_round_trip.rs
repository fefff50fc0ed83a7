//! Every HLO file in `testdata/*/` (JAX's `model.hlo` and XLA:CPU's `xla_opt.hlo`) must parse,
//! and printing it and parsing the print must give the same module (names, shapes,
//! operands, typed attributes, constants bit for bit, metadata, raw attributes).
//! Printing the re-parsed module must also give the same text (the printer is stable).

use std::path::{Path, PathBuf};

use xlac::front::hlo_text::{module_diff, parse_module, print_module};

fn hlo_files() -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let dirs = std::fs::read_dir(&root).ok()?;
    let mut files: Vec<PathBuf> = dirs
        .filter_map(|d| d.ok())
        .filter(|d| d.path().is_dir())
        .flat_map(|d| {
            std::fs::read_dir(d.path())
                .into_iter()
                .flatten()
                .filter_map(|f| f.ok())
        })
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlo"))
        .collect();
    files.sort();
    Some(files)
}

/// The `.hlo` files one level deeper: the multi-device fixtures (`testdata/spmd/*/`,
/// `testdata/collectives/*/`), whose XLA dumps carry every replica-group syntax (explicit,
/// iota, `mesh[...]`) and every `sharding=` form.
fn multi_device_hlo_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut files = Vec::new();
    for group in ["spmd", "collectives"] {
        for dir in std::fs::read_dir(root.join(group)).unwrap().flatten() {
            if !dir.path().is_dir() {
                continue;
            }
            for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
                if f.path().extension().is_some_and(|e| e == "hlo") {
                    files.push(f.path());
                }
            }
        }
    }
    files.sort();
    files
}

#[test]
fn multi_device_fixtures_round_trip() {
    let files = multi_device_hlo_files();
    assert!(files.len() >= 100, "{} files", files.len());
    round_trip(&files);
}

#[test]
fn every_testdata_hlo_file_round_trips() {
    let Some(files) = hlo_files() else {
        println!("note: no testdata folder; skipping the HLO round-trip test");
        return;
    };
    assert!(!files.is_empty(), "testdata has no .hlo files");
    round_trip(&files);
}

/// Parse, print, parse again: the same module, and a stable print.
fn round_trip(files: &[PathBuf]) {
    let mut failures = Vec::new();
    for path in files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).expect("readable file");
        let first = match parse_module(&text, &name) {
            Ok(p) => p.module,
            Err(e) => {
                failures.push(format!("{e}"));
                continue;
            }
        };
        let printed = print_module(&first);
        let second = match parse_module(&printed, &format!("{name} (printed)")) {
            Ok(p) => p.module,
            Err(e) => {
                failures.push(format!("reparse: {e}"));
                continue;
            }
        };
        if let Some(d) = module_diff(&first, &second) {
            failures.push(format!("{name}: printed module differs: {d}"));
            continue;
        }
        if print_module(&second) != printed {
            failures.push(format!("{name}: printing is not stable"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// XLA:CPU's own optimized dumps are in the printer's style, so printing them must give the
/// file back byte for byte: layouts, attribute order, float digits, `/*index=N*/` markers,
/// stack-frame tables and blank lines all match XLA's printer.
#[test]
fn xla_optimized_dumps_print_back_identically() {
    let Some(files) = hlo_files() else {
        println!("note: no testdata folder; skipping");
        return;
    };
    let mut failures = Vec::new();
    for path in files
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "xla_opt.hlo"))
    {
        let text = std::fs::read_to_string(path).expect("readable file");
        let Ok(parsed) = parse_module(&text, &path.display().to_string()) else {
            failures.push(format!("{}: does not parse", path.display()));
            continue;
        };
        let printed = print_module(&parsed.module);
        if printed != text {
            let line = printed.lines().zip(text.lines()).position(|(a, b)| a != b);
            failures.push(format!(
                "{}: first differing line {:?}",
                path.display(),
                line.map(|l| l + 1)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
