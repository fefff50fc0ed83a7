//! The fuzz engine: a bounded, seeded, coverage-free mutation loop over every input
//! boundary, on the stable toolchain (no nightly, no `cargo fuzz`).
//!
//! A [`Target`] is a `fn(&[u8])` that must return, whatever the bytes: a panic, an abort,
//! a signal (stack overflow, segfault) or a case slower than the time limit is a finding.
//! The loop takes the seeds of its target (files under `testdata/`, the conformance corpus,
//! `tests/fixtures/` and `tests/bad_input/` with the target's extensions), stacks 1 to 4
//! mutations on a random seed ([`mutate`]) and runs the target on it, for a number of
//! seconds or runs.
//!
//! ```text
//! cargo run --release --example fuzz -- TARGET --seconds 60 [--seed N] [--runs N]
//!     [--corpus DIR]... [--out DIR] [--case-timeout-ms MS] [--max-array-bytes B]
//! cargo run --release --example fuzz -- --list
//! ```
//!
//! Runs happen in a child process (the same executable with `--worker`), so that an abort
//! or a signal ends only the child: before each case the child writes the input to
//! `OUT/TARGET/current`, and when the child dies the supervisor keeps that input as
//! `OUT/TARGET/crash-HASH` (with `crash-HASH.txt` saying how it died) and starts a new child
//! for the rest of the time. Panics are caught in the child (`catch_unwind`) and saved the
//! same way, once per panic location. A watchdog thread ends the child when one case runs
//! longer than the case time limit (`hang-HASH`). Each array is capped at
//! `--max-array-bytes` (16 MiB by default, so fuzzed shapes cannot eat the machine).
//!
//! Adding a target is one line in [`TARGETS`] (name, function, seed extensions, text or
//! binary) plus its function; another crate (the PJRT plugin) runs its own targets through
//! [`cli_main`] with its own list.

pub mod mutate;
pub mod targets;

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar};
use std::time::{Duration, Instant};

use crate::eval::SplitMix64;
use mutate::{Dictionary, mutate};

/// One fuzz target.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// Its name on the command line.
    pub name: &'static str,
    /// Runs one input; must return whatever the bytes.
    pub run: fn(&[u8]),
    /// File name endings of its seeds (`.hlo`, `.npz`).
    pub seeds: &'static [&'static str],
    /// True if the inputs are text (token-level mutations apply).
    pub text: bool,
}

impl Target {
    /// A target over text inputs (byte and token mutations).
    pub const fn text(
        name: &'static str,
        run: fn(&[u8]),
        seeds: &'static [&'static str],
    ) -> Target {
        Target::new(name, run, seeds, true)
    }

    const fn new(
        name: &'static str,
        run: fn(&[u8]),
        seeds: &'static [&'static str],
        text: bool,
    ) -> Target {
        Target {
            name,
            run,
            seeds,
            text,
        }
    }

    /// A target over binary inputs (byte mutations only).
    pub const fn binary(
        name: &'static str,
        run: fn(&[u8]),
        seeds: &'static [&'static str],
    ) -> Target {
        Target::new(name, run, seeds, false)
    }
}

/// The targets of the library. One line per target.
pub const TARGETS: &[Target] = &[
    Target::text("hlo_text", targets::hlo_text, &[".hlo"]),
    Target::text("stablehlo_text", targets::stablehlo_text, &[".mlir"]),
    Target::binary("npy_npz", targets::npy_npz, &[".npy", ".npz"]),
    Target::binary("bytecode", targets::bytecode, &[".mlirbc"]),
    Target::text("compile", targets::compile_module, &[".hlo", ".mlir"]),
    Target::binary("serve_request", targets::serve_request, &[".req"]),
];

/// Settings of one fuzz run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Stop after this long.
    pub duration: Duration,
    /// Stop after this many runs (if sooner).
    pub runs: Option<u64>,
    /// Seed of the mutation generator.
    pub seed: u64,
    /// One case longer than this is a hang.
    pub case_timeout: Duration,
    /// Where the seeds are (searched recursively).
    pub corpus_dirs: Vec<PathBuf>,
    /// Findings go to `out/TARGET/`.
    pub out: PathBuf,
    /// The per-array cap during the run ([`crate::ir::size::set_max_array_bytes`]).
    pub max_array_bytes: u64,
}

