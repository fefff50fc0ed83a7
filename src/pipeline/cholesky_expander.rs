//! `cholesky_expander`: replaces the HLO `cholesky` op with a `call` of a computation
//! that factors the matrix column by column in a `while` loop of plain HLO.
//! XLA: `xla/hlo/transforms/expanders/cholesky_expander.cc` (`CholeskyUnblocked`).
//!
//! Semantics (XLA's, which the interpreter follows): only the `lower` triangle is read
//! (`lower=false` factors the transpose and transposes back); the other triangle of the
//! result is zero; if any pivot is NaN (not positive definite) the whole matrix of that
//! batch element is NaN. The loop, for column `j` of `L` (all batch elements at once):
//! ```text
//! dots  = L · L[j, :]ᵀ                 (columns >= j of L are still zero)
//! diff  = A[:, j] - dots
//! pivot = sqrt(diff[j]);  error |= pivot is NaN
//! L[:, j] = rows >= j ? diff * (1 / pivot) : 0
//! ```
//! `1 / pivot` then a multiply, not a divide: XLA's algebraic simplifier turns the
//! expander's `x / sqrt(d)` into `x * rsqrt(d)` and XLA:CPU computes rsqrt as `1 / sqrt`;
//! the interpreter does the same, so on small inputs results are usually bit-equal.
//!
//! Simplified from XLA: no blocked algorithm for large matrices (XLA switches at 128
//! rows), only real types (f32, f64; complex `cholesky` is left alone). The LAPACK custom
//! calls JAX emits on CPU (`lapack_spotrf_ffi`, ...) are not touched: the runtime calls a
//! library for them.

use super::op_expander::{
    HloText, array, counter_below, find_instructions, import_computations, replace_with_call,
    tuple_shape,
};
use super::{Pass, PassError};
use crate::ir::{ComputationId, InstrId, Module, Op, PrimitiveType};

/// Expands `cholesky` into a while loop.
pub struct CholeskyExpander;

impl Pass for CholeskyExpander {
    fn name(&self) -> &'static str {
        "cholesky_expander"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let found = find_instructions(module, |op| matches!(op, Op::Cholesky { .. }));
        let mut changed = false;
        for &(c, id) in &found {
            changed |= expand(module, c, id)?;
        }
        Ok(changed)
    }
}

/// Replaces one `cholesky` with a call of its expansion; false if the type is not real.
fn expand(module: &mut Module, c: ComputationId, id: InstrId) -> Result<bool, PassError> {
    let instr = &module.computations[c].instrs[id];
    let Op::Cholesky { lower } = instr.op else {
        return Err(PassError::new("not a cholesky"));
    };
    let Some(shape) = instr.shape.as_array() else {
        return Err(PassError::new(format!(
            "{}: cholesky of a tuple",
            instr.name
        )));
    };
    if !matches!(shape.element_type, PrimitiveType::F32 | PrimitiveType::F64) {
        return Ok(false);
    }
    let rank = shape.rank();
    if rank < 2 || shape.dims[rank - 1] != shape.dims[rank - 2] || shape.element_count() == 0 {
        return Err(PassError::new(format!(
            "{}: bad cholesky shape",
            instr.name
        )));
    }
    let text = expansion(shape.element_type.name(), &shape.dims, lower);
    let callee = import_computations(module, &text, c)?;
    replace_with_call(module, c, id, callee);
    Ok(true)
}

