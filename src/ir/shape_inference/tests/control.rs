//! Control flow and the rest: while, conditional, call, fusion, rng, tokens, constants.

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` in a table of cases.
#![allow(clippy::cloned_ref_to_slice_refs)]

use super::*;
use crate::ir::PrimitiveType::*;
use crate::ir::*;

#[test]
fn while_state_must_match_condition_and_body() {
    let state = tuple(vec![s(S32, &[]), s(F32, &[4])]);
    let cond = signature_only("cond", &[state.clone()], s(Pred, &[]));
    let body = signature_only("body", &[state.clone()], state.clone());
    let bad_body = signature_only("bad_body", &[state.clone()], s(F32, &[4]));
    let (module, ids) = module_with(vec![cond, body, bad_body]);
    let op = Op::While {
        condition: ids[0],
        body: ids[1],
    };
    assert_eq!(
        infer_in(module.clone(), &[state.clone()], op, state.clone()),
        ok("(s32[], f32[4])")
    );
    let op = Op::While {
        condition: ids[0],
        body: ids[2],
    };
    assert_err(
        infer_in(module, &[state.clone()], op, state),
        "the body is ((s32[], f32[4])) -> f32[4]",
    );
}

#[test]
fn conditional_branches_agree() {
    let x = s(F32, &[6]);
    let b0 = signature_only("b0", &[x.clone()], x.clone());
    let b1 = signature_only("b1", &[x.clone()], x.clone());
    let b2 = signature_only("b2", &[x.clone()], s(F32, &[5]));
    let (module, ids) = module_with(vec![b0, b1, b2]);
    let op = |branches: &[usize]| Op::Conditional {
        branch_computations: branches.iter().map(|&i| ids[i]).collect(),
    };
    let params = [s(S32, &[]), x.clone(), x.clone()];
    assert_eq!(
        infer_in(module.clone(), &params, op(&[0, 1]), x.clone()),
        ok("f32[6]")
    );
    let pred_params = [s(Pred, &[]), x.clone(), x.clone()];
    assert_eq!(
        infer_in(module.clone(), &pred_params, op(&[0, 1]), x.clone()),
        ok("f32[6]")
    );
    assert_err(
        infer_in(module.clone(), &params, op(&[0, 2]), x.clone()),
        "all branches must return the same shape",
    );
    let bad_selector = [s(F32, &[]), x.clone(), x.clone()];
    assert_err(
        infer_in(module, &bad_selector, op(&[0, 1]), x),
        "pred[] or s32[]",
    );
}

#[test]
fn call_and_fusion_match_the_callee() {
    let x = s(F32, &[4]);
    let f = signature_only(
        "fused_computation",
        &[x.clone(), x.clone()],
        s(F32, &[4, 1]),
    );
    let (module, ids) = module_with(vec![f]);
    let fusion = Op::Fusion {
        kind: FusionKind::Output,
        calls: ids[0],
    };
    assert_eq!(
        infer_in(
            module.clone(),
            &[x.clone(), x.clone()],
            fusion.clone(),
            s(F32, &[4, 1])
        ),
        ok("f32[4,1]")
    );
    assert_err(
        infer_in(
            module.clone(),
            &[x.clone(), s(F32, &[3])],
            fusion,
            s(F32, &[4, 1]),
        ),
        "the fusion passes (f32[4], f32[3]) but the called computation is (f32[4], f32[4]) -> f32[4,1]",
    );
    let call = Op::Call { to_apply: ids[0] };
    assert_err(
        infer_in(module, &[x.clone()], call, x),
        "the call passes (f32[4])",
    );
}

#[test]
fn rng_tokens_constants_custom_calls() {
    let state = s(U64, &[2]);
    let declared = tuple(vec![state.clone(), s(U32, &[3, 4])]);
    let rbg = Op::RngBitGenerator {
        algorithm: RandomAlgorithm::ThreeFry,
    };
    assert_eq!(
        infer(&[state.clone()], rbg.clone(), declared),
        ok("(u64[2], u32[3,4])")
    );
    assert_err(
        infer(&[state], rbg, s(U32, &[3, 4])),
        "returns (state, bits)",
    );

    let rng = Op::Rng {
        distribution: RandomDistribution::Uniform,
    };
    assert_eq!(
        infer(&[s(F32, &[]), s(F32, &[])], rng.clone(), s(F32, &[3])),
        ok("f32[3]")
    );
    assert_err(
        infer(&[s(F32, &[]), s(S32, &[])], rng, s(F32, &[3])),
        "two f32[] bounds",
    );

    assert_eq!(
        plain(
            Opcode::AfterAll,
            &[Shape::Token, Shape::Token],
            Shape::Token
        ),
        ok("token[]")
    );
    assert_err(
        plain(Opcode::AfterAll, &[s(F32, &[])], Shape::Token),
        "takes tokens",
    );

    // A constant's shape is its literal's.
    let lit = Literal::from(ArrayLiteral::from_vec(&[3], vec![1.0f32, 2.0, 3.0]));
    assert_eq!(
        infer(&[], Op::Constant { literal: lit }, s(F32, &[4])),
        ok("f32[3]")
    );

    // custom-call: whatever is declared (here lapack's (a, info)).
    let cc = Op::CustomCall(Box::new(CustomCall::new("lapack_spotrf_ffi")));
    let declared = tuple(vec![s(F32, &[6, 6]), s(S32, &[])]);
    assert_eq!(
        infer(&[s(F32, &[6, 6])], cc, declared),
        ok("(f32[6,6], s32[])")
    );
}

#[test]
fn fixed_arity_is_checked_without_panicking() {
    assert_err(
        plain(Opcode::Add, &[s(F32, &[4])], s(F32, &[4])),
        "add takes 2 operands but has 1",
    );
    assert_err(
        infer(&[s(F32, &[4])], Op::Iota { dimension: 0 }, s(F32, &[4])),
        "iota takes 0 operands",
    );
    // Ops xlac does not model keep the declared shape, whatever their operands.
    let op = Op::Unmodeled {
        opcode: Opcode::AllReduce,
        called: vec![],
    };
    assert_eq!(infer(&[s(F32, &[4])], op, s(F32, &[4])), ok("f32[4]"));
}
