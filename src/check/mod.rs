//! The checkers. `xlac check-collectives` is `collective_order.rs` (the collectives every
//! device would issue, compared statically). The rest of this module is `xlac check`:
//! it runs self-checking test files, the way the StableHLO project's
//! `stablehlo-translate --interpret -split-input-file` does (conformance README §2, §3, §8).
//!
//! A file is split into chunks wherever `// -----` occurs (a substring match, as MLIR's
//! `-split-input-file`); chunks without the case marker (`func.func` for StableHLO) are not
//! cases. Each case is loaded by a [`Loader`], run on the reference interpreter with the
//! [`CheckHandler`] plugged in, and gets exactly one [`Status`]:
//!
//! * `PASS`: it ran to the end and every check passed (for the output-comparing files,
//!   the returned values matched too);
//! * `FAIL`: a check or an output comparison failed (the first mismatch is the reason);
//! * `UNSUPPORTED`: xlac lacks something the case needs: the loader, the interpreter or
//!   the compiled backend failed with [`crate::ir::ErrorKind::Unsupported`];
//! * `ERROR`: anything else: an error in the file, a panic, a timeout.
//!
//! Each case runs on its own thread under `catch_unwind` with a time limit, so a crash or a
//! hang in one case never stops the run. The closing line of `xlac check` is
//! `N passed, M failed, K skipped`: UNSUPPORTED counts as skipped and ERROR as failed.
//! `interpreter.probe` keeps its values in memory (all `check.expect_serialized_eq` needs)
//! and, with [`Runner::probe_output_dir`], also writes them as `.npy` files.

pub mod collective_order;
pub mod elements;
pub mod expectations;
pub mod handler;
pub mod loader;
mod special;

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

pub use handler::CheckHandler;
pub use loader::{LoadError, Loader};

use crate::eval::collectives::grid::panic_message;
use crate::eval::{EvalOptions, Evaluator, to_row_major};
use crate::ir::Literal;

/// The outcome of one case.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Ran to the end; every check passed.
    Pass,
    /// A check or an output comparison failed.
    Fail(String),
    /// Needs something xlac does not have yet.
    Unsupported(String),
    /// An error in the file, a panic or a timeout.
    Error(String),
}

impl Status {
    /// `PASS`, `FAIL`, `UNSUPPORTED` or `ERROR`.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail(_) => "FAIL",
            Status::Unsupported(_) => "UNSUPPORTED",
            Status::Error(_) => "ERROR",
        }
    }

    /// The reason, empty for PASS.
    pub fn reason(&self) -> &str {
        match self {
            Status::Pass => "",
            Status::Fail(r) | Status::Unsupported(r) | Status::Error(r) => r,
        }
    }
}

/// One case's result.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    /// The file as named to the runner.
    pub file: String,
    /// The case number in the file, from 0, counting only chunks that are cases.
    pub case: usize,
    /// The outcome.
    pub status: Status,
}

/// `PASS file:case` or `FAIL file:case: reason`, on one line.
impl fmt::Display for CaseResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}:{}", self.status.label(), self.file, self.case)?;
        match self.status.reason() {
            "" => Ok(()),
            r => write!(f, ": {}", r.replace('\n', " ")),
        }
    }
}

/// Counts over many cases.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// PASS cases.
    pub passed: usize,
    /// FAIL and ERROR cases.
    pub failed: usize,
    /// UNSUPPORTED cases.
    pub skipped: usize,
}

impl Summary {
    /// Adds one case.
    pub fn add(&mut self, status: &Status) {
        match status {
            Status::Pass => self.passed += 1,
            Status::Fail(_) | Status::Error(_) => self.failed += 1,
            Status::Unsupported(_) => self.skipped += 1,
        }
    }

    /// True if every case passed.
    pub fn all_passed(&self) -> bool {
        self.failed == 0 && self.skipped == 0
    }
}

/// `N passed, M failed, K skipped`.
impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

/// One chunk of a file that is a case.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// The text between two separators.
    pub text: String,
    /// Lines of the file before the chunk (0 for the first), for error locations.
    pub line_offset: usize,
}