/// The whole expansion module for a `ty[dims]` operand.
fn expansion(ty: &str, dims: &[i64], lower: bool) -> String {
    let rank = dims.len();
    let n = dims[rank - 1];
    let batch = &dims[..rank - 2];
    let full = array(ty, dims);
    let mut vec_dims = batch.to_vec();
    vec_dims.push(n);
    let vec = array(ty, &vec_dims);
    let err = array("pred", batch);
    let elements: [&str; 4] = ["s32[]", &full, &full, &err];
    let state = tuple_shape(&elements);

    // The loop condition: j < n.
    let cond = counter_below(&state, n);

    // The loop body: one column of L.
    let mut h = HloText::new();
    let [j, a, l, error] = h.state_parameter(elements);
    let zero_index = h.splat("s32", "0", &[]);
    let indices = |last: &[&str]| -> String {
        let mut all: Vec<&str> = vec![zero_index.as_str(); batch.len()];
        all.extend_from_slice(last);
        all.join(", ")
    };
    let mut row_sizes: Vec<String> = batch.iter().map(|d| d.to_string()).collect();
    row_sizes.extend(["1".to_string(), n.to_string()]);
    let mut col_sizes: Vec<String> = batch.iter().map(|d| d.to_string()).collect();
    col_sizes.extend([n.to_string(), "1".to_string()]);
    let mut row_dims = batch.to_vec();
    row_dims.extend([1, n]);
    let mut col_dims = batch.to_vec();
    col_dims.extend([n, 1]);

    // Row j of L, and dots[r] = sum_k L[r, k] * L[j, k].
    let row = h.op(
        &array(ty, &row_dims),
        &format!(
            "dynamic-slice({l}, {}), dynamic_slice_sizes={{{}}}",
            indices(&[&j, &zero_index]),
            row_sizes.join(",")
        ),
    );
    let row = h.op(&vec, &format!("reshape({row})"));
    let nb = batch.len();
    let batch_dims: Vec<String> = (0..nb).map(|d| d.to_string()).collect();
    let batch_list = batch_dims.join(",");
    let batch_attr = if nb == 0 {
        String::new()
    } else {
        format!("lhs_batch_dims={{{batch_list}}}, rhs_batch_dims={{{batch_list}}}, ")
    };
    let dots = h.op(
        &vec,
        &format!(
            "dot({l}, {row}), {batch_attr}lhs_contracting_dims={{{}}}, rhs_contracting_dims={{{}}}",
            nb + 1,
            nb
        ),
    );
    // Column j of A minus the dots.
    let col = h.op(
        &array(ty, &col_dims),
        &format!(
            "dynamic-slice({a}, {}), dynamic_slice_sizes={{{}}}",
            indices(&[&zero_index, &j]),
            col_sizes.join(",")
        ),
    );
    let col = h.op(&vec, &format!("reshape({col})"));
    let diff = h.binary(&vec, "subtract", &col, &dots);
    // The pivot sqrt(diff[j]) per batch element.
    let mut one_dims = batch.to_vec();
    one_dims.push(1);
    let mut one_sizes: Vec<String> = batch.iter().map(|d| d.to_string()).collect();
    one_sizes.push("1".to_string());
    let d = h.op(
        &array(ty, &one_dims),
        &format!(
            "dynamic-slice({diff}, {}), dynamic_slice_sizes={{{}}}",
            indices(&[&j]),
            one_sizes.join(",")
        ),
    );
    let d = h.op(&array(ty, batch), &format!("reshape({d})"));
    let pivot = h.op(&array(ty, batch), &format!("sqrt({d})"));
    let is_nan = h.op(&err, &format!("compare({pivot}, {pivot}), direction=NE"));
    let error = h.binary(&err, "or", &error, &is_nan);
    let one = h.splat(ty, "1", batch);
    let rsqrt = h.binary(&array(ty, batch), "divide", &one, &pivot);
    let rsqrt = h.op(
        &vec,
        &format!("broadcast({rsqrt}), dimensions={{{batch_list}}}"),
    );
    let scaled = h.binary(&vec, "multiply", &diff, &rsqrt);
    // Rows above the diagonal stay zero.
    let rows = h.op(
        &array("s32", &vec_dims),
        &format!("iota(), iota_dimension={nb}"),
    );
    let jb = h.op(
        &array("s32", &vec_dims),
        &format!("broadcast({j}), dimensions={{}}"),
    );
    let below = h.op(
        &array("pred", &vec_dims),
        &format!("compare({rows}, {jb}), direction=GE"),
    );
    let zeros = h.splat(ty, "0", &vec_dims);
    let new_col = h.op(&vec, &format!("select({below}, {scaled}, {zeros})"));
    let new_col = h.op(&array(ty, &col_dims), &format!("reshape({new_col})"));
    let l = h.op(
        &full,
        &format!(
            "dynamic-update-slice({l}, {new_col}, {})",
            indices(&[&zero_index, &j])
        ),
    );
    let step = h.splat("s32", "1", &[]);
    let next = h.binary("s32[]", "add", &j, &step);
    let body = h.finish("body", &state, &format!("tuple({next}, {a}, {l}, {error})"));

    // The entry: transpose for `upper`, loop, NaN on error, transpose back.
    let mut h = HloText::new();
    h.parameter("a", &full, 0);
    let mut swap: Vec<String> = (0..rank).map(|d| d.to_string()).collect();
    swap.swap(rank - 2, rank - 1);
    let swap = swap.join(",");
    let a = if lower {
        "a".to_string()
    } else {
        h.op(&full, &format!("transpose(a), dimensions={{{swap}}}"))
    };
    // The factor, as the expression of the root (lower) or of the value to transpose.
    let factor = if n == 1 {
        // A 1x1 matrix is its square root (NaN if negative).
        format!("sqrt({a})")
    } else {
        let j0 = h.splat("s32", "0", &[]);
        let l0 = h.splat(ty, "0", dims);
        let e0 = h.splat("pred", "false", batch);
        let init = h.op(&state, &format!("tuple({j0}, {a}, {l0}, {e0})"));
        let w = h.op(&state, &format!("while({init}), condition=cond, body=body"));
        let l = h.op(&full, &format!("get-tuple-element({w}), index=2"));
        let e = h.op(&err, &format!("get-tuple-element({w}), index=3"));
        let e = h.op(
            &array("pred", dims),
            &format!("broadcast({e}), dimensions={{{batch_list}}}"),
        );
        let nan = h.splat(ty, "nan", dims);
        format!("select({e}, {nan}, {l})")
    };
    let root = if lower {
        factor
    } else {
        let result = h.op(&full, &factor);
        format!("transpose({result}), dimensions={{{swap}}}")
    };
    let entry = h.finish("cholesky", &full, &root);
    if n == 1 {
        return format!("HloModule cholesky\nENTRY {entry}");
    }
    format!("HloModule cholesky\n{cond}{body}ENTRY {entry}")
}

#[cfg(test)]
mod tests;
