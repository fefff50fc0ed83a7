//! `--threads N` on `xlac run` and `xlac bench`: the kernels' pool size, which results
//! never depend on. A reduction-heavy program and dot programs (among them shapes whose
//! GEMM cut used to follow the pool size) write bit-identical `--output` files with
//! `--threads 1` and `--threads 2`, and agree with the reference interpreter; bad counts
//! are one `error:` line and a nonzero exit.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Row, column and whole-array sums, a max and a mean over a 4096x517 array.
const REDUCTIONS: &str = "\
HloModule reductions

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

ENTRY main {
  a = f32[4096,517]{1,0} parameter(0)
  z = f32[] constant(0)
  ninf = f32[] constant(-inf)
  rows = f32[4096]{0} reduce(a, z), dimensions={1}, to_apply=add
  cols = f32[517]{0} reduce(a, z), dimensions={0}, to_apply=add
  all = f32[] reduce(a, z), dimensions={0,1}, to_apply=add
  e = f32[4096,517]{1,0} exponential(a)
  m = f32[517]{0} reduce(e, ninf), dimensions={0}, to_apply=max
  ROOT t = (f32[4096]{0}, f32[517]{0}, f32[], f32[517]{0}) tuple(rows, cols, all, m)
}
";

/// Column reductions big enough to split their rows into chunks (partial rows combined in
/// a fixed order): batch norm's sum over `B,H,W` of an NHWC activation, a max and a mean
/// over axis 0, an f64 sum, and a bf16 array summed in f32 as jax does.
const COLUMN_REDUCTIONS: &str = "\
HloModule column_reductions

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

add64 {
  x = f64[] parameter(0)
  y = f64[] parameter(1)
  ROOT s = f64[] add(x, y)
}

max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

ENTRY main {
  x = f32[16,32,32,64]{3,2,1,0} parameter(0)
  y = f32[3000,700]{1,0} parameter(1)
  d = f64[1500,301]{1,0} parameter(2)
  b = bf16[2000,515]{1,0} parameter(3)
  z = f32[] constant(0)
  z64 = f64[] constant(0)
  ninf = f32[] constant(-inf)
  bn = f32[64]{0} reduce(x, z), dimensions={0,1,2}, to_apply=add
  m = f32[700]{0} reduce(y, ninf), dimensions={0}, to_apply=max
  ys = f32[700]{0} reduce(y, z), dimensions={0}, to_apply=add
  k = f32[] constant(3000)
  kb = f32[700]{0} broadcast(k), dimensions={}
  mean = f32[700]{0} divide(ys, kb)
  ds = f64[301]{0} reduce(d, z64), dimensions={0}, to_apply=add64
  bf = f32[2000,515]{1,0} convert(b)
  bs = f32[515]{0} reduce(bf, z), dimensions={0}, to_apply=add
  bsum = bf16[515]{0} convert(bs)
  ROOT t = (f32[64]{0}, f32[700]{0}, f32[700]{0}, f64[301]{0}, bf16[515]{0}) tuple(bn, m, mean, ds, bsum)
}
";

/// A dot program: `m x k` by `k x n`, the rhs transposed (`g @ W.T`) when `rhs_t`.
fn dot_program(m: usize, n: usize, k: usize, rhs_t: bool) -> String {
    let (rhs, rc) = if rhs_t {
        (format!("f32[{n},{k}]"), 1)
    } else {
        (format!("f32[{k},{n}]"), 0)
    };
    format!(
        "HloModule dot
ENTRY main {{
  a = f32[{m},{k}]{{1,0}} parameter(0)
  b = {rhs}{{1,0}} parameter(1)
  ROOT d = f32[{m},{n}]{{1,0}} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{{rc}}}
}}"
    )
}

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn xlac(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .env_remove("XLAC_BACKTRACE")
        .env_remove("RAYON_NUM_THREADS")
        .output()
        .expect("the xlac binary runs");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xlac-threads-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `model` with `--threads t` (and the autotune cache out of the way), comparing to
/// the interpreter; returns the bytes of its `--output`.
fn run_with_threads(dir: &Path, model: &Path, t: &str) -> Vec<u8> {
    let out = dir.join(format!("out_{t}.npz"));
    let o = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args([
            "run",
            model.to_str().unwrap(),
            "--threads",
            t,
            "--seed",
            "3",
        ])
        .args([
            "--compare-to",
            "interpreter",
            "--output",
            out.to_str().unwrap(),
        ])
        .env("XLAC_AUTOTUNE_CACHE", dir.join("autotune.json"))
        .env_remove("RAYON_NUM_THREADS")
        .output()
        .expect("the xlac binary runs");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{} --threads {t}: {}{stdout}",
        model.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        !stdout.contains("FAIL"),
        "{} --threads {t} disagrees with the interpreter:\n{stdout}",
        model.display()
    );
    std::fs::read(&out).unwrap()
}

