//! The `xlac` command line: argument parsing and printing only (design.md §4).
//!
//! ```text
//! xlac run MODEL [--input FILE]... [--output OUT.npz] [--dump-to DIR] [--backend compiled|interpreter]
//!                [--seed N] [--quiet] [--compare-to interpreter [--rtol R] [--atol A]]
//! xlac compile MODEL --dump-to DIR [--isa x86_64,aarch64,riscv64,s390x]
//! xlac bench MODEL [--input FILE]... [--iters N] [--json]
//! xlac check FILE.mlir...
//! xlac explain MODEL INSTR [--dump-to DIR]
//! xlac diff-dump XLA_DUMP_DIR [--against MODEL | XLAC_DUMP_DIR] [--dump-to DIR] [--measure]
//! xlac convert MODEL --to mlir|hlo
//! ```
//!
//! Every failure prints exactly one line `error: …` to stderr (the verifier may print one
//! per finding) and exits non-zero: 2 when the command line asks for something xlac cannot
//! do (a usage error, or a feature that is not built yet), 1 for everything else. Nothing
//! here computes: loading is [`model`], arrays are [`crate::io`], running is
//! [`crate::runtime`] (compiled) or [`crate::eval`] (interpreter).
//! The flags themselves are declared in `args.rs`.
//! XLA counterpart: `xla/tools/run_hlo_module_main.cc`.

mod args;
mod bench;
mod check;
mod check_collectives;
mod compile;
mod convert;
mod devices;
mod diff_dump;
mod distributed;
mod explain;
mod model;
mod outcome;
mod prepare;
mod refusals;
mod run;
pub mod serve;
mod triad;

pub use args::*;
pub use model::{ModelFormat, detect_format as detect_model_format};

use std::io::Write;
use std::sync::Mutex;

use clap::Parser;
use clap::error::ErrorKind;

/// Starts the kernels' thread pool (rayon's global pool) with `threads` threads. The pool
/// starts once per process; asking again for another count is an error.
pub fn start_thread_pool(threads: usize) -> Result<(), Failure> {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
    {
        Ok(()) => Ok(()),
        Err(_) if rayon::current_num_threads() == threads => Ok(()),
        Err(e) => Err(Failure::error(format!(
            "--threads {threads}: the thread pool already runs {} threads in this process ({e})",
            rayon::current_num_threads()
        ))),
    }
}

/// Why a command failed: the lines to print after `error: ` and the exit code.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// One message per line, without the `error: ` prefix.
    pub lines: Vec<String>,
    /// The process exit code (non-zero).
    pub code: i32,
}

impl Failure {
    /// A failure of the input or the run: exit code 1.
    pub fn error(message: impl Into<String>) -> Failure {
        Failure {
            lines: vec![message.into()],
            code: 1,
        }
    }

    /// The command line asks for something xlac cannot do (yet): exit code 2.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            lines: vec![message.into()],
            code: 2,
        }
    }
}

impl From<crate::io::IoError> for Failure {
    fn from(e: crate::io::IoError) -> Failure {
        Failure::error(e.message)
    }
}

/// Threads get this much stack: the interpreter and the parser recurse over nested
/// computations, and a real model may nest deeply. Reserved, not committed, memory.
const STACK_SIZE: usize = 256 << 20;

/// The message of the last panic, recorded by the hook [`install_panic_hook`] installs.
static PANIC_MESSAGE: Mutex<Option<String>> = Mutex::new(None);

/// Replaces Rust's panic message (several lines on stderr) by a record that
/// [`main_with_args`] turns into one `error: internal error: …` line. With `XLAC_BACKTRACE`
/// set, Rust's own message (and, with `RUST_BACKTRACE`, the backtrace) is printed as well,
/// for debugging. `RUST_BACKTRACE` alone does not do it: it is often set machine-wide, and
/// the one-line error contract must hold there too.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = crate::eval::collectives::grid::panic_message(info.payload());
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut slot) = PANIC_MESSAGE.lock() {
            *slot = Some(format!("{message}{location}"));
        }
        if std::env::var_os("XLAC_BACKTRACE").is_some() {
            default(info);
        }
    }));
}

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const INTERRUPTED_EXIT: i32 = 130;

/// Makes Ctrl-C stop a run cleanly: every while loop stops at its next iteration with an
/// `error: interrupted (Ctrl-C) in while loop ...` line; a run that is not in a loop is
/// given a second to notice, then the process prints `error: interrupted (Ctrl-C)` and
/// exits. A second Ctrl-C exits at once. Exit code [`INTERRUPTED_EXIT`].
pub fn install_interrupt_handler() {
    let result = ctrlc::set_handler(|| {
        if crate::eval::limits::interrupted() {
            eprintln!("error: interrupted (Ctrl-C)");
            std::process::exit(INTERRUPTED_EXIT);
        }
        crate::eval::limits::interrupt();
        std::thread::spawn(|| {
            // Not a wait for an event: the grace period a loop gets to stop by itself.
            std::thread::sleep(std::time::Duration::from_secs(1));
            eprintln!("error: interrupted (Ctrl-C)");
            std::process::exit(INTERRUPTED_EXIT);
        });
    });
    if let Err(e) = result {
        eprintln!("warning: Ctrl-C will not stop runs cleanly: {e}");
    }
}

