//! The custom calls JAX emits on CPU: LAPACK Cholesky (`lapack_spotrf_ffi`,
//! `lapack_dpotrf_ffi`, and the complex `c`/`z` forms), triangular solve (`lapack_?trsm_ffi`)
//! and `TopK`. `interpreter.run_parallel` runs on the device runtime, through its
//! custom-call handler (`runtime::collectives::run_parallel`). Any other target is an error naming it, unless the
//! evaluator's [`super::CustomCallHandler`] takes it first.
//!
//! What the targets expect, as jax/jaxlib 0.10.2 emits them (see `scripts/golden_linalg.py`):
//! * `(f[..,n,n], s32[..]) custom-call(a), custom_call_target="lapack_spotrf_ffi",
//!   operand_layout_constraints={f32[n,n]{0,1}}, backend_config={uplo = 76 : ui8}`:
//!   LAPACK `?potrf` per matrix; the result is the factor (other triangle untouched) and
//!   `info` per matrix (0, or the 1-based failing pivot).
//! * `f[..,m,n] custom-call(a, b), custom_call_target="lapack_strsm_ffi",
//!   backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}`:
//!   LAPACK `?trsm` with alpha = 1.
//! * `(f32[..,k], s32[..,k]) custom-call(x), custom_call_target="TopK",
//!   called_computations={comparator}`: XLA:CPU's TopK runtime (`runtime_topk.cc`).
//!
//! The FFI attributes are an MLIR dictionary in `backend_config` (`name = value : type`);
//! the byte values are ASCII letters: `L`/`U` (76/85), `N`/`T`/`C` (78/84/67), `U` (85) unit.
//!
//! Layouts: LAPACK reads memory column-major. JAX pins the matrices to column-major layouts
//! (`{0,1}`, `{1,2,0}`) with `operand_layout_constraints`, so LAPACK sees the *logical*
//! matrix, which is what the interpreter holds. Were a constraint row-major within the
//! matrix, LAPACK would see the transpose: the `uplo` (and for trsm the `side`) flags then
//! refer to the transposed matrix, and are flipped here.

use super::lapack::{self, LapackCall, LapackIo};
use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, BackendConfig, ComparisonDirection, CustomCall,
    Instruction, Literal, NativeType, Op, PrimitiveType, Shape,
};

/// Runs a custom call by target name. `instr` is the custom-call instruction (for its
/// result shape and `backend_config`).
pub fn custom_call(
    ev: &mut Evaluator<'_>,
    instr: &Instruction,
    operands: &[&Literal],
    cc: &CustomCall,
) -> EvalResult {
    match cc.target.as_str() {
        t if lapack::is_lapack_target(t) => lapack(instr, operands, cc),
        "TopK" => top_k(ev, instr, operands, cc),
        // `lax.dce_sink(x, prevent_mlir_dce=True)`: marks `x` as used so that no DCE
        // removes it; does nothing and returns nothing (jaxlib's CPU handler is empty).
        DCE_SINK => Ok(Literal::Tuple(Vec::new())),
        // The StableHLO reference interpreter's multi-device op (see `collectives::grid`).
        // Runs on the device runtime: `runtime::collectives::run_parallel::RunParallel` is
        // the handler that takes it.
        "interpreter.run_parallel" => Err(EvalError::new(
            "interpreter.run_parallel needs the device runtime's handler (runtime::collectives::run_parallel)",
        )),
        // The program as one device runs it: sharding annotations are identities.
        t if crate::ir::sharding::is_sharding_only_custom_call(t) => match operands {
            [operand] if operand.shape().compatible(&instr.shape) => Ok((*operand).clone()),
            _ => Err(EvalError::new(format!(
                "custom call '{t}' changes its operand's shape: it needs the SPMD partitioner"
            ))),
        },
        // A memory-placement annotation: xlac's devices have one memory.
        crate::pipeline::memory_placement_remover::ANNOTATE_DEVICE_PLACEMENT => match operands {
            [operand] if operand.shape().compatible(&instr.shape) => Ok((*operand).clone()),
            _ => Err(EvalError::new(
                "custom call 'annotate_device_placement' must return its one operand's shape",
            )),
        },
        t if super::host_callback::is_host_callback_target(t) => {
            Err(super::host_callback::no_host_error(t))
        }
        other => Err(EvalError::new(format!(
            "custom-call target \"{other}\" is not supported by the interpreter"
        ))
        .unsupported()),
    }
}

