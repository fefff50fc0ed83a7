//! `xlac bench MODEL [--input FILE]... [--iters N] [--json]`: compiles the model once, then
//! times steady-state `Executable::run` calls on the same inputs (after warm-up runs that
//! touch every buffer and page in the code): the result stays in the executable's buffers,
//! as XLA's timed results stay on the device. Parsing and compilation are not in the run times;
//! `compile_ms` is `compiler::compile` alone. Timings are printed, never asserted.
//! XLA counterpart: `xla/tools/run_hlo_module.cc --iterations`, `jax.jit(f)` timed warm.

use std::time::Instant;

use super::outcome::write_measured_report;
use super::prepare::{bind_inputs, compile_loaded};
use super::{BenchArgs, Failure, model};
use crate::io::arguments::entry_parameters;
use crate::runtime::profile::Profiling;

/// Timed iterations when `--iters` is not given.
pub const DEFAULT_ITERS: u64 = 30;

/// Untimed runs before timing: at least this many, and for at least [`WARMUP_TIME`].
const WARMUP_RUNS: u64 = 3;

/// How long the untimed runs last at least: on the 2-core VM a GEMM's two halves often ran
/// in series for the first 100-150 ms of runs (then every run was parallel), so a count of
/// warm-up runs timed a short model's start-up, not its steady state.
const WARMUP_TIME: std::time::Duration = std::time::Duration::from_millis(300);

/// The numbers `xlac bench` reports.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// Milliseconds from the parsed module to a ready executable.
    pub compile_ms: f64,
    /// Median run time in milliseconds.
    pub run_ms_median: f64,
    /// Fastest run in milliseconds.
    pub run_ms_min: f64,
    /// Timed runs.
    pub iters: u64,
    /// Every timed run in milliseconds, in run order (for pooling runs across processes).
    pub run_ms: Vec<f64>,
    /// The process's peak resident set in MiB (`getrusage`'s `ru_maxrss`) after the timed
    /// runs: parsing, compilation, inputs and every run's buffers; `None` where the system
    /// does not report it.
    pub peak_rss_mb: Option<f64>,
}

impl BenchResult {
    /// The `--json` line:
    /// `{"compile_ms":…,"run_ms_median":…,"run_ms_min":…,"iters":…,"run_ms":[…],
    /// "peak_rss_mb":…}` (`null` when unknown).
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "compile_ms": self.compile_ms,
            "run_ms_median": self.run_ms_median,
            "run_ms_min": self.run_ms_min,
            "iters": self.iters,
            "run_ms": self.run_ms,
            "peak_rss_mb": self.peak_rss_mb,
        })
        .to_string()
    }
}