/// The file's chunks that contain `marker`, in order. Splits wherever `// -----` occurs,
/// even inside a longer comment (`// // -----`), as MLIR's `-split-input-file` does; the
/// line holding the separator belongs to neither neighbour.
pub fn split_cases(text: &str, marker: &str) -> Vec<Chunk> {
    const SEPARATOR: &str = "// -----";
    let mut chunks = Vec::new();
    let mut rest = text;
    let mut line_offset = 0;
    loop {
        let (piece, next) = match rest.find(SEPARATOR) {
            Some(at) => {
                // The chunk ends at the start of the separator's line; the next one starts
                // after the end of that line.
                let line_start = rest[..at].rfind('\n').map_or(0, |i| i + 1);
                let line_end = rest[at..].find('\n').map_or(rest.len(), |i| at + i + 1);
                (&rest[..line_start], Some(line_end))
            }
            None => (rest, None),
        };
        if piece.contains(marker) {
            chunks.push(Chunk {
                text: piece.to_string(),
                line_offset,
            });
        }
        match next {
            Some(end) => {
                line_offset += rest[..end].matches('\n').count();
                rest = &rest[end..];
            }
            None => return chunks,
        }
    }
}

/// How cases are found, loaded and run.
#[derive(Clone, Debug)]
pub struct Runner {
    /// Turns a chunk into a module.
    pub loader: Loader,
    /// A chunk is a case only if it contains this text.
    pub case_marker: &'static str,
    /// How long one case may run before it is an ERROR (its thread is then abandoned).
    pub timeout: Duration,
    /// Interpreter settings.
    pub options: EvalOptions,
    /// Run cases on the compiled backend instead of the interpreter (the `check.*` ops
    /// still run on the interpreter, inside the executable's reference thunks).
    pub compiled: bool,
    /// With `compiled`: `--guard-buffers` (every buffer against a protected page).
    pub guard_buffers: bool,
    /// If set, `interpreter.probe` also writes each value it records to
    /// `DIR/<probe_id>_<n>.npy` (`n` counts that probe's executions from 0) and appends
    /// `probe_id,type,path` to `DIR/index.csv`, like the reference's `--probe-output-dir`.
    pub probe_output_dir: Option<PathBuf>,
}

/// The StableHLO reference interpreter's float environment, which the corpus's expected
/// values come from: denormals are kept (`ceil(1e-40)` is 1 there, 0 on XLA:CPU).
pub fn reference_semantics() -> EvalOptions {
    EvalOptions {
        flush_denormals: false,
        ..EvalOptions::default()
    }
}

/// Stack of a case's thread: the interpreter recurses over nested computations.
const CASE_STACK: usize = 256 << 20;

impl Runner {
    /// StableHLO files (`func.func` cases), with [`loader::stablehlo`].
    pub fn stablehlo() -> Runner {
        Runner {
            loader: loader::stablehlo,
            case_marker: "func.func",
            timeout: Duration::from_secs(60),
            options: reference_semantics(),
            compiled: false,
            guard_buffers: false,
            probe_output_dir: None,
        }
    }

    /// HLO text files (`HloModule` cases), with [`loader::hlo_text`].
    pub fn hlo_text() -> Runner {
        Runner {
            loader: loader::hlo_text,
            case_marker: "HloModule",
            ..Runner::stablehlo()
        }
    }

    /// Reads `path` and runs all its cases; `name` is how results name the file. A file
    /// that cannot be read is one ERROR case.
    pub fn check_file(&self, path: &Path, name: &str) -> Vec<CaseResult> {
        match std::fs::read_to_string(path) {
            Ok(text) => self.check_text(&text, name),
            Err(e) => vec![CaseResult {
                file: name.to_string(),
                case: 0,
                status: Status::Error(format!("cannot read {}: {e}", path.display())),
            }],
        }
    }

    /// Runs every case of a file's text.
    pub fn check_text(&self, text: &str, name: &str) -> Vec<CaseResult> {
        let special = special::Special::of(name, text);
        let chunks = split_cases(text, self.case_marker);
        if chunks.is_empty() {
            // A file with no case would otherwise pass vacuously ("0 passed, 0 failed").
            return vec![CaseResult {
                file: name.to_string(),
                case: 0,
                status: Status::Error(format!(
                    "no test case: no chunk contains '{}'",
                    self.case_marker
                )),
            }];
        }
        chunks
            .into_iter()
            .enumerate()
            .map(|(case, chunk)| CaseResult {
                file: name.to_string(),
                case,
                status: self.run_case(chunk, name, special.clone()),
            })
            .collect()
    }