/// True if [`custom_call`] runs `target` (without a [`super::CustomCallHandler`]).
pub fn interprets_target(target: &str) -> bool {
    lapack::is_lapack_target(target)
        || matches!(
            target,
            "TopK"
                | "interpreter.run_parallel"
                | DCE_SINK
                | crate::pipeline::memory_placement_remover::ANNOTATE_DEVICE_PLACEMENT
        )
        || crate::ir::sharding::is_sharding_only_custom_call(target)
}

/// The custom call `lax.dce_sink` lowers to.
const DCE_SINK: &str = "dce_sink";

/// A LAPACK custom call on literals: the shared routines of [`super::lapack`], reading and
/// writing the logical (row-major) literals.
fn lapack(instr: &Instruction, operands: &[&Literal], cc: &CustomCall) -> EvalResult {
    let mut inputs = Vec::with_capacity(operands.len());
    for o in operands {
        match o {
            Literal::Array(a) => inputs.push(a),
            _ => {
                return Err(EvalError::new(format!(
                    "{} takes array operands",
                    cc.target
                )));
            }
        }
    }
    let shapes: Vec<ArrayShape> = inputs.iter().map(|a| a.shape.clone()).collect();
    let results: Vec<ArrayShape> = instr.shape.leaves().into_iter().cloned().collect();
    let call = LapackCall::new(instr, cc, &shapes, &results)
        .map_err(|m| EvalError::new(format!("{}: {m}", cc.target)))?
        .ok_or_else(|| EvalError::new(format!("{} is not a LAPACK routine", cc.target)))?;
    let mut io = LiteralIo {
        operands: inputs,
        results: results
            .iter()
            .map(|s| ArrayLiteral::zeros(ArrayShape::new(s.element_type, &s.dims)))
            .collect(),
    };
    lapack::run(&call, &mut io).map_err(|m| EvalError::new(format!("{}: {m}", cc.target)))?;
    let mut leaves = io.results.into_iter().map(Literal::Array);
    Ok(match &instr.shape {
        Shape::Tuple(_) => Literal::Tuple(leaves.collect()),
        _ => leaves
            .next()
            .ok_or_else(|| EvalError::new("a LAPACK call returns at least one array"))?,
    })
}

/// The operands and results of a LAPACK call as row-major literals.
struct LiteralIo<'a> {
    operands: Vec<&'a ArrayLiteral>,
    results: Vec<ArrayLiteral>,
}

/// Element `e` of core block `b` in column-major order ↔ its row-major index.
fn row_major_index(dims: &[i64], core: usize, b: usize, e: usize) -> usize {
    let size: usize = dims[dims.len() - core..]
        .iter()
        .map(|&d| d.max(0) as usize)
        .product();
    if core < 2 {
        return b * size + e;
    }
    let r = dims.len();
    let (rows, cols) = (dims[r - 2].max(0) as usize, dims[r - 1].max(0) as usize);
    let _ = cols;
    let (i, j) = (e % rows, e / rows);
    b * size + i * cols + j
}

impl LapackIo for LiteralIo<'_> {
    fn read<T: NativeType>(&self, i: usize, core: usize, b: usize) -> Vec<T> {
        let a = self.operands[i];
        let data = T::slice(&a.data).expect("LapackCall checked the operand types");
        let size: usize = a.shape.dims[a.shape.rank() - core..]
            .iter()
            .map(|&d| d.max(0) as usize)
            .product();
        (0..size)
            .map(|e| data[row_major_index(&a.shape.dims, core, b, e)])
            .collect()
    }

    fn write<T: NativeType>(&mut self, i: usize, core: usize, b: usize, v: &[T]) {
        let r = &mut self.results[i];
        let dims = r.shape.dims.clone();
        let data = T::slice_mut(&mut r.data).expect("LapackCall checked the result types");
        for (e, &x) in v.iter().enumerate() {
            data[row_major_index(&dims, core, b, e)] = x;
        }
    }
}

