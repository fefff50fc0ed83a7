//! Control flow and side effects: while, conditional, call, fusion, rng, tokens, dimension
//! sizes.
//! XLA: `InferWhileShape`, `InferConditionalShape`, `InferCallShape`,
//! `InferGetDimensionSizeShape`, `InferSetDimensionSizeShape` in
//! `xla/service/shape_inference.cc`; `ShapeVerifier::HandleFusion`, `HandleRng`,
//! `HandleRngBitGenerator`, `HandleAfterAll` in `xla/service/hlo_verifier.cc`.

use super::elementwise::is_scalar_of;
use super::{expect_array, human_signature, human_string};
use crate::ir::{Opcode, PrimitiveType, ProgramShape, RandomDistribution, Shape};

/// `while(init), condition=c, body=b`: the state's shape. `c` is `state -> pred[]` and `b`
/// is `state -> state`.
pub(super) fn infer_while(
    init: &Shape,
    condition: &ProgramShape,
    body: &ProgramShape,
) -> Result<Shape, String> {
    let cond_ok = condition.parameters.len() == 1
        && condition.parameters[0].compatible(init)
        && condition
            .result
            .compatible(&Shape::scalar(PrimitiveType::Pred));
    if !cond_ok {
        return Err(format!(
            "the condition is {} but must be {1} -> pred[] (the loop state)",
            human_signature(condition),
            human_string(init)
        ));
    }
    let body_ok = body.parameters.len() == 1
        && body.parameters[0].compatible(init)
        && body.result.compatible(init);
    if !body_ok {
        return Err(format!(
            "the body is {} but must be {1} -> {1} (the loop state)",
            human_signature(body),
            human_string(init)
        ));
    }
    Ok(init.clone())
}

/// `conditional(selector, arg_0, ..., arg_n-1)`: the branches' common result. The selector is
/// `pred[]` (two branches) or `s32[]`; branch `i` takes `arg_i`.
pub(super) fn infer_conditional(
    operands: &[&Shape],
    branches: &[ProgramShape],
) -> Result<Shape, String> {
    let Some((selector, args)) = operands.split_first() else {
        return Err("conditional needs a branch selector".to_string());
    };
    let is_pred = is_scalar_of(selector, PrimitiveType::Pred);
    if !is_pred && !is_scalar_of(selector, PrimitiveType::S32) {
        return Err(format!(
            "the branch selector is {} but must be pred[] or s32[]",
            human_string(selector)
        ));
    }
    if branches.is_empty() || (is_pred && branches.len() != 2) {
        return Err(format!(
            "conditional has {} branches; a pred[] selector needs 2, an s32[] selector at least 1",
            branches.len()
        ));
    }
    if args.len() != branches.len() {
        return Err(format!(
            "conditional has {} branches but {} branch operands; it needs one per branch",
            branches.len(),
            args.len()
        ));
    }
    for (i, (branch, arg)) in branches.iter().zip(args).enumerate() {
        if branch.parameters.len() != 1 || !branch.parameters[0].compatible(arg) {
            return Err(format!(
                "branch {i} is {} but its operand is {}",
                human_signature(branch),
                human_string(arg)
            ));
        }
        if !branch.result.compatible(&branches[0].result) {
            return Err(format!(
                "branch 0 returns {} but branch {i} returns {}; all branches must return the same shape",
                human_string(&branches[0].result),
                human_string(&branch.result)
            ));
        }
    }
    Ok(branches[0].result.clone())
}

/// `call(args...)` and `fusion(args...)`: the callee's result; its parameters match the
/// operands.
pub(super) fn infer_call(
    op: &str,
    operands: &[&Shape],
    callee: &ProgramShape,
) -> Result<Shape, String> {
    let args: Vec<String> = operands.iter().map(|s| human_string(s)).collect();
    let mismatch = || {
        format!(
            "the {op} passes ({}) but the called computation is {}",
            args.join(", "),
            human_signature(callee)
        )
    };
    if callee.parameters.len() != operands.len() {
        return Err(mismatch());
    }
    if callee
        .parameters
        .iter()
        .zip(operands)
        .any(|(p, a)| !p.compatible(a))
    {
        return Err(mismatch());
    }
    Ok(callee.result.clone())
}

