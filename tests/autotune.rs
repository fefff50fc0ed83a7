//! `--autotune`: on the matmul and conv models it races every tunable thunk and
//! writes `KERNEL.autotune.txt` (every candidate, its times, the winner); the winner is the
//! default unless it beat the default's median by more than the noise margin; the thunk
//! sequence uses the winner; a second compile without the flag takes the winners from the
//! cache; results still match the interpreter. Timings themselves are never asserted.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn xlac(args: &[&str], cache: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .env("XLAC_AUTOTUNE_CACHE", cache)
        .output()
        .expect("the xlac binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xlac-autotune-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The race tables in a dump folder, by thunk name.
fn tables(dump: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dump).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".autotune.txt") {
            let thunk = stem.splitn(3, '.').nth(2).unwrap_or(stem).to_string();
            out.push((thunk, std::fs::read_to_string(&p).unwrap()));
        }
    }
    out.sort();
    out
}

fn thunk_sequence(dump: &Path) -> String {
    let f = std::fs::read_dir(dump)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("thunk-sequence.txt"))
        .expect("a thunk sequence");
    std::fs::read_to_string(f).unwrap()
}

/// Checks one race table and returns its winner: every candidate has a median and a min,
/// the default is one of them, and a winner other than the default beat it by the margin.
fn check_race(thunk: &str, table: &str) -> String {
    let mut default = None;
    let mut winner = None;
    let mut medians = Vec::new();
    for line in table.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.len() >= 3
            && let (Ok(median), Ok(min)) = (cols[1].parse::<f64>(), cols[2].parse::<f64>())
        {
            assert!(min <= median && min >= 0.0, "{thunk}: {line}");
            medians.push((cols[0].to_string(), median));
            if cols[3..].contains(&"default") {
                default = Some((cols[0].to_string(), median));
            }
            if cols[3..].contains(&"winner") {
                winner = Some((cols[0].to_string(), median));
            }
        }
    }
    assert!(
        medians.len() >= 2,
        "{thunk}: fewer than two candidates:\n{table}"
    );
    let (default, default_ms) = default.unwrap_or_else(|| panic!("{thunk}: no default\n{table}"));
    let (winner, winner_ms) = winner.unwrap_or_else(|| panic!("{thunk}: no winner\n{table}"));
    let best = medians
        .iter()
        .map(|(_, m)| *m)
        .fold(f64::INFINITY, f64::min);
    if winner != default {
        assert!(winner_ms < default_ms * 0.97, "{thunk}: {table}");
        assert_eq!(
            winner_ms, best,
            "{thunk}: the winner is not the fastest\n{table}"
        );
    }
    assert!(
        table.contains(&format!("winner: {winner} (")),
        "{thunk}: {table}"
    );
    winner
}

fn race_and_reuse(model: &str, kinds: &[&str]) {
    let dir = temp(model.replace('/', "_").as_str());
    let cache = dir.join("cache.json");
    let model = root().join("testdata").join(model).join("model.hlo");
    let model = model.to_str().unwrap();
    let raced = dir.join("raced");
    let (code, _, err) = xlac(
        &[
            "compile",
            model,
            "--autotune",
            "--dump-to",
            raced.to_str().unwrap(),
        ],
        &cache,
    );
    assert_eq!(code, 0, "{err}");
    let races = tables(&raced);
    for kind in kinds {
        assert!(
            races.iter().any(|(_, t)| t.contains(kind)),
            "no {kind} race in {races:?}"
        );
    }
    let sequence = thunk_sequence(&raced);
    let mut winners = Vec::new();
    for (thunk, table) in &races {
        let winner = check_race(thunk, table);
        {
            assert!(
                sequence.contains(&format!("autotuned: {winner}")),
                "{thunk}: the thunk sequence does not use {winner}:\n{sequence}"
            );
        }
        winners.push((thunk.clone(), winner));
    }
    assert!(cache.exists(), "the cache was not written");

    // Without --autotune, the cache decides.
    let cached = dir.join("cached");
    let (code, _, err) = xlac(
        &["compile", model, "--dump-to", cached.to_str().unwrap()],
        &cache,
    );
    assert_eq!(code, 0, "{err}");
    let again = tables(&cached);
    assert_eq!(again.len(), races.len());
    for ((thunk, table), (_, winner)) in again.iter().zip(&winners) {
        assert!(
            table.contains(&format!("winner: {winner} (from the cache")),
            "{thunk}: {table}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn matmul_races_the_gemm_threading() {
    race_and_reuse("bench/matmul", &["dot: GEMM threading"]);
}

#[test]
fn cnn_races_the_convolution_algorithm_and_kernel_splits() {
    race_and_reuse("cnn", &["convolution algorithm", "kernel thread split"]);
}

#[test]
fn autotuned_run_still_matches_the_interpreter() {
    let dir = temp("run");
    let cache = dir.join("cache.json");
    let m = root().join("testdata/cnn");
    let (code, out, err) = xlac(
        &[
            "run",
            m.join("model.hlo").to_str().unwrap(),
            "--input",
            m.join("inputs.npz").to_str().unwrap(),
            "--autotune",
            "--compare-to",
            "interpreter",
        ],
        &cache,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(": ok"), "{out}");
    assert!(
        !out.contains("NOT ok") && !out.contains("mismatch"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