impl Options {
    /// Defaults relative to the repository root `root`: 60 s, seed 0, 10 s per case, seeds
    /// from `testdata/` (the conformance corpus included), `tests/fixtures/` and `tests/bad_input/`, findings in `target/fuzz/`, 16 MiB arrays.
    pub fn new(root: &Path) -> Options {
        let corpus_dirs = vec![
            root.join("testdata"),
            root.join("tests/fixtures"),
            root.join("tests/bad_input"),
        ];
        Options {
            duration: Duration::from_secs(60),
            runs: None,
            seed: 0,
            case_timeout: Duration::from_secs(10),
            corpus_dirs,
            out: root.join("target/fuzz"),
            max_array_bytes: 16 << 20,
        }
    }
}

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Cases run.
    pub runs: u64,
    /// Wall time.
    pub seconds: f64,
    /// Seeds.
    pub corpus: usize,
    /// Bytes of seeds.
    pub corpus_bytes: usize,
    /// Findings: one line each (`panic at ...: saved as FILE`).
    pub findings: Vec<String>,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} runs in {:.1} s ({:.0} runs/s), corpus {} seeds ({} KiB), {} finding(s)",
            self.runs,
            self.seconds,
            self.runs as f64 / self.seconds.max(1e-9),
            self.corpus,
            self.corpus_bytes / 1024,
            self.findings.len()
        )
    }
}

/// Seeds larger than this are skipped: mutating them is slow and rarely better.
const MAX_SEED: usize = 256 << 10;

/// The seeds of `target` under `dirs`, sorted by path (so a seed gives the same run).
pub fn load_corpus(target: &Target, dirs: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    for dir in dirs {
        collect_files(dir, &mut files);
    }
    files.sort();
    files.dedup();
    files
        .iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            target.seeds.iter().any(|ext| name.ends_with(ext))
        })
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| b.len() <= MAX_SEED)
        .collect()
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// A short stable hash of an input, for file names (FNV-1a).
pub fn input_hash(data: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The message and location of the last panic on this process, set by the worker's hook.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

fn install_quiet_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = crate::eval::collectives::grid::panic_message(info.payload());
        let location = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut slot) = LAST_PANIC.lock() {
            *slot = Some(format!("{location}: {message}"));
        }
    }));
}

/// Runs `target` in this process for at most `runs` cases, catching panics (not aborts
/// or signals: [`cli_main`] runs a child process for those). Returns the inputs that
/// panicked with their messages. For tests of the engine and of targets.
pub fn run_in_process(
    target: &Target,
    corpus: &[Vec<u8>],
    runs: u64,
    seed: u64,
) -> Vec<(Vec<u8>, String)> {
    let dict = Dictionary::from_corpus(corpus);
    let mut rng = SplitMix64::new(seed);
    let mut found = Vec::new();
    let empty = Vec::new();
    for _ in 0..runs {
        let input = next_case(corpus, &empty, &dict, target.text, &mut rng);
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| (target.run)(&input))) {
            let message = crate::eval::collectives::grid::panic_message(payload.as_ref());
            found.push((input, message));
        }
    }
    found
}

/// One case: a mutated seed (or, rarely, the seed itself).
fn next_case(
    corpus: &[Vec<u8>],
    empty: &Vec<u8>,
    dict: &Dictionary,
    text: bool,
    rng: &mut SplitMix64,
) -> Vec<u8> {
    let pick = |rng: &mut SplitMix64| -> &Vec<u8> {
        if corpus.is_empty() {
            empty
        } else {
            &corpus[(rng.next_u64() % corpus.len() as u64) as usize]
        }
    };
    let base = pick(rng);
    let other = pick(rng);
    if rng.next_u64().is_multiple_of(64) {
        return base.clone();
    }
    mutate(base, other, dict, text, rng)
}

/// The command line of the fuzz example (see the module doc); returns the exit code:
/// 0 no finding, 1 findings, 2 usage error.
pub fn cli_main(targets: &[Target]) -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    match parse_args(&args, targets, &root) {
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
        Ok(Parsed::List) => {
            for t in targets {
                println!("{}\t(seeds: {})", t.name, t.seeds.join(" "));
            }
            0
        }
        Ok(Parsed::Worker(target, options, current)) => worker(&target, &options, &current),
        Ok(Parsed::Supervise(target, options)) => {
            let report = supervise(&target, &options, &args);
            println!("fuzz {}: {report}", target.name);
            for f in &report.findings {
                println!("  {f}");
            }
            if report.findings.is_empty() { 0 } else { 1 }
        }
    }
}