/// `TopK`: the `k` largest elements of each row (the last dimension) and their indices,
/// ties broken by the smaller index. Floats are ordered by XLA's total order
/// (`-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN`).
fn top_k(
    ev: &Evaluator<'_>,
    instr: &Instruction,
    operands: &[&Literal],
    cc: &CustomCall,
) -> EvalResult {
    let [Literal::Array(x)] = operands else {
        return Err(EvalError::new("TopK takes one array operand"));
    };
    let k = match instr.shape.tuple_elements() {
        Some([Shape::Array(v), Shape::Array(i)])
            if i.element_type == PrimitiveType::S32 && v.rank() >= 1 =>
        {
            v.dims[v.rank() - 1].max(0) as usize
        }
        _ => return Err(EvalError::new("TopK must return (values, s32 indices)")),
    };
    let largest = comparator_is_greater(ev, cc)?;
    let rank = x.shape.rank();
    if rank == 0 {
        return Err(EvalError::new("TopK needs an operand of rank >= 1"));
    }
    let n = x.shape.dims[rank - 1].max(0) as usize;
    if k > n {
        return Err(EvalError::new(format!(
            "TopK k = {k} exceeds the row length {n}"
        )));
    }
    let keys = total_order_keys(&x.data)?;
    let rows = keys.len().checked_div(n).unwrap_or(0);
    let mut picked: Vec<usize> = Vec::with_capacity(rows * k);
    let mut indices: Vec<i32> = Vec::with_capacity(rows * k);
    for row in 0..rows {
        let key = &keys[row * n..(row + 1) * n];
        let mut order: Vec<usize> = (0..n).collect();
        // Stable sort on the key alone keeps equal keys in index order.
        if largest {
            order.sort_by(|&i, &j| key[j].cmp(&key[i]));
        } else {
            order.sort_by(|&i, &j| key[i].cmp(&key[j]));
        }
        for &i in &order[..k] {
            picked.push(row * n + i);
            indices.push(i as i32);
        }
    }
    let mut out_dims = x.shape.dims.clone();
    out_dims[rank - 1] = k as i64;
    let values = ArrayLiteral {
        shape: ArrayShape::new(x.element_type(), &out_dims),
        data: x.data.gather(&picked),
    };
    let indices = ArrayLiteral::from_vec(&out_dims, indices);
    Ok(Literal::Tuple(vec![values.into(), indices.into()]))
}

/// True if the TopK comparator's root compares with `GT` (largest first), false for `LT`.
/// JAX's comparator maps floats to total-order integers first; only the final direction
/// matters here.
fn comparator_is_greater(ev: &Evaluator<'_>, cc: &CustomCall) -> EvalResult<bool> {
    let Some(&id) = cc.called_computations.first() else {
        // No comparator: XLA's TopK custom call means "largest".
        return Ok(true);
    };
    let comp = ev
        .module
        .computations
        .get(id)
        .ok_or_else(|| EvalError::new("TopK comparator is not in the module"))?;
    match &comp.root_instr().op {
        Op::Compare {
            direction: ComparisonDirection::Gt,
            ..
        } => Ok(true),
        Op::Compare {
            direction: ComparisonDirection::Lt,
            ..
        } => Ok(false),
        _ => Err(EvalError::new(format!(
            "TopK comparator `{}` is not a GT or LT comparison",
            comp.name
        ))),
    }
}

