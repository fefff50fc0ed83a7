//! `triangular_solve_expander`: replaces the HLO `triangular-solve` op with a `call` of a
//! computation that solves by substitution, one row per iteration of a `while` loop.
//! XLA: `xla/hlo/transforms/expanders/triangular_solve_expander.cc`.
//!
//! Semantics (XLA's, which the interpreter follows): only the named triangle of `a` is
//! read; `unit_diagonal` takes ones for the diagonal; `TRANSPOSE` solves with `aᵀ`
//! (`ADJOINT` is the same for real types). The expansion first builds `M = op(a)` masked
//! to its triangle, turns `x M = b` into `Mᵀ xᵀ = bᵀ`, then substitutes, forward when `M`
//! is lower triangular, backward when upper:
//! ```text
//! for each row r (in substitution order):
//!   s    = M[r, known] · X[known, :]        (unsolved rows of X are still zero)
//!   X[r] = (B[r] - s) / M[r, r]             (no divide with unit_diagonal)
//! ```
//! The sum runs over the columns in increasing order, with the unknown ones masked to
//! zero, so on small inputs the results are those of the interpreter's substitution.
//!
//! Simplified from XLA: no blocked algorithm (XLA inverts diagonal blocks and multiplies
//! for small batches) and only real types (f32, f64, and f16/bf16 solved in f32 between
//! converts; a complex solve is left alone). The
//! LAPACK custom calls (`lapack_strsm_ffi`, ...) are not touched.

use super::op_expander::{
    HloText, array, counter_below, find_instructions, import_computations, replace_with_call,
    tuple_shape,
};
use super::{Pass, PassError};
use crate::ir::{
    ComputationId, InstrId, Module, Op, PrimitiveType, TriangularSolveOptions, TriangularTranspose,
};

/// Expands `triangular-solve` into a while loop.
pub struct TriangularSolveExpander;

impl Pass for TriangularSolveExpander {
    fn name(&self) -> &'static str {
        "triangular_solve_expander"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let found = find_instructions(module, |op| matches!(op, Op::TriangularSolve(_)));
        let mut changed = false;
        for &(c, id) in &found {
            changed |= expand(module, c, id)?;
        }
        Ok(changed)
    }
}

/// Replaces one `triangular-solve` with a call of its expansion; false if not real.
fn expand(module: &mut Module, c: ComputationId, id: InstrId) -> Result<bool, PassError> {
    let comp = &module.computations[c];
    let instr = &comp.instrs[id];
    let Op::TriangularSolve(options) = &instr.op else {
        return Err(PassError::new("not a triangular-solve"));
    };
    let bad = || PassError::new(format!("{}: bad triangular-solve shapes", instr.name));
    let a = comp.instrs[instr.operands[0]]
        .shape
        .as_array()
        .ok_or_else(bad)?;
    let b = instr.shape.as_array().ok_or_else(bad)?;
    // XLA:CPU has no f16/bf16 solver: its expansion computes in f32 (bf16 by float
    // normalization, f16 as every f16 op is computed), so these solve in f32 between
    // converts.
    let compute = match b.element_type {
        PrimitiveType::F32 | PrimitiveType::F64 => b.element_type,
        PrimitiveType::F16 | PrimitiveType::BF16 => PrimitiveType::F32,
        _ => return Ok(false),
    };
    let rank = b.rank();
    if rank < 2 || a.rank() != rank {
        return Err(bad());
    }
    if b.element_count() == 0 {
        // Nothing to solve: the empty result needs no loop (XLA folds it away).
        return Ok(false);
    }
    let text = expansion(
        (compute.name(), b.element_type.name()),
        &a.dims,
        &b.dims,
        options,
    );
    let callee = import_computations(module, &text, c)?;
    replace_with_call(module, c, id, callee);
    Ok(true)
}