/// `rng-bit-generator(state)`: `(new state, bits)`; the new state has the state's shape,
/// the bits are what the instruction declares.
pub(super) fn infer_rng_bit_generator(state: &Shape, declared: &Shape) -> Result<Shape, String> {
    expect_array(state, "the state of rng-bit-generator")?;
    match declared.tuple_elements() {
        Some([_, bits]) if bits.is_array() => Ok(Shape::Tuple(vec![state.clone(), bits.clone()])),
        _ => Err(format!(
            "rng-bit-generator returns (state, bits), but is declared {}",
            human_string(declared)
        )),
    }
}

/// `rng(a, b), distribution=...`: the declared shape; `a` and `b` are scalars of its
/// element type (a float for `rng_normal`).
pub(super) fn infer_rng(
    operands: &[&Shape],
    distribution: RandomDistribution,
    declared: &Shape,
) -> Result<Shape, String> {
    let out = expect_array(declared, "the result of rng")?;
    let t = out.element_type;
    if operands.len() != 2 || !operands.iter().all(|s| is_scalar_of(s, t)) {
        let args: Vec<String> = operands.iter().map(|s| human_string(s)).collect();
        return Err(format!(
            "rng needs two {t}[] bounds, but has ({})",
            args.join(", ")
        ));
    }
    if distribution == RandomDistribution::Normal && !t.is_float() {
        return Err(format!(
            "rng_normal needs a floating-point result, not {}",
            human_string(declared)
        ));
    }
    Ok(declared.clone())
}

/// `get-dimension-size(x)` is `s32[]`; `set-dimension-size(x, n)` is `x` with dimension `d`
/// dynamic.
pub(super) fn infer_dimension_size(
    opcode: Opcode,
    operands: &[&Shape],
    dimension: usize,
) -> Result<Shape, String> {
    let Some(first) = operands.first() else {
        return Err(format!("{opcode} needs an operand"));
    };
    let a = expect_array(first, &format!("the operand of {opcode}"))?;
    if dimension >= a.rank() {
        return Err(format!(
            "dimensions={{{dimension}}} is out of range for {}",
            human_string(first)
        ));
    }
    match opcode {
        Opcode::GetDimensionSize => Ok(Shape::scalar(PrimitiveType::S32)),
        Opcode::SetDimensionSize => {
            match operands.get(1) {
                Some(size) if is_scalar_of(size, PrimitiveType::S32) => {}
                _ => return Err("set-dimension-size needs an s32[] size".to_string()),
            }
            let mut out = a.clone();
            out.dynamic_dims.resize(out.rank(), false);
            out.dynamic_dims[dimension] = true;
            Ok(Shape::Array(out))
        }
        _ => Err(format!(
            "{opcode} is not get-dimension-size or set-dimension-size"
        )),
    }
}

/// `after-all(tokens...)`: a token; every operand is a token.
pub(super) fn infer_after_all(operands: &[&Shape]) -> Result<Shape, String> {
    if let Some(s) = operands.iter().find(|s| !matches!(s, Shape::Token)) {
        return Err(format!(
            "after-all takes tokens, but one operand is {}",
            human_string(s)
        ));
    }
    Ok(Shape::Token)
}

/// `add-dependency(x, token)`: `x`'s shape.
pub(super) fn infer_add_dependency(operand: &Shape, token: &Shape) -> Result<Shape, String> {
    if !matches!(token, Shape::Token) {
        return Err(format!(
            "add-dependency's second operand must be a token, not {}",
            human_string(token)
        ));
    }
    Ok(operand.clone())
}
