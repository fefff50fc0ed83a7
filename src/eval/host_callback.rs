//! Host callbacks: custom calls that hand their operands to the program that embeds xlac
//! and take its results back, as `jax.debug.print`, `jax.pure_callback` and
//! `jax.experimental.io_callback` lower on CPU:
//!
//! ```text
//! (f32[3], token[]) custom-call(token, x), custom_call_target="xla_ffi_python_cpu_callback",
//!     custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI,
//!     backend_config={index = 0 : ui64}
//! ```
//!
//! `index` names one of the callables the embedder registered for this compile (jax's
//! `host_callbacks` list); xlac never sees the callables themselves, only a [`HostCallbacks`]
//! that runs one by index. The compiled backend runs these calls through the evaluator, so
//! both backends share this one path ([`HostCallbackHandler`]). Without a host the call is
//! an error that says so.
//!
//! XLA: `jaxlib/py_client_cpu.cc` (`XlaFfiPythonCpuCallback`).

use std::sync::Arc;

use super::custom_call::FfiAttributes;
use super::{CustomCallHandler, EvalError, EvalResult, Evaluator};
use crate::ir::{CustomCall, Instruction, Literal, Shape};

/// The custom-call targets of host callbacks (the partitioned form runs per device).
pub const HOST_CALLBACK_TARGETS: [&str; 2] = [
    "xla_ffi_python_cpu_callback",
    "xla_ffi_partitioned_python_cpu_callback",
];

/// True if `target` calls back into the host.
pub fn is_host_callback_target(target: &str) -> bool {
    HOST_CALLBACK_TARGETS.contains(&target)
}

/// The embedder's side of host callbacks: runs callable `index` on the operands and
/// returns one literal per result leaf (a token leaf as [`Literal::Token`]).
pub trait HostCallbacks: Send + Sync {
    /// Calls callable `index`. `results` are the result leaves' shapes, which the returned
    /// literals must match; an `Err` is the callable's failure, in its words.
    fn call(
        &self,
        index: u64,
        operands: &[&Literal],
        results: &[Shape],
    ) -> Result<Vec<Literal>, String>;
}

/// The callable index of a host-callback instruction (`backend_config={index = N : ui64}`).
pub fn callback_index(instr: &Instruction) -> EvalResult<u64> {
    let attrs = FfiAttributes::of(instr)?;
    let v = attrs
        .get("index")
        .ok_or_else(|| EvalError::new("a host callback without its `index` attribute"))?;
    v.parse::<u64>()
        .map_err(|_| EvalError::new(format!("host callback index `{v}` is not a u64")))
}

/// Runs host-callback custom calls through a [`HostCallbacks`]; other targets go on to
/// the built-in ones.
pub struct HostCallbackHandler(pub Arc<dyn HostCallbacks>);

impl CustomCallHandler for HostCallbackHandler {
    fn custom_call(
        &self,
        _ev: &mut Evaluator<'_>,
        instr: &Instruction,
        operands: &[&Literal],
        cc: &CustomCall,
    ) -> Option<EvalResult> {
        if !is_host_callback_target(&cc.target) {
            return None;
        }
        Some(run(self.0.as_ref(), instr, operands))
    }
}

fn run(host: &dyn HostCallbacks, instr: &Instruction, operands: &[&Literal]) -> EvalResult {
    let index = callback_index(instr)?;
    let shapes: Vec<Shape> = match &instr.shape {
        Shape::Tuple(elements) => elements.clone(),
        other => vec![other.clone()],
    };
    let results = host
        .call(index, operands, &shapes)
        .map_err(|m| EvalError::new(format!("host callback {index} failed: {m}")))?;
    if results.len() != shapes.len() {
        return Err(EvalError::new(format!(
            "host callback {index} returned {} results; the program expects {}",
            results.len(),
            shapes.len()
        )));
    }
    for (i, (got, want)) in results.iter().zip(&shapes).enumerate() {
        if !got.shape().compatible(want) {
            return Err(EvalError::new(format!(
                "host callback {index}: result {i} is {}; the program expects {want}",
                got.shape()
            )));
        }
    }
    Ok(match &instr.shape {
        Shape::Tuple(_) => Literal::Tuple(results),
        _ => results
            .into_iter()
            .next()
            .expect("one result, checked above"),
    })
}

/// The error for a host callback run with no host to call (the command line, or a plugin
/// client that was given no callables).
pub fn no_host_error(target: &str) -> EvalError {
    EvalError::new(format!(
        "custom call '{target}' calls back into the host program (jax.debug.print, \
         pure_callback, io_callback); it runs only where the host registered its callables, \
         as the jax plugin does"
    ))
    .unsupported()
}
