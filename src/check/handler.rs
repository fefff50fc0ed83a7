//! The test-only ops, plugged into the interpreter as a [`CustomCallHandler`]: the `check.*`
//! comparisons, `interpreter.probe` and `interpreter.print`.
//!
//! The StableHLO converter turns each into a side-effecting custom call whose target is the
//! op's name; a `_const` op's literal is in `CustomCall::literal`, and the other attributes
//! are JSON in `backend_config`: `{"tolerance": 0.1}`,
//! `{"max_ulp_difference": 3, "min_ulp_difference": 0}`, `{"probe_id": "x", "iter": 0}`.
//! A failing check records its message and stops the evaluation (a case ends at its first
//! failing check, README §3.2); the runner tells that apart from an interpreter error by
//! asking [`CheckHandler::failure`].

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

use super::expectations::{
    CUSTOM_CALL_MAX_ULP, DEFAULT_TOLERANCE, check_eq, expect_almost_eq, expect_close, expect_eq,
};
use crate::eval::{CustomCallHandler, EvalError, EvalResult, Evaluator, to_row_major};
use crate::ir::{ArrayData, ArrayLiteral, BackendConfig, CustomCall, Instruction, Literal, Shape};

/// What the handler has seen during one case.
#[derive(Default)]
struct State {
    /// The first failing check's message.
    failure: Option<String>,
    /// Values recorded by `interpreter.probe`, by probe id, in execution order.
    probes: HashMap<String, Vec<Literal>>,
    /// What `interpreter.print` printed, one entry per call (never interleaved).
    printed: Vec<String>,
    /// Number of check ops that ran.
    checks: usize,
}

/// The check ops of one case. Shared by every process of a `run_parallel` grid.
#[derive(Default)]
pub struct CheckHandler {
    state: Mutex<State>,
    /// Where `interpreter.probe` writes `.npy` files, if anywhere.
    probe_output_dir: Option<PathBuf>,
}

impl CheckHandler {
    /// A handler with nothing recorded.
    pub fn new() -> CheckHandler {
        CheckHandler::default()
    }

    /// A handler whose probes also write `DIR/<probe_id>_<n>.npy` (n from 0, per probe) and
    /// a line `probe_id,type,path` in `DIR/index.csv` per execution (the type in HLO
    /// syntax, `s64[2]`; the reference writes the MLIR type).
    pub fn with_probe_output_dir(dir: Option<PathBuf>) -> CheckHandler {
        CheckHandler {
            probe_output_dir: dir,
            ..CheckHandler::default()
        }
    }

    /// Writes the `n`-th value of probe `id` to the probe output directory (if any).
    fn write_probe(&self, id: &str, n: usize, value: &Literal) -> EvalResult<()> {
        let Some(dir) = &self.probe_output_dir else {
            return Ok(());
        };
        let fail = |what: &str, e: &dyn std::fmt::Display| {
            EvalError::new(format!("interpreter.probe \"{id}\": cannot {what}: {e}"))
        };
        let array = match to_row_major(value) {
            Literal::Array(a) => a,
            _ => {
                return Err(EvalError::new(
                    "interpreter.probe: only arrays can be written",
                ));
            }
        };
        let bytes = crate::io::npy::write_npy_bytes(&array).map_err(|e| fail("encode", &e))?;
        std::fs::create_dir_all(dir).map_err(|e| fail("create the directory", &e))?;
        // Probe ids may hold `/` (probe.mlir's `"probe/0"`): keep file names flat.
        let stem: String = id
            .chars()
            .map(|c| match c {
                'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' | '.' => c,
                _ => '_',
            })
            .collect();
        let path = dir.join(format!("{stem}_{n}.npy"));
        std::fs::write(&path, bytes).map_err(|e| fail("write the file", &e))?;
        let mut index = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("index.csv"))
            .map_err(|e| fail("open index.csv", &e))?;
        let shape = crate::ir::shape_inference::human_string(&value.shape());
        writeln!(index, "{id},{shape},{}", path.display()).map_err(|e| fail("write index.csv", &e))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The first failing check's message, if a check failed.
    pub fn failure(&self) -> Option<String> {
        self.lock().failure.clone()
    }

    /// How many check ops ran.
    pub fn checks_run(&self) -> usize {
        self.lock().checks
    }

    /// What `interpreter.print` printed, in order.
    pub fn printed(&self) -> Vec<String> {
        self.lock().printed.clone()
    }