/// The whole expansion module for `a: io[a_dims]`, `b: io[b_dims]`, computed in `ty`.
fn expansion(
    (ty, io): (&str, &str),
    a_dims: &[i64],
    b_dims: &[i64],
    options: &TriangularSolveOptions,
) -> String {
    let rank = b_dims.len();
    let nb = rank - 2;
    let batch = &b_dims[..nb];
    let k = a_dims[rank - 1];
    let (m, n) = (b_dims[rank - 2], b_dims[rank - 1]);
    // In left-side form the unknown X is k x cols.
    let cols = if options.left_side { n } else { m };
    let batch_list: Vec<String> = (0..nb).map(|d| d.to_string()).collect();
    let batch_list = batch_list.join(",");
    let mut swap: Vec<String> = (0..rank).map(|d| d.to_string()).collect();
    swap.swap(rank - 2, rank - 1);
    let swap = swap.join(",");
    let with = |last: &[i64]| -> Vec<i64> {
        let mut d = batch.to_vec();
        d.extend_from_slice(last);
        d
    };
    let mat = array(ty, &with(&[k, k]));
    let xs = array(ty, &with(&[k, cols]));

    // Which triangle M = op(a) (after the right-side transpose) is in.
    let transpose_a = options.transpose_a != TriangularTranspose::NoTranspose;
    let mut mat_lower = options.lower ^ transpose_a;
    if !options.left_side {
        mat_lower = !mat_lower;
    }
    let elements: [&str; 4] = ["s32[]", &mat, &xs, &xs];
    let state = tuple_shape(&elements);

    let cond = counter_below(&state, k);

    let mut h = HloText::new();
    let [i, mt, rhs, x] = h.state_parameter(elements);
    // Forward substitution walks rows 0..k, backward k-1..0.
    let r = if mat_lower {
        i.clone()
    } else {
        let last = h.splat("s32", &(k - 1).to_string(), &[]);
        h.binary("s32[]", "subtract", &last, &i)
    };
    let zero = h.splat("s32", "0", &[]);
    let idx = |last: &[&str]| -> String {
        let mut all: Vec<&str> = vec![zero.as_str(); nb];
        all.extend_from_slice(last);
        all.join(", ")
    };
    let sizes = |last: &[i64]| -> String {
        let d: Vec<String> = with(last).iter().map(|v| v.to_string()).collect();
        d.join(",")
    };
    let row = h.op(
        &array(ty, &with(&[1, k])),
        &format!(
            "dynamic-slice({mt}, {}), dynamic_slice_sizes={{{}}}",
            idx(&[&r, &zero]),
            sizes(&[1, k])
        ),
    );
    let row = h.op(&array(ty, &with(&[k])), &format!("reshape({row})"));
    // Keep only the columns already solved.
    let columns = h.op(
        &array("s32", &with(&[k])),
        &format!("iota(), iota_dimension={nb}"),
    );
    let rb = h.op(
        &array("s32", &with(&[k])),
        &format!("broadcast({r}), dimensions={{}}"),
    );
    let direction = if mat_lower { "LT" } else { "GT" };
    let known = h.op(
        &array("pred", &with(&[k])),
        &format!("compare({columns}, {rb}), direction={direction}"),
    );
    let zeros = h.splat(ty, "0", &with(&[k]));
    let row = h.op(
        &array(ty, &with(&[k])),
        &format!("select({known}, {row}, {zeros})"),
    );
    let batch_attr = if nb == 0 {
        String::new()
    } else {
        format!("lhs_batch_dims={{{batch_list}}}, rhs_batch_dims={{{batch_list}}}, ")
    };
    let vec = array(ty, &with(&[cols]));
    let s = h.op(
        &vec,
        &format!("dot({row}, {x}), {batch_attr}lhs_contracting_dims={{{nb}}}, rhs_contracting_dims={{{nb}}}"),
    );
    let b_r = h.op(
        &array(ty, &with(&[1, cols])),
        &format!(
            "dynamic-slice({rhs}, {}), dynamic_slice_sizes={{{}}}",
            idx(&[&r, &zero]),
            sizes(&[1, cols])
        ),
    );
    let b_r = h.op(&vec, &format!("reshape({b_r})"));
    let mut v = h.binary(&vec, "subtract", &b_r, &s);
    if !options.unit_diagonal {
        let d = h.op(
            &array(ty, &with(&[1, 1])),
            &format!(
                "dynamic-slice({mt}, {}), dynamic_slice_sizes={{{}}}",
                idx(&[&r, &r]),
                sizes(&[1, 1])
            ),
        );
        let d = h.op(&array(ty, batch), &format!("reshape({d})"));
        let d = h.op(
            &vec,
            &format!("broadcast({d}), dimensions={{{batch_list}}}"),
        );
        v = h.binary(&vec, "divide", &v, &d);
    }
    let v = h.op(&array(ty, &with(&[1, cols])), &format!("reshape({v})"));
    let x = h.op(
        &xs,
        &format!("dynamic-update-slice({x}, {v}, {})", idx(&[&r, &zero])),
    );
    let one = h.splat("s32", "1", &[]);
    let next = h.binary("s32[]", "add", &i, &one);
    let body = h.finish("body", &state, &format!("tuple({next}, {mt}, {rhs}, {x})"));

    // The entry: M = op(triangle(a)), the right-side transpose, the loop.
    let a_shape = array(io, a_dims);
    let b_shape = array(io, b_dims);
    let mut h = HloText::new();
    h.parameter("a", &a_shape, 0);
    h.parameter("b", &b_shape, 1);
    let (a, b) = if io == ty {
        ("a".to_string(), "b".to_string())
    } else {
        (
            h.op(&array(ty, a_dims), "convert(a)"),
            h.op(&array(ty, b_dims), "convert(b)"),
        )
    };
    let square = with(&[k, k]);
    let rows = h.op(
        &array("s32", &square),
        &format!("iota(), iota_dimension={nb}"),
    );
    let cols_i = h.op(
        &array("s32", &square),
        &format!("iota(), iota_dimension={}", nb + 1),
    );
    let tri = if options.lower { "GE" } else { "LE" };
    let in_triangle = h.op(
        &array("pred", &square),
        &format!("compare({rows}, {cols_i}), direction={tri}"),
    );
    let zeros = h.splat(ty, "0", &square);
    let mut mt = h.op(&mat, &format!("select({in_triangle}, {a}, {zeros})"));
    if options.unit_diagonal {
        let diagonal = h.op(
            &array("pred", &square),
            &format!("compare({rows}, {cols_i}), direction=EQ"),
        );
        let ones = h.splat(ty, "1", &square);
        mt = h.op(&mat, &format!("select({diagonal}, {ones}, {mt})"));
    }
    if transpose_a {
        mt = h.op(&mat, &format!("transpose({mt}), dimensions={{{swap}}}"));
    }
    let rhs = if options.left_side {
        b
    } else {
        mt = h.op(&mat, &format!("transpose({mt}), dimensions={{{swap}}}"));
        h.op(&xs, &format!("transpose({b}), dimensions={{{swap}}}"))
    };
    let i0 = h.splat("s32", "0", &[]);
    let x0 = h.splat(ty, "0", &with(&[k, cols]));
    let init = h.op(&state, &format!("tuple({i0}, {mt}, {rhs}, {x0})"));
    let w = h.op(&state, &format!("while({init}), condition=cond, body=body"));
    let root = if options.left_side {
        format!("get-tuple-element({w}), index=3")
    } else {
        let x = h.op(&xs, &format!("get-tuple-element({w}), index=3"));
        format!("transpose({x}), dimensions={{{swap}}}")
    };
    let root = if io == ty {
        root
    } else {
        let x = h.op(&array(ty, b_dims), &root);
        format!("convert({x})")
    };
    let entry = h.finish("triangular_solve", &b_shape, &root);
    format!("HloModule triangular_solve\n{cond}{body}ENTRY {entry}")
}

#[cfg(test)]
mod tests;
