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

use super::linalg::{self, Trsm};
use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, BackendConfig, ComparisonDirection, CustomCall,
    Instruction, Literal, Op, PrimitiveType, Shape,
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
        "lapack_spotrf_ffi" | "lapack_dpotrf_ffi" | "lapack_cpotrf_ffi" | "lapack_zpotrf_ffi" => {
            potrf(instr, operands, cc)
        }
        "lapack_strsm_ffi" | "lapack_dtrsm_ffi" | "lapack_ctrsm_ffi" | "lapack_ztrsm_ffi" => {
            trsm(instr, operands, cc)
        }
        "TopK" => top_k(ev, instr, operands, cc),
        // The StableHLO reference interpreter's multi-device op (see `collectives::grid`).
        // Runs on the device runtime: `runtime::collectives::run_parallel::RunParallel` is
        // the handler that takes it.
        "interpreter.run_parallel" => Err(EvalError::new(
            "interpreter.run_parallel needs the device runtime's handler (runtime::collectives::run_parallel)",
        )),
        other => Err(EvalError::new(format!(
            "custom-call target \"{other}\" is not supported by the interpreter"
        ))),
    }
}

/// `lapack_?potrf_ffi`: `(factor, info)`.
fn potrf(instr: &Instruction, operands: &[&Literal], cc: &CustomCall) -> EvalResult {
    let [Literal::Array(a)] = operands else {
        return Err(EvalError::new(format!(
            "{} takes one array operand",
            cc.target
        )));
    };
    let attrs = FfiAttributes::of(instr)?;
    let mut lower = match attrs.letter("uplo")? {
        b'L' => true,
        b'U' => false,
        c => return Err(bad_flag(cc, "uplo", c)),
    };
    if lapack_sees_transpose(cc, 0)? {
        lower = !lower;
    }
    let (factor, info) = linalg::potrf(a, lower)?;
    let batch = &a.shape.dims[..a.shape.rank().saturating_sub(2)];
    let info = ArrayLiteral::from_vec(batch, info);
    Ok(Literal::Tuple(vec![factor.into(), info.into()]))
}

/// `lapack_?trsm_ffi`: solves `op(a) x = b` or `x op(a) = b`.
fn trsm(instr: &Instruction, operands: &[&Literal], cc: &CustomCall) -> EvalResult {
    let [Literal::Array(a), Literal::Array(b)] = operands else {
        return Err(EvalError::new(format!(
            "{} takes two array operands (a, b)",
            cc.target
        )));
    };
    let attrs = FfiAttributes::of(instr)?;
    let flag = |name: &str, yes: u8, no: u8| -> EvalResult<bool> {
        match attrs.letter(name)? {
            c if c == yes => Ok(true),
            c if c == no => Ok(false),
            c => Err(bad_flag(cc, name, c)),
        }
    };
    let mut how = Trsm {
        left_side: flag("side", b'L', b'R')?,
        lower: flag("uplo", b'L', b'U')?,
        transpose: false,
        conjugate: false,
        unit_diagonal: flag("diag", b'U', b'N')?,
    };
    (how.transpose, how.conjugate) = match attrs.letter("trans_x")? {
        b'N' => (false, false),
        b'T' => (true, false),
        b'C' => (true, true),
        c => return Err(bad_flag(cc, "trans_x", c)),
    };
    let (ta, tb) = (lapack_sees_transpose(cc, 0)?, lapack_sees_transpose(cc, 1)?);
    if ta != tb {
        return Err(EvalError::new(format!(
            "{}: a and b have different layouts",
            cc.target
        )));
    }
    if ta {
        // LAPACK solves op(aᵀ) xᵀ = bᵀ: transposing back swaps the side and the triangle.
        how.left_side = !how.left_side;
        how.lower = !how.lower;
    }
    Ok(linalg::trsm(a, b, how)?.into())
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
        _ => return Err(EvalError::new("TopK does not support this element type")),
    })
}

/// True if operand `i`'s layout constraint is row-major within the matrix (its most minor
/// dimension is the last one), so that column-major LAPACK sees the transpose.
fn lapack_sees_transpose(cc: &CustomCall, i: usize) -> EvalResult<bool> {
    let constraint = cc
        .operand_layout_constraints
        .as_ref()
        .and_then(|c| c.get(i))
        .and_then(Shape::as_array)
        .ok_or_else(|| {
            EvalError::new(format!(
                "{} needs operand_layout_constraints for operand {i}",
                cc.target
            ))
        })?;
    let rank = constraint.rank();
    Ok(rank >= 2 && constraint.layout.minor_to_major.first() == Some(&(rank - 1)))
}

fn bad_flag(cc: &CustomCall, name: &str, c: u8) -> EvalError {
    EvalError::new(format!(
        "{}: unexpected {name} = {c} ({:?})",
        cc.target, c as char
    ))
}

/// The attributes of a typed-FFI custom call: the MLIR dictionary JAX puts in
/// `backend_config`, e.g. `{diag = 78 : ui8, side = 76 : ui8}`.
#[derive(Debug, Default, PartialEq)]
struct FfiAttributes {
    /// `(name, value)` in order; values without their `: type` suffix, strings unquoted.
    entries: Vec<(String, String)>,
}

impl FfiAttributes {
    /// The attributes of `instr` (empty when it has no `backend_config`).
    fn of(instr: &Instruction) -> EvalResult<FfiAttributes> {
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
    fn get(&self, name: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// A byte-valued attribute (`uplo = 76 : ui8`), as the ASCII letter it encodes.
    fn letter(&self, name: &str) -> EvalResult<u8> {
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