/// A key per element whose integer order is XLA's total order of the values.
fn total_order_keys(data: &ArrayData) -> EvalResult<Vec<i128>> {
    // Sign-magnitude to two's complement: flip the magnitude bits of negative values.
    fn float_key(bits: i64, magnitude_mask: i64) -> i128 {
        i128::from(if bits < 0 {
            bits ^ magnitude_mask
        } else {
            bits
        })
    }
    Ok(match data {
        ArrayData::F32(v) => v
            .iter()
            .map(|x| float_key(i64::from(x.to_bits() as i32), 0x7FFF_FFFF))
            .collect(),
        ArrayData::F64(v) => v
            .iter()
            .map(|x| float_key(x.to_bits() as i64, i64::MAX))
            .collect(),
        ArrayData::F16(v) => v
            .iter()
            .map(|x| float_key(i64::from(x.to_bits() as i16), 0x7FFF))
            .collect(),
        ArrayData::BF16(v) => v
            .iter()
            .map(|x| float_key(i64::from(x.to_bits() as i16), 0x7FFF))
            .collect(),
        ArrayData::S8(v) => v.iter().map(|&x| i128::from(x)).collect(),
        ArrayData::S16(v) => v.iter().map(|&x| i128::from(x)).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| i128::from(x)).collect(),
        ArrayData::S64(v) => v.iter().map(|&x| i128::from(x)).collect(),
        ArrayData::U8(v) => v.iter().map(|&x| i128::from(x)).collect(),
        ArrayData::U16(v) => v.iter().map(|&x| i128::from(x)).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| i128::from(x)).collect(),
        ArrayData::U64(v) => v.iter().map(|&x| i128::from(x)).collect(),
        _ => return Err(EvalError::new("TopK does not support this element type").unsupported()),
    })
}

/// The attributes of a typed-FFI custom call: the MLIR dictionary JAX puts in
/// `backend_config`, e.g. `{diag = 78 : ui8, side = 76 : ui8}`.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct FfiAttributes {
    /// `(name, value)` in order; values without their `: type` suffix, strings unquoted.
    entries: Vec<(String, String)>,
}

impl FfiAttributes {
    /// The attributes of `instr` (empty when it has no `backend_config`).
    pub(crate) fn of(instr: &Instruction) -> EvalResult<FfiAttributes> {
        match &instr.backend_config {
            None => Ok(FfiAttributes::default()),
            Some(BackendConfig::Json(text) | BackendConfig::Quoted(text)) => {
                FfiAttributes::parse(text)
            }
        }
    }

    /// Parses `{name = value : type, ...}` (the braces are optional; `""` is empty).
    fn parse(text: &str) -> EvalResult<FfiAttributes> {
        let bad = || EvalError::new(format!("cannot parse the FFI attributes `{text}`"));
        let body = text.trim();
        let body = body
            .strip_prefix('{')
            .map_or(Ok(body), |b| b.strip_suffix('}').ok_or_else(bad))?;
        let mut entries = Vec::new();
        for item in split_top_level(body) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (name, value) = item.split_once('=').ok_or_else(bad)?;
            let value = value.trim();
            let value = if let Some(rest) = value.strip_prefix('"') {
                rest.split_once('"').ok_or_else(bad)?.0.to_string()
            } else {
                // Drop a `: type` suffix.
                value
                    .split_once(':')
                    .map_or(value, |(v, _)| v)
                    .trim()
                    .to_string()
            };
            entries.push((name.trim().to_string(), value));
        }
        Ok(FfiAttributes { entries })
    }

    /// The value of `name`, if present.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// A byte-valued attribute (`uplo = 76 : ui8`), as the ASCII letter it encodes.
    pub(super) fn letter(&self, name: &str) -> EvalResult<u8> {
        let v = self
            .get(name)
            .ok_or_else(|| EvalError::new(format!("missing FFI attribute `{name}`")))?;
        v.parse::<u8>()
            .map_err(|_| EvalError::new(format!("FFI attribute `{name}` = `{v}` is not a byte")))
    }
}

/// Splits on commas that are outside quotes, brackets and braces.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut in_string, mut start) = (0i32, false, 0);
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '{' | '[' | '(' | '<' if !in_string => depth += 1,
            '}' | ']' | ')' | '>' if !in_string => depth -= 1,
            ',' if !in_string && depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

#[cfg(test)]
mod tests;