fn assert_thread_independent(test: &str, text: &str) {
    let dir = scratch(test);
    let model = dir.join("model.hlo");
    std::fs::write(&model, text).unwrap();
    let one = run_with_threads(&dir, &model, "1");
    let two = run_with_threads(&dir, &model, "2");
    assert!(
        one == two,
        "{test}: --threads 1 and --threads 2 wrote different outputs"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn reductions_do_not_depend_on_threads() {
    assert_thread_independent("reductions", REDUCTIONS);
}

/// Row-chunked column reductions give the same bits on 1, 2 and 3 threads.
#[test]
fn column_reductions_do_not_depend_on_threads() {
    let dir = scratch("column_reductions");
    let model = dir.join("model.hlo");
    std::fs::write(&model, COLUMN_REDUCTIONS).unwrap();
    let one = run_with_threads(&dir, &model, "1");
    for t in ["2", "3"] {
        assert!(
            run_with_threads(&dir, &model, t) == one,
            "column reductions: --threads 1 and --threads {t} wrote different outputs"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dots_do_not_depend_on_threads() {
    // 128x64x1000 cut by the pool size went to the `gemm` crate's small-matrix blocking
    // of k on two threads only; 17 rows leave a one-row block; the rest are the usual
    // shapes, untransposed and transposed.
    for (i, (m, n, k, rhs_t)) in [
        (128, 64, 1000, false),
        (128, 64, 1000, true),
        (17, 1024, 600, false),
        (128, 1024, 1024, true),
        // A transposed rhs computed into a column-major temporary, copied back in three
        // column blocks of which the last is shorter.
        (96, 2100, 300, true),
        (300, 200, 700, false),
        // Few rows (an LSTM step's batch): column chunks over the pool, and a tail of
        // columns that is not a whole vector.
        (8, 2048, 512, false),
        (5, 1000, 700, false),
    ]
    .into_iter()
    .enumerate()
    {
        assert_thread_independent(&format!("dot{i}"), &dot_program(m, n, k, rhs_t));
    }
}

#[test]
fn bench_takes_threads() {
    let dir = scratch("bench");
    let model = dir.join("model.hlo");
    std::fs::write(&model, dot_program(32, 32, 32, true)).unwrap();
    let o = xlac(&[
        "bench",
        model.to_str().unwrap(),
        "--threads",
        "1",
        "--iters",
        "2",
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["iters"], 2);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_thread_counts_are_one_error_line() {
    let dir = scratch("bad");
    let model = dir.join("model.hlo");
    std::fs::write(&model, dot_program(4, 4, 4, false)).unwrap();
    let m = model.to_str().unwrap();
    for command in ["run", "bench"] {
        for (bad, says) in [
            ("0", "'0' is not a thread count"),
            ("abc", "'abc' is not a thread count"),
            ("-2", "-2"),
            ("100000", "from 1 to 1024"),
        ] {
            let o = xlac(&[command, m, "--threads", bad]);
            assert_ne!(o.code, 0, "{command} --threads {bad} succeeded");
            let lines: Vec<&str> = o.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{command} --threads {bad}: {}", o.stderr);
            assert!(
                lines[0].starts_with("error: ") && lines[0].contains(says),
                "{command} --threads {bad}: {}",
                lines[0]
            );
            assert!(
                o.stdout.is_empty(),
                "{command} --threads {bad}: {}",
                o.stdout
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