    /// Runs one handled op; `Err(message)` from a comparison is a failed check.
    fn run(&self, instr: &Instruction, operands: &[&Literal], cc: &CustomCall) -> EvalResult {
        let target = cc.target.as_str();
        let config = Config::of(instr)?;
        let operand = |i: usize| -> EvalResult<&Literal> {
            operands
                .get(i)
                .copied()
                .ok_or_else(|| EvalError::new(format!("{target} needs {} operands", i + 1)))
        };
        let constant = || -> EvalResult<Literal> {
            cc.literal
                .as_ref()
                .map(to_row_major)
                .ok_or_else(|| EvalError::new(format!("{target} needs a literal")))
        };
        let outcome = match target {
            "interpreter.probe" => {
                let id = config.string("probe_id")?;
                let value = operand(0)?.clone();
                // The lock is held while writing so that index.csv lines and file numbers
                // stay in step across the processes of a grid.
                let mut state = self.lock();
                let values = state.probes.entry(id.clone()).or_default();
                values.push(value.clone());
                let n = values.len() - 1;
                self.write_probe(&id, n, &value)?;
                return Ok(value);
            }
            "interpreter.print" => {
                let text = operands
                    .iter()
                    .map(|l| l.to_string())
                    .collect::<Vec<_>>()
                    .join("\n");
                self.lock().printed.push(text);
                return Ok(match operands {
                    [only] if only.shape() == instr.shape => (*only).clone(),
                    _ => passing_result(&instr.shape),
                });
            }
            "check.expect_eq" => expect_eq(operand(0)?, operand(1)?),
            "check.expect_eq_const" => expect_eq(operand(0)?, &constant()?),
            "check.expect_almost_eq" => {
                let t = config.float("tolerance")?.unwrap_or(DEFAULT_TOLERANCE);
                expect_almost_eq(operand(0)?, operand(1)?, t)
            }
            "check.expect_almost_eq_const" => {
                let t = config.float("tolerance")?.unwrap_or(DEFAULT_TOLERANCE);
                expect_almost_eq(operand(0)?, &constant()?, t)
            }
            "check.expect_close" => {
                let max = config
                    .unsigned("max_ulp_difference")?
                    .unwrap_or(CUSTOM_CALL_MAX_ULP);
                let min = config.unsigned("min_ulp_difference")?.unwrap_or(0);
                expect_close(operand(0)?, operand(1)?, max, min)
            }
            "check.expect_serialized_eq" => {
                let id = config.string("probe_id")?;
                let iter = config.unsigned("iter")?.unwrap_or(0) as usize;
                let recorded = self
                    .lock()
                    .probes
                    .get(&id)
                    .and_then(|v| v.get(iter).cloned());
                match recorded {
                    Some(expected) => expect_eq(operand(0)?, &expected),
                    None => Err(format!("probe \"{id}\" has no value for iteration {iter}")),
                }
            }
            // `check.eq(expected, actual)`: the comparison is symmetric.
            "check.eq" => check_eq(operand(1)?, operand(0)?),
            other => {
                return Err(
                    EvalError::new(format!("check op `{other}` is not supported")).unsupported(),
                );
            }
        };
        let mut state = self.lock();
        state.checks += 1;
        match outcome {
            Ok(()) => Ok(passing_result(&instr.shape)),
            Err(message) => {
                let message = format!("{target}: {message}");
                state.failure.get_or_insert(message.clone());
                Err(EvalError::new(message))
            }
        }
    }
}

impl CustomCallHandler for CheckHandler {
    fn custom_call(
        &self,
        _ev: &mut Evaluator<'_>,
        instr: &Instruction,
        operands: &[&Literal],
        cc: &CustomCall,
    ) -> Option<EvalResult> {
        let t = cc.target.as_str();
        (t.starts_with("check.") || t == "interpreter.probe" || t == "interpreter.print")
            .then(|| self.run(instr, operands, cc))
    }
}

/// The value a check op returns: `()` for the check dialect, `true` for `check.eq`'s
/// `tensor<i1>`; zeros for any other declared shape.
fn passing_result(shape: &Shape) -> Literal {
    match shape {
        Shape::Array(a) => {
            let mut out = ArrayLiteral::zeros(crate::ir::ArrayShape::new(a.element_type, &a.dims));
            if let ArrayData::Pred(v) = &mut out.data {
                v.iter_mut().for_each(|b| *b = true);
            }
            out.into()
        }
        Shape::Tuple(t) => Literal::Tuple(t.iter().map(passing_result).collect()),
        _ => Literal::Token,
    }
}

/// The JSON attributes in `backend_config` (`{}` when absent or empty).
struct Config {
    json: serde_json::Value,
}

impl Config {
    fn of(instr: &Instruction) -> EvalResult<Config> {
        let text = match &instr.backend_config {
            Some(BackendConfig::Json(t) | BackendConfig::Quoted(t)) if !t.trim().is_empty() => t,
            _ => "{}",
        };
        let json = serde_json::from_str(text).map_err(|e| {
            EvalError::new(format!("cannot read backend_config `{text}` as JSON: {e}"))
        })?;
        Ok(Config { json })
    }

    fn bad(&self, name: &str, what: &str) -> EvalError {
        EvalError::new(format!("backend_config: `{name}` must be {what}"))
    }

    fn float(&self, name: &str) -> EvalResult<Option<f64>> {
        self.json
            .get(name)
            .map(|v| v.as_f64().ok_or_else(|| self.bad(name, "a number")))
            .transpose()
    }

    fn unsigned(&self, name: &str) -> EvalResult<Option<u64>> {
        self.json
            .get(name)
            .map(|v| {
                v.as_u64()
                    .ok_or_else(|| self.bad(name, "a non-negative integer"))
            })
            .transpose()
    }

    fn string(&self, name: &str) -> EvalResult<String> {
        self.json
            .get(name)
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .ok_or_else(|| self.bad(name, "a string"))
    }
}