enum Parsed {
    List,
    Worker(Target, Options, PathBuf),
    Supervise(Target, Options),
}

fn parse_args(args: &[String], targets: &[Target], root: &Path) -> Result<Parsed, String> {
    let mut options = Options::new(root);
    let mut target = None;
    let mut current = None;
    let mut worker = false;
    let mut corpus = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        let number = |name: &str, v: String| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| format!("{name} takes a number, not '{v}'"))
        };
        match a.as_str() {
            "--list" => return Ok(Parsed::List),
            "--worker" => worker = true,
            "--current" => current = Some(PathBuf::from(value(a)?)),
            "--seconds" => options.duration = Duration::from_secs_f64(number(a, value(a)?)?),
            "--runs" => options.runs = Some(number(a, value(a)?)? as u64),
            "--seed" => options.seed = number(a, value(a)?)? as u64,
            "--case-timeout-ms" => {
                options.case_timeout = Duration::from_millis(number(a, value(a)?)? as u64)
            }
            "--max-array-bytes" => options.max_array_bytes = number(a, value(a)?)? as u64,
            "--corpus" => corpus.push(PathBuf::from(value(a)?)),
            "--out" => options.out = PathBuf::from(value(a)?),
            name if !name.starts_with('-') && target.is_none() => {
                target = Some(*targets.iter().find(|t| t.name == name).ok_or_else(|| {
                    let names: Vec<&str> = targets.iter().map(|t| t.name).collect();
                    format!("unknown target '{name}'; targets: {}", names.join(", "))
                })?);
            }
            other => return Err(format!("unexpected argument '{other}'")),
        }
    }
    if !corpus.is_empty() {
        options.corpus_dirs = corpus;
    }
    let target = target.ok_or("give a target (see --list)")?;
    if worker {
        let current = current.ok_or("--worker needs --current")?;
        return Ok(Parsed::Worker(target, options, current));
    }
    Ok(Parsed::Supervise(target, options))
}

/// The parent: runs children until the time or the runs are used up, keeping the input a
/// dying child was running.
fn supervise(target: &Target, options: &Options, args: &[String]) -> Report {
    let start = Instant::now();
    let corpus = load_corpus(target, &options.corpus_dirs);
    let mut report = Report {
        corpus: corpus.len(),
        corpus_bytes: corpus.iter().map(Vec::len).sum(),
        ..Report::default()
    };
    let dir = options.out.join(target.name);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        report
            .findings
            .push(format!("cannot create {}: {e}", dir.display()));
        return report;
    }
    let current = dir.join("current");
    let Ok(exe) = std::env::current_exe() else {
        report
            .findings
            .push("cannot find the fuzz executable".into());
        return report;
    };
    let mut restarts = 0u64;
    loop {
        let elapsed = start.elapsed();
        let left = options.duration.saturating_sub(elapsed);
        let runs_left = options.runs.map(|r| r.saturating_sub(report.runs));
        if left.is_zero() || runs_left == Some(0) || restarts > 100 {
            break;
        }
        let mut child_args: Vec<String> = args
            .iter()
            .scan(false, |skip, a| {
                // Drop the options the supervisor sets itself.
                let keep = !*skip && !matches!(a.as_str(), "--seconds" | "--runs" | "--seed");
                *skip = matches!(a.as_str(), "--seconds" | "--runs" | "--seed");
                Some(keep.then(|| a.clone()))
            })
            .flatten()
            .collect();
        child_args.extend([
            "--worker".into(),
            "--current".into(),
            current.display().to_string(),
            "--seconds".into(),
            format!("{}", left.as_secs_f64()),
            "--seed".into(),
            format!(
                "{}",
                options
                    .seed
                    .wrapping_add(restarts.wrapping_mul(0x9E37_79B9))
            ),
        ]);
        if let Some(r) = runs_left {
            child_args.extend(["--runs".into(), r.to_string()]);
        }
        let child = std::process::Command::new(&exe)
            .args(&child_args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                report.findings.push(format!("cannot start a worker: {e}"));
                break;
            }
        };
        // The worker prints `runs N` as it goes; the last one counts even if it dies.
        let mut child_runs = 0u64;
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(n) = line.strip_prefix("runs ").and_then(|n| n.parse().ok()) {
                    child_runs = n;
                } else if let Some(f) = line.strip_prefix("finding ") {
                    report.findings.push(f.to_string());
                }
            }
        }
        report.runs += child_runs;
        let status = child.wait();
        let how = match status {
            Ok(s) if s.success() => break,
            Ok(s) if s.code() == Some(HANG_EXIT) => {
                format!(
                    "hang: one case ran over {} ms",
                    options.case_timeout.as_millis()
                )
            }
            Ok(s) => describe_death(&s),
            Err(e) => format!("lost the worker: {e}"),
        };
        let kind = if how.starts_with("hang") {
            "hang"
        } else {
            "crash"
        };
        match read_current(&current) {
            Some(input) => {
                let name = format!("{kind}-{}", input_hash(&input));
                let path = dir.join(&name);
                let _ = std::fs::write(&path, &input);
                let _ = std::fs::write(dir.join(format!("{name}.txt")), format!("{how}\n"));
                report
                    .findings
                    .push(format!("{how}: saved as {}", path.display()));
            }
            None => report.findings.push(format!("{how} (input not recorded)")),
        }
        restarts += 1;
    }
    report.seconds = start.elapsed().as_secs_f64();
    report
}