/// Runs `xlac bench`.
pub fn bench(args: &BenchArgs) -> Result<(), Failure> {
    let iters = args.iters.unwrap_or(DEFAULT_ITERS);
    if iters == 0 {
        return Err(Failure::usage("--iters must be at least 1"));
    }
    let loaded = model::load(&args.model, args.json)?;
    let file = loaded.file.clone();
    let params = entry_parameters(&loaded.module);
    let arguments = bind_inputs(&params, &args.inputs, None, args.json)?;
    let flags = super::PassFlags {
        autotune: args.autotune,
        inline_math: args.inline_math,
        disable_passes: args.disable_passes.clone(),
        ..Default::default()
    };
    let options = super::prepare::compile_options(&flags, args.dump_to.clone(), false)?;
    let mut compiled = compile_loaded(loaded, &options)?;
    let exe = &mut compiled.executable;
    exe.limits = args.limits.run_limits();
    let run = |exe: &mut crate::runtime::Executable| {
        // `run`, not `execute`: the result stays in the executable's buffers, as XLA's
        // timed results stay on the device; copying 16 MB out would be timed otherwise.
        exe.run(&arguments.literals)
            .map_err(|e| Failure::error(format!("{file}: {e}")))
    };
    let warm = Instant::now();
    let mut runs = 0;
    while runs < WARMUP_RUNS || warm.elapsed() < WARMUP_TIME {
        run(exe)?;
        runs += 1;
    }
    let mut times = Vec::with_capacity(iters as usize);
    // With a dump, the timed runs are also timed per thunk for report.html (one
    // thread-local read per thunk otherwise).
    let profiling = args.dump_to.as_ref().map(|_| Profiling::start());
    for _ in 0..iters {
        let start = Instant::now();
        run(exe)?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let thunk_times = profiling.map(Profiling::finish);
    // The triad runs after the timed runs, so its 192 MiB do not evict the model's buffers.
    let triad_gbs = if args.triad {
        let figures = measure_triads()?;
        for f in &figures {
            let line = format!(
                "triad {} thread(s), 3 x {} MiB: best {:.2} GB/s (median {:.2})",
                f.threads,
                (super::triad::DEFAULT_ELEMENTS * 8) >> 20,
                f.best_gbs,
                f.median_gbs
            );
            // With --json, stdout is the one JSON line.
            if args.json {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        }
        figures.last().map(|f| f.best_gbs)
    } else {
        args.triad_gbs
    };
    if let (Some(thunk_times), Some(dir)) = (thunk_times, &args.dump_to) {
        write_measured_report(dir, &compiled, &thunk_times, iters as usize, triad_gbs)?;
    }
    let run_ms = times.clone();
    times.sort_by(f64::total_cmp);
    let n = times.len();
    let median = if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2.0
    };
    let result = BenchResult {
        compile_ms: compiled.compile_ms,
        run_ms_median: median,
        run_ms_min: times[0],
        iters,
        run_ms,
        peak_rss_mb: peak_rss_mb(),
    };
    if args.json {
        println!("{}", result.to_json());
    } else {
        println!("compile_ms     {:.3}", result.compile_ms);
        println!("run_ms_median  {:.3}", result.run_ms_median);
        println!("run_ms_min     {:.3}", result.run_ms_min);
        println!("iters          {}", result.iters);
        if let Some(mb) = result.peak_rss_mb {
            println!("peak_rss_mb    {mb:.1}");
        }
    }
    Ok(())
}

/// The process's peak resident set so far, in MiB: `getrusage(RUSAGE_SELF)`'s `ru_maxrss`
/// (KiB on Linux, bytes on macOS).
fn peak_rss_mb() -> Option<f64> {
    // SAFETY: `getrusage` fills the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        (libc::getrusage(libc::RUSAGE_SELF, &mut usage) == 0).then_some(usage)
    }?;
    let max = usage.ru_maxrss as f64;
    let bytes = if cfg!(target_os = "macos") {
        max
    } else {
        max * 1024.0
    };
    (max > 0.0).then_some(bytes / (1024.0 * 1024.0))
}

/// Timed triad runs per thread count.
const TRIAD_RUNS: usize = 5;

/// The triad on one thread and on every thread of the kernels' pool (one figure when the
/// pool has one thread).
fn measure_triads() -> Result<Vec<super::triad::TriadFigure>, Failure> {
    let all = rayon::current_num_threads();
    let mut counts = vec![1];
    if all > 1 {
        counts.push(all);
    }
    counts
        .into_iter()
        .map(|t| {
            super::triad::measure(super::triad::DEFAULT_ELEMENTS, t, TRIAD_RUNS)
                .map_err(Failure::error)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_the_summary_and_every_run() {
        let r = BenchResult {
            compile_ms: 1.5,
            run_ms_median: 0.25,
            run_ms_min: 0.125,
            iters: 3,
            run_ms: vec![0.25, 0.125, 0.5],
            peak_rss_mb: Some(12.5),
        };
        let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(v["compile_ms"], 1.5);
        assert_eq!(v["run_ms_median"], 0.25);
        assert_eq!(v["run_ms_min"], 0.125);
        assert_eq!(v["iters"], 3);
        assert_eq!(v["run_ms"], serde_json::json!([0.25, 0.125, 0.5]));
        assert_eq!(v["peak_rss_mb"], 12.5);
    }

    #[test]
    fn peak_rss_is_at_least_what_this_process_touched() {
        // 64 MiB written page by page must show in the peak.
        let block = vec![1u8; 64 << 20];
        let touched: u64 = block.iter().step_by(4096).map(|&b| u64::from(b)).sum();
        assert_eq!(touched, (64 << 20) / 4096);
        let mb = peak_rss_mb().expect("Linux reports ru_maxrss");
        assert!(mb >= 64.0, "peak {mb} MiB after touching 64 MiB");
    }
}