    /// Runs one case on its own thread, catching panics and enforcing the time limit.
    fn run_case(&self, chunk: Chunk, name: &str, special: special::Special) -> Status {
        let (tx, rx) = mpsc::channel();
        let runner = self.clone();
        let name = name.to_string();
        let spawned = std::thread::Builder::new()
            .name(format!("case {name}"))
            .stack_size(CASE_STACK)
            .spawn(move || {
                let status = catch_unwind(AssertUnwindSafe(|| {
                    runner.run_case_here(&chunk, &name, &special)
                }))
                .unwrap_or_else(|payload| {
                    Status::Error(format!("panic: {}", panic_message(payload.as_ref())))
                });
                let _ = tx.send(status);
            });
        if let Err(e) = spawned {
            return Status::Error(format!("cannot start a thread: {e}"));
        }
        rx.recv_timeout(self.timeout).unwrap_or_else(|e| match e {
            mpsc::RecvTimeoutError::Timeout => {
                Status::Error(format!("timed out after {}s", self.timeout.as_secs()))
            }
            mpsc::RecvTimeoutError::Disconnected => Status::Error("the case's thread died".into()),
        })
    }

    /// Compiles `module` and runs it on `args`, the `check.*` ops going to `handler`.
    fn run_compiled(
        &self,
        module: &crate::ir::Module,
        args: &[Literal],
        handler: Arc<CheckHandler>,
    ) -> crate::eval::EvalResult {
        let options = crate::compiler::CompileOptions {
            guard_buffers: self.guard_buffers,
            autotune: crate::autotune::AutotuneMode::Off,
            ..Default::default()
        };
        let mut compiled = crate::compiler::compile(module.clone(), &options)
            .map_err(|e| crate::eval::EvalError::of_kind(e.kind(), format!("compile: {e}")))?;
        compiled.executable.custom_call_handler = Some(handler);
        compiled
            .executable
            .execute(args)
            .map_err(|e| crate::eval::EvalError::of_kind(e.kind, e.to_string()))
    }

    /// Loads and runs one case on the current thread.
    fn run_case_here(&self, chunk: &Chunk, name: &str, special: &special::Special) -> Status {
        let module = match (self.loader)(&chunk.text, name, chunk.line_offset) {
            Ok(m) => m,
            Err(e) if e.is_unsupported() => return Status::Unsupported(e.message),
            Err(e) => return Status::Error(e.message),
        };
        let args = match special.arguments(self.loader, name) {
            Ok(a) => a,
            Err(status) => return status,
        };
        let params = module.entry_parameter_shapes().len();
        if params != args.len() {
            return Status::Error(format!(
                "the entry function takes {params} arguments; cases take none"
            ));
        }
        let handler = Arc::new(CheckHandler::with_probe_output_dir(
            self.probe_output_dir.clone(),
        ));
        let args: Vec<Literal> = args.iter().map(to_row_major).collect();
        let outcome = if self.compiled {
            self.run_compiled(&module, &args, handler.clone())
        } else {
            let mut ev = Evaluator::new(&module, self.options.clone());
            // `interpreter.run_parallel` grids run on the device runtime, the check ops here.
            ev.custom_call_handler = Some(
                crate::runtime::collectives::run_parallel::RunParallel::wrapping(Some(
                    handler.clone(),
                )),
            );
            let refs: Vec<&Literal> = args.iter().collect();
            ev.call(module.entry, &refs)
        };
        if let Some(failure) = handler.failure() {
            return Status::Fail(failure);
        }
        match outcome {
            Ok(result) => {
                // Sub-byte integers leave the evaluator in their stored (`Raw`) form.
                let result = crate::eval::subbyte::narrow(result, module.result_shape());
                special.compare_outputs(&chunk.text, &result, self.loader, name)
            }
            Err(e) if e.kind == crate::ir::ErrorKind::Unsupported => {
                Status::Unsupported(e.to_string())
            }
            Err(e) => Status::Error(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests;