/// The exit code of a worker whose case ran over the time limit.
const HANG_EXIT: i32 = 3;

fn describe_death(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                6 => "SIGABRT (abort, or a stack overflow)",
                11 => "SIGSEGV",
                7 => "SIGBUS",
                9 => "SIGKILL (out of memory?)",
                4 => "SIGILL",
                8 => "SIGFPE",
                _ => "a signal",
            };
            return format!("crash: the worker died of signal {signal}, {name}");
        }
    }
    format!("crash: the worker exited with {status}")
}

/// The input the worker was running: an 8-byte little-endian length, then the bytes.
fn read_current(path: &Path) -> Option<Vec<u8>> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    let len = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?) as usize;
    bytes.get(8..8 + len).map(<[u8]>::to_vec)
}

/// The child: runs cases until the time or the runs are used up; prints `runs N` every
/// second and `finding ...` for each new panic location. Exit 0, or [`HANG_EXIT`].
fn worker(target: &Target, options: &Options, current: &Path) -> i32 {
    crate::ir::size::set_max_array_bytes(options.max_array_bytes);
    limit_address_space();
    install_quiet_panic_hook();
    let corpus = load_corpus(target, &options.corpus_dirs);
    let dir = options.out.join(target.name);
    let file = match std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .open(current)
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: cannot open {}: {e}", current.display());
            return 2;
        }
    };
    // The watchdog: a case that has run longer than the limit ends the process.
    let started = Arc::new(AtomicU64::new(u64::MAX));
    let clock = Instant::now();
    let done = Arc::new((Mutex::new(false), Condvar::new()));
    {
        let started = started.clone();
        let done = done.clone();
        let limit = options.case_timeout;
        std::thread::spawn(move || {
            let (lock, cvar) = &*done;
            let mut finished = lock.lock().unwrap_or_else(|e| e.into_inner());
            while !*finished {
                let (guard, _) = cvar
                    .wait_timeout(finished, Duration::from_millis(100))
                    .unwrap_or_else(|e| e.into_inner());
                finished = guard;
                let at = started.load(Ordering::Relaxed);
                if at != u64::MAX
                    && clock.elapsed().as_millis() as u64 > at + limit.as_millis() as u64
                {
                    std::process::exit(HANG_EXIT);
                }
            }
        });
    }
    let options = options.clone();
    let target = *target;
    let started_in = started.clone();
    // Deep inputs recurse in the parsers and the interpreter: the CLI's stack size.
    let run = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || worker_loop(&target, &options, &corpus, &file, &dir, &started_in, clock));
    let code = match run.map(|h| h.join()) {
        Ok(Ok(())) => 0,
        _ => 2,
    };
    let (lock, cvar) = &*done;
    *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
    cvar.notify_all();
    code
}