/// Runs the command line and returns the process exit code.
pub fn main_with_args(args: Vec<String>) -> i32 {
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return report_clap_error(&e, &args),
    };
    // The last line of defence: a panic is always a bug in xlac, never the user's fault,
    // but it must still end as one `error:` line rather than a Rust backtrace. The work
    // runs on its own thread (with a large stack), so a panic ends that thread and shows
    // up here as a failed join.
    let threads = match &cli.command {
        Command::Run(a) => a.threads,
        Command::Bench(a) => a.threads,
        _ => None,
    };
    if let Some(n) = threads
        && let Err(failure) = start_thread_pool(n)
    {
        for line in &failure.lines {
            eprintln!("error: {line}");
        }
        return failure.code;
    }
    let worker = std::thread::Builder::new()
        .name("xlac".into())
        .stack_size(STACK_SIZE)
        .spawn(move || dispatch(&cli));
    let outcome = match worker {
        Ok(handle) => handle.join(),
        Err(e) => Ok(Err(Failure::error(format!(
            "internal error: cannot start a thread: {e}"
        )))),
    };
    match outcome {
        Ok(Ok(())) => 0,
        Ok(Err(failure)) => {
            for line in &failure.lines {
                eprintln!("error: {line}");
            }
            if crate::eval::limits::interrupted() {
                INTERRUPTED_EXIT
            } else {
                failure.code
            }
        }
        Err(payload) => {
            let recorded = PANIC_MESSAGE.lock().ok().and_then(|mut m| m.take());
            let message = recorded
                .unwrap_or_else(|| crate::eval::collectives::grid::panic_message(payload.as_ref()));
            eprintln!(
                "error: internal error: {} (this is a bug in xlac)",
                message.replace('\n', " ")
            );
            1
        }
    }
}

fn dispatch(cli: &Cli) -> Result<(), Failure> {
    match &cli.command {
        Command::Run(args) => args.limits.apply(),
        Command::Compile(args) => args.limits.apply(),
        Command::Bench(args) => args.limits.apply(),
        Command::Serve(args) => args.limits.apply(),
        _ => LimitFlags::default().apply(),
    }
    match &cli.command {
        Command::Run(args) => run::run(args),
        Command::Compile(args) => compile::compile(args),
        Command::Bench(args) => bench::bench(args),
        Command::Check(args) => check::check(args),
        Command::Explain(args) => explain::explain(args),
        Command::DiffDump(args) => diff_dump::diff_dump(args),
        Command::Convert(args) => convert::convert(args),
        Command::CheckCollectives(args) => check_collectives::check_collectives_command(args),
        Command::Serve(args) => serve::serve(args),
    }
}

/// Help and version go to stdout with exit code 0; every other clap error becomes one line.
fn report_clap_error(e: &clap::Error, args: &[String]) -> i32 {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = write!(std::io::stdout(), "{e}");
        return 0;
    }
    let help = match args.get(1).map(String::as_str) {
        Some(
            sub @ ("run" | "compile" | "bench" | "check" | "explain" | "convert"
            | "check-collectives" | "diff-dump" | "serve"),
        ) => {
            format!("xlac {sub} --help")
        }
        _ => "xlac --help".to_string(),
    };
    let line = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        "missing command: run, compile, bench, check, explain, convert, check-collectives or diff-dump".to_string()
    } else {
        // clap writes paragraphs: the error (possibly over several lines), a `tip:`, the
        // usage, a pointer to --help. Keep the error and the tip, on one line.
        let rendered = e.render().to_string();
        let paragraphs: Vec<String> = rendered
            .split("\n\n")
            .map(|p| {
                p.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .filter(|p| !p.is_empty())
            .collect();
        let mut line = paragraphs
            .first()
            .cloned()
            .unwrap_or_else(|| "invalid command line".into());
        if let Some(tip) = paragraphs.iter().find(|p| p.starts_with("tip:")) {
            line = format!("{line}; {tip}");
        }
        line.strip_prefix("error: ")
            .map(str::to_string)
            .unwrap_or(line)
    };
    eprintln!("error: {line} (see '{help}')");
    2
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(args)
    }

    #[test]
    fn run_flags_parse() {
        let cli = parse(&[
            "xlac",
            "run",
            "m.hlo",
            "--input",
            "a.npy",
            "--input",
            "b.npy",
            "--output",
            "o.npz",
            "--seed",
            "7",
            "--quiet",
            "--dump-to",
            "d",
        ])
        .unwrap();
        let Command::Run(r) = cli.command else {
            panic!("not run")
        };
        assert_eq!(
            r.inputs,
            vec![PathBuf::from("a.npy"), PathBuf::from("b.npy")]
        );
        assert_eq!(
            (r.seed, r.quiet, r.backend),
            (Some(7), true, Backend::Compiled)
        );
        assert_eq!(r.dump_to, Some(PathBuf::from("d")));
    }

    #[test]
    fn tolerances_need_compare_to() {
        assert!(parse(&["xlac", "run", "m.hlo", "--rtol", "0.1"]).is_err());
        assert!(
            parse(&[
                "xlac",
                "run",
                "m.hlo",
                "--compare-to",
                "interpreter",
                "--rtol",
                "0.1"
            ])
            .is_ok()
        );
        assert!(parse(&["xlac", "run", "m.hlo", "--backend", "gpu"]).is_err());
    }

    #[test]
    fn stubs_exit_2() {
        // `check` runs: a missing file is an ERROR case, exit 1.
        assert_eq!(
            main_with_args(vec![
                "xlac".into(),
                "check".into(),
                "/nonexistent/a.mlir".into()
            ]),
            1
        );
        assert_eq!(main_with_args(vec!["xlac".into(), "frobnicate".into()]), 2);
        assert_eq!(main_with_args(vec!["xlac".into()]), 2);
    }
}