#[allow(clippy::too_many_arguments)]
fn worker_loop(
    target: &Target,
    options: &Options,
    corpus: &[Vec<u8>],
    file: &std::fs::File,
    dir: &Path,
    started: &AtomicU64,
    clock: Instant,
) {
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::fs::FileExt;
    let dict = Dictionary::from_corpus(corpus);
    let mut rng = SplitMix64::new(options.seed);
    let empty = Vec::new();
    let mut seen = HashSet::new();
    let mut runs = 0u64;
    let mut last_print = Instant::now();
    let start = Instant::now();
    let stdout = std::io::stdout();
    while start.elapsed() < options.duration && options.runs.is_none_or(|r| runs < r) {
        let input = next_case(corpus, &empty, &dict, target.text, &mut rng);
        #[cfg(unix)]
        {
            let _ = file.write_all_at(&(input.len() as u64).to_le_bytes(), 0);
            let _ = file.write_all_at(&input, 8);
        }
        started.store(clock.elapsed().as_millis() as u64, Ordering::Relaxed);
        let outcome = catch_unwind(AssertUnwindSafe(|| (target.run)(&input)));
        started.store(u64::MAX, Ordering::Relaxed);
        runs += 1;
        if outcome.is_err() {
            let message = LAST_PANIC
                .lock()
                .ok()
                .and_then(|mut m| m.take())
                .unwrap_or_else(|| "panic".into());
            // One file per panic location (the text before the first `: `).
            let location = message.split(": ").next().unwrap_or("").to_string();
            if seen.insert(location) {
                let name = format!("crash-{}", input_hash(&input));
                let path = dir.join(&name);
                let _ = std::fs::write(&path, &input);
                let _ = std::fs::write(
                    dir.join(format!("{name}.txt")),
                    format!("panic at {message}\n"),
                );
                let mut out = stdout.lock();
                let _ = writeln!(
                    out,
                    "finding panic at {}: saved as {}",
                    message.replace('\n', " "),
                    path.display()
                );
                let _ = out.flush();
            }
        }
        if last_print.elapsed() >= Duration::from_secs(1) {
            let mut out = stdout.lock();
            let _ = writeln!(out, "runs {runs}");
            let _ = out.flush();
            last_print = Instant::now();
        }
    }
    let mut out = stdout.lock();
    let _ = writeln!(out, "runs {runs}");
    let _ = out.flush();
}

/// Caps the worker's address space at 16 GiB: a case that allocates past the per-array
/// cap then fails in the worker (a finding) instead of pushing a shared machine into swap.
fn limit_address_space() {
    #[cfg(target_os = "linux")]
    {
        let limit = libc::rlimit {
            rlim_cur: 16 << 30,
            rlim_max: libc::RLIM_INFINITY,
        };
        // SAFETY: setrlimit reads the struct; failure leaves the old limit, which is fine.
        unsafe {
            libc::setrlimit(libc::RLIMIT_AS, &limit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn the_engine_catches_panics() {
        fn fragile(data: &[u8]) {
            if data.first() == Some(&b'!') {
                panic!("found it");
            }
        }
        let target = Target::binary("fragile", fragile, &[]);
        let found = run_in_process(&target, &[b"!x".to_vec(), b"ab".to_vec()], 300, 1);
        assert!(!found.is_empty(), "some case starts with '!'");
        assert!(
            found
                .iter()
                .all(|(input, m)| input[0] == b'!' && m == "found it")
        );
    }

    /// A short in-process run of every library target over its real seeds: the same
    /// cases each time (seeded), and none may panic. The long runs are in test-all.sh.
    #[test]
    fn targets_survive_a_short_run() {
        let options = Options::new(&root());
        for target in TARGETS {
            let corpus = load_corpus(target, &options.corpus_dirs);
            assert!(!corpus.is_empty(), "{} has seeds", target.name);
            let runs = if target.name == "compile" { 20 } else { 300 };
            let found = run_in_process(target, &corpus, runs, 7);
            let messages: Vec<&str> = found.iter().map(|(_, m)| m.as_str()).collect();
            assert!(found.is_empty(), "{}: {messages:?}", target.name);
        }
    }

    #[test]
    fn arguments_parse() {
        let args: Vec<String> = ["hlo_text", "--seconds", "2.5", "--seed", "9"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let Ok(Parsed::Supervise(t, o)) = parse_args(&args, TARGETS, &root()) else {
            panic!("parses");
        };
        assert_eq!(
            (t.name, o.duration, o.seed),
            ("hlo_text", Duration::from_millis(2500), 9)
        );
        let bad = parse_args(&["nosuch".to_string()], TARGETS, &root());
        assert!(
            matches!(bad, Err(m) if m.starts_with("unknown target 'nosuch'; targets: hlo_text"))
        );
    }
}
