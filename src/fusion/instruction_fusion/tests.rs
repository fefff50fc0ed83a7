//! One test per fusion rule and per refusal reason: HLO text in, the fused HLO text (or
//! "unchanged") and the rule that decided out. Expected texts are written by hand.

use super::*;
use crate::fusion::FusionRule;
use crate::fusion::decisions::FusionDecision;
use crate::ir::Opcode;
use crate::pipeline::testing::{check_pass, check_unchanged};

fn fusion() -> (CpuInstructionFusion, DecisionLog) {
    let log = DecisionLog::default();
    (CpuInstructionFusion::new(log.clone()), log)
}

/// The rules logged for the pair `producer -> consumer`.
fn rules(log: &DecisionLog, producer: &str, consumer: &str) -> Vec<FusionRule> {
    log.borrow()
        .iter()
        .filter(|d: &&FusionDecision| d.producer == producer && d.consumer == consumer)
        .map(|d| d.rule.clone())
        .collect()
}

#[test]
fn elementwise_producer_is_loop_fused() {
    let (pass, log) = fusion();
    check_pass(
        pass,
        "HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  e = f32[4]{0} exponential(x)
  ROOT a = f32[4]{0} add(e, y)
}",
        "HloModule m
fused_computation {
  param_0 = f32[4]{0} parameter(0)
  param_1 = f32[4]{0} parameter(1)
  e = f32[4]{0} exponential(param_1)
  ROOT a = f32[4]{0} add(e, param_0)
}
ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT exponential_add_fusion = f32[4]{0} fusion(y, x), kind=kLoop, calls=fused_computation
}",
    );
    assert_eq!(
        rules(&log, "e", "a"),
        [FusionRule::LoopFusion {
            producer: Opcode::Exp
        }]
    );
    let d = &log.borrow()[0];
    assert_eq!(d.result.as_deref(), Some("exponential_add_fusion"));
}

#[test]
fn cheap_broadcast_is_duplicated_into_both_users() {
    let (pass, log) = fusion();
    check_pass(
        pass,
        "HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  s = f32[] parameter(2)
  b = f32[4]{0} broadcast(s), dimensions={}
  m = f32[4]{0} multiply(x, b)
  a = f32[4]{0} add(y, b)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(m, a)
}",
        "HloModule m
fused_computation {
  param_0 = f32[4]{0} parameter(0)
  param_1 = f32[] parameter(1)
  b.1 = f32[4]{0} broadcast(param_1), dimensions={}
  ROOT a = f32[4]{0} add(param_0, b.1)
}
fused_computation.1 {
  param_0.1 = f32[4]{0} parameter(0)
  param_1.1 = f32[] parameter(1)
  b = f32[4]{0} broadcast(param_1.1), dimensions={}
  ROOT m = f32[4]{0} multiply(param_0.1, b)
}
ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  s = f32[] parameter(2)
  broadcast_multiply_fusion = f32[4]{0} fusion(x, s), kind=kLoop, calls=fused_computation.1
  broadcast_add_fusion = f32[4]{0} fusion(y, s), kind=kLoop, calls=fused_computation
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(broadcast_multiply_fusion, broadcast_add_fusion)
}",
    );
    assert_eq!(
        rules(&log, "b", "a"),
        [FusionRule::LoopFusionDuplicated {
            producer: Opcode::Broadcast,
            other_users: 1
        }]
    );
    assert_eq!(
        rules(&log, "b", "m"),
        [FusionRule::LoopFusion {
            producer: Opcode::Broadcast
        }]
    );
}

#[test]
fn reduce_absorbs_its_producer_as_input_fusion() {
    let (pass, log) = fusion();
    check_pass(
        pass,
        "HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  e = f32[4,8]{1,0} exponential(x)
  c = f32[] constant(0)
  ROOT r = f32[4]{0} reduce(e, c), dimensions={1}, to_apply=sum
}",
        "HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused_computation {
  param_0 = f32[4,8]{1,0} parameter(0)
  e = f32[4,8]{1,0} exponential(param_0)
  c = f32[] constant(0)
  ROOT r = f32[4]{0} reduce(e, c), dimensions={1}, to_apply=sum
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  ROOT exponential_reduce_fusion = f32[4]{0} fusion(x), kind=kInput, calls=fused_computation
}",
    );
    assert_eq!(
        rules(&log, "e", "r"),
        [FusionRule::ReductionInput {
            producer: Opcode::Exp
        }]
    );
}

#[test]
fn scalar_constant_waits_for_an_existing_fusion() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  c = f32[] constant(0)
  ROOT p = f32[8]{0} pad(x, c), padding=2_2
}",
    );
    assert_eq!(rules(&log, "c", "p"), [FusionRule::ConstantOnlyIntoFusion]);
}

#[test]
fn non_scalar_constant_stays_a_buffer() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  x = f32[2]{0} parameter(0)
  c = f32[2]{0} constant({1, 2})
  ROOT a = f32[2]{0} add(x, c)
}",
    );
    assert_eq!(
        rules(&log, "c", "a"),
        [FusionRule::NonScalarConstant { elements: 2 }]
    );
}

#[test]
fn expensive_producer_is_not_recomputed_per_window() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[8,8]{1,0} parameter(0)
  e = f32[8,8]{1,0} exponential(x)
  c = f32[] parameter(1)
  ROOT rw = f32[8,8]{1,0} reduce-window(e, c), window={size=3x3 pad=1_1x1_1}, to_apply=max
}",
    );
    assert_eq!(
        rules(&log, "e", "rw"),
        [FusionRule::ExpensiveReused {
            producer: Opcode::Exp,
            consumer: Opcode::ReduceWindow,
            reads: 9
        }]
    );
}

#[test]
fn expensive_producer_with_two_users_is_not_duplicated() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  e = f32[4]{0} exponential(x)
  n = f32[4]{0} negate(e)
  a = f32[4]{0} abs(e)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(n, a)
}",
    );
    let want = [FusionRule::ExpensiveDuplicated {
        producer: Opcode::Exp,
        other_users: 1,
    }];
    assert_eq!(rules(&log, "e", "a"), want);
    assert_eq!(rules(&log, "e", "n"), want);
}

#[test]
fn reduction_read_once_per_row_is_fused_into_its_consumer() {
    let (pass, log) = fusion();
    check_pass(
        pass,
        "HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[4]{0} reduce(x, c), dimensions={1}, to_apply=max
  b = f32[4,8]{1,0} broadcast(r), dimensions={0}
  ROOT s = f32[4,8]{1,0} subtract(x, b)
}",
        "HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
fused_computation {
  param_0 = f32[4,8]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[4]{0} reduce(param_0, c), dimensions={1}, to_apply=max
  b = f32[4,8]{1,0} broadcast(r), dimensions={0}
  ROOT s = f32[4,8]{1,0} subtract(param_0, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  ROOT broadcast_subtract_fusion = f32[4,8]{1,0} fusion(x), kind=kLoop, calls=fused_computation
}",
    );
    assert_eq!(
        rules(&log, "r", "broadcast_subtract_fusion"),
        [FusionRule::RowReduction]
    );
}

#[test]
fn reduction_broadcast_along_the_inner_loop_is_refused_with_its_reason() {
    // Column maxima broadcast back along the rows: every element of a row reads a
    // different maximum, so fusing would redo a whole column reduction per element.
    let (pass, log) = fusion();
    check_pass(
        pass,
        "HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[8]{0} reduce(x, c), dimensions={0}, to_apply=max
  b = f32[4,8]{1,0} broadcast(r), dimensions={1}
  ROOT s = f32[4,8]{1,0} subtract(x, b)
}",
        "HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
fused_computation {
  param_0 = f32[4,8]{1,0} parameter(0)
  param_1 = f32[8]{0} parameter(1)
  b = f32[4,8]{1,0} broadcast(param_1), dimensions={1}
  ROOT s = f32[4,8]{1,0} subtract(param_0, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[8]{0} reduce(x, c), dimensions={0}, to_apply=max
  ROOT broadcast_subtract_fusion = f32[4,8]{1,0} fusion(x, r), kind=kLoop, calls=fused_computation
}",
    );
    assert_eq!(
        rules(&log, "r", "broadcast_subtract_fusion"),
        [FusionRule::ReductionBroadcastBack { reads: 4 }]
    );
}

#[test]
fn expensive_producer_read_per_element_and_by_a_row_reduction_is_row_cached() {
    // Softmax's denominator: the exponentials feed both the row sum (hoisted, once per
    // row) and the divide. The kernel computes them once per row into its row cache.
    let (pass, log) = fusion();
    check_pass(
        pass,
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  e = f32[4,8]{1,0} exponential(x)
  c = f32[] constant(0)
  r = f32[4]{0} reduce(e, c), dimensions={1}, to_apply=add
  b = f32[4,8]{1,0} broadcast(r), dimensions={0}
  ROOT d = f32[4,8]{1,0} divide(e, b)
}",
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused_computation {
  param_0 = f32[4,8]{1,0} parameter(0)
  c = f32[] constant(0)
  e = f32[4,8]{1,0} exponential(param_0)
  r = f32[4]{0} reduce(e, c), dimensions={1}, to_apply=add
  b = f32[4,8]{1,0} broadcast(r), dimensions={0}
  ROOT d = f32[4,8]{1,0} divide(e, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  ROOT broadcast_divide_fusion = f32[4,8]{1,0} fusion(x), kind=kLoop, calls=fused_computation
}",
    );
    assert_eq!(
        rules(&log, "e", "broadcast_divide_fusion"),
        [FusionRule::RowCached {
            producer: Opcode::Exp,
        }]
    );
}

#[test]
fn expensive_producer_read_twice_per_row_too_long_to_cache_is_not_fused() {
    // 8192 f32 = 32 KiB per row: more than the row cache holds, so the exponentials
    // would be computed twice; they stay a kernel of their own.
    let (pass, log) = fusion();
    check_pass(
        pass,
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[2,8192]{1,0} parameter(0)
  e = f32[2,8192]{1,0} exponential(x)
  c = f32[] constant(0)
  r = f32[2]{0} reduce(e, c), dimensions={1}, to_apply=add
  b = f32[2,8192]{1,0} broadcast(r), dimensions={0}
  ROOT d = f32[2,8192]{1,0} divide(e, b)
}",
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused_computation {
  param_0 = f32[2,8192]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[2]{0} reduce(param_0, c), dimensions={1}, to_apply=add
  b = f32[2,8192]{1,0} broadcast(r), dimensions={0}
  ROOT d = f32[2,8192]{1,0} divide(param_0, b)
}
ENTRY main {
  x = f32[2,8192]{1,0} parameter(0)
  e = f32[2,8192]{1,0} exponential(x)
  ROOT broadcast_divide_fusion = f32[2,8192]{1,0} fusion(e), kind=kLoop, calls=fused_computation
}",
    );
    assert_eq!(
        rules(&log, "e", "broadcast_divide_fusion"),
        [FusionRule::ExpensiveReused {
            producer: Opcode::Exp,
            consumer: Opcode::Divide,
            reads: 2
        }]
    );
}

#[test]
fn library_ops_are_neither_producers_nor_consumers() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[4]{0} parameter(0)
  e = f32[4]{0} exponential(x)
  s = f32[4]{0} sort(e), dimensions={0}, to_apply=lt
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(s, x)
}",
    );
    assert_eq!(
        rules(&log, "e", "s"),
        [FusionRule::ConsumerNotFusible {
            opcode: Opcode::Sort
        }]
    );
}

#[test]
fn sort_producer_is_not_a_kernel() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[4]{0} parameter(0)
  s = f32[4]{0} sort(x), dimensions={0}, to_apply=lt
  ROOT n = f32[4]{0} negate(s)
}",
    );
    assert_eq!(
        rules(&log, "s", "n"),
        [FusionRule::ProducerNotKernel {
            opcode: Opcode::Sort
        }]
    );
}

#[test]
fn reduce_window_is_not_fused_as_a_producer() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[8]{0} parameter(0)
  c = f32[] parameter(1)
  rw = f32[8]{0} reduce-window(x, c), window={size=3 pad=1_1}, to_apply=max
  ROOT n = f32[8]{0} negate(rw)
}",
    );
    assert_eq!(
        rules(&log, "rw", "n"),
        [FusionRule::ProducerNotLoopFusible {
            opcode: Opcode::ReduceWindow
        }]
    );
}

#[test]
fn nothing_is_fused_into_a_dot() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  a = f32[8,4]{1,0} parameter(0)
  b = f32[8,3]{1,0} parameter(1)
  t = f32[4,8]{1,0} transpose(a), dimensions={1,0}
  ROOT dot = f32[4,3]{1,0} dot(t, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
    assert_eq!(rules(&log, "t", "dot"), [FusionRule::IntoDotOperand]);
}

#[test]
fn dot_with_bias_and_relu_becomes_an_output_fusion() {
    let (pass, log) = fusion();
    check_pass(
        pass,
        "HloModule m
ENTRY main {
  a = f32[4,8]{1,0} parameter(0)
  b = f32[8,3]{1,0} parameter(1)
  bias = f32[3]{0} parameter(2)
  dot = f32[4,3]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,3]{1,0} broadcast(bias), dimensions={1}
  add = f32[4,3]{1,0} add(dot, bb)
  z = f32[] constant(0)
  zb = f32[4,3]{1,0} broadcast(z), dimensions={}
  ROOT relu = f32[4,3]{1,0} maximum(add, zb)
}",
        "HloModule m
fused_computation {
  param_0 = f32[3]{0} parameter(0)
  param_1 = f32[4,8]{1,0} parameter(1)
  param_2 = f32[8,3]{1,0} parameter(2)
  z = f32[] constant(0)
  zb = f32[4,3]{1,0} broadcast(z), dimensions={}
  bb = f32[4,3]{1,0} broadcast(param_0), dimensions={1}
  dot = f32[4,3]{1,0} dot(param_1, param_2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  add = f32[4,3]{1,0} add(dot, bb)
  ROOT relu = f32[4,3]{1,0} maximum(add, zb)
}
ENTRY main {
  a = f32[4,8]{1,0} parameter(0)
  b = f32[8,3]{1,0} parameter(1)
  bias = f32[3]{0} parameter(2)
  ROOT broadcast_maximum_fusion = f32[4,3]{1,0} fusion(bias, a, b), kind=kOutput, calls=fused_computation
}",
    );
    assert_eq!(
        rules(&log, "dot", "broadcast_maximum_fusion"),
        [FusionRule::DotEpilogue]
    );
}

#[test]
fn dot_with_two_users_stays_a_library_call() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  a = f32[4,8]{1,0} parameter(0)
  b = f32[8,3]{1,0} parameter(1)
  dot = f32[4,3]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f32[4,3]{1,0} negate(dot)
  ROOT t = (f32[4,3]{1,0}, f32[4,3]{1,0}) tuple(n, dot)
}",
    );
    assert!(matches!(
        rules(&log, "dot", "n")[..],
        [FusionRule::DotNotEpilogue { .. }]
    ));
}

#[test]
fn dynamic_update_slice_stays_in_place() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  x = f32[8]{0} parameter(0)
  u = f32[2]{0} parameter(1)
  i = s32[] parameter(2)
  n = f32[8]{0} negate(x)
  ROOT d = f32[8]{0} dynamic-update-slice(n, u, i)
}",
    );
    assert_eq!(
        rules(&log, "n", "d"),
        [FusionRule::InPlace {
            opcode: Opcode::DynamicUpdateSlice
        }]
    );
}

#[test]
fn concatenate_of_nine_operands_stays_standalone() {
    let (pass, log) = fusion();
    let names: Vec<String> = (0..9).map(|i| format!("n{i}")).collect();
    let mut hlo = String::from("HloModule m\nENTRY main {\n  x = f32[2]{0} parameter(0)\n");
    for n in &names {
        hlo.push_str(&format!("  {n} = f32[2]{{0}} negate(x)\n"));
    }
    hlo.push_str(&format!(
        "  ROOT c = f32[18]{{0}} concatenate({}), dimensions={{0}}\n}}",
        names.join(", ")
    ));
    check_unchanged(pass, &hlo);
    assert_eq!(
        rules(&log, "n8", "c"),
        [FusionRule::ConcatTooManyOperands { count: 9 }]
    );
}

#[test]
fn concatenate_along_a_long_minor_dimension_stays_standalone() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  x = f32[2,64]{1,0} parameter(0)
  n = f32[2,64]{1,0} negate(x)
  ROOT c = f32[2,128]{1,0} concatenate(n, x), dimensions={1}
}",
    );
    assert_eq!(
        rules(&log, "n", "c"),
        [FusionRule::ConcatMinorDimTooLarge { size: 128 }]
    );
}

#[test]
fn pad_read_through_two_slices_would_be_emitted_twice() {
    let (pass, log) = fusion();
    check_pass(
        pass,
        "HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  c = f32[] constant(0)
  p = f32[8]{0} pad(x, c), padding=2_2
  s0 = f32[4]{0} slice(p), slice={[0:4]}
  s1 = f32[4]{0} slice(p), slice={[4:8]}
  ROOT a = f32[4]{0} add(s0, s1)
}",
        "HloModule m
fused_computation {
  param_0 = f32[8]{0} parameter(0)
  s1 = f32[4]{0} slice(param_0), slice={[4:8]}
  s0 = f32[4]{0} slice(param_0), slice={[0:4]}
  ROOT a = f32[4]{0} add(s0, s1)
}
ENTRY main {
  x = f32[4]{0} parameter(0)
  c = f32[] constant(0)
  p = f32[8]{0} pad(x, c), padding=2_2
  ROOT slice_add_fusion = f32[4]{0} fusion(p), kind=kLoop, calls=fused_computation
}",
    );
    assert_eq!(
        rules(&log, "p", "slice_add_fusion"),
        [FusionRule::CodeDuplicationTooHigh { count: 2 }]
    );
}

#[test]
fn parameters_are_never_considered() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  x = f32[8]{0} parameter(0)
  y = f32[8]{0} parameter(1)
  s = f32[8]{0} add(x, y)
  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(s, x)
}",
    );
    assert!(log.borrow().is_empty());
}

#[test]
fn not_effectively_unary_producer_with_two_users_is_not_duplicated() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  x = f32[8]{0} parameter(0)
  y = f32[8]{0} parameter(1)
  s = f32[8]{0} add(x, y)
  n = f32[8]{0} negate(s)
  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(n, s)
}",
    );
    assert_eq!(
        rules(&log, "s", "n"),
        [FusionRule::NotEffectivelyUnary {
            producer: Opcode::Add,
            other_users: 1
        }]
    );
}

#[test]
fn complex_operand_is_not_a_kernel_type() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  c = c64[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  r = f32[4]{0} real(c)
  ROOT a = f32[4]{0} add(r, y)
}",
    );
    assert_eq!(rules(&log, "r", "a"), [FusionRule::NotKernelType]);
}

#[test]
fn fusions_from_the_input_are_kept_as_they_are() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
f {
  p = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(p)
}
ENTRY main {
  x = f32[4]{0} parameter(0)
  e = f32[4]{0} exponential(x)
  g = f32[4]{0} fusion(e), kind=kLoop, calls=f
  ROOT a = f32[4]{0} abs(g)
}",
    );
    assert_eq!(
        rules(&log, "e", "g"),
        [FusionRule::ConsumerIsForeignFusion {
            kind: crate::ir::FusionKind::Loop
        }]
    );
    assert_eq!(rules(&log, "g", "a"), [FusionRule::ProducerIsFusion]);
}

#[test]
fn at_most_five_reductions_per_fusion() {
    let (pass, log) = fusion();
    let mut hlo = String::from(
        "HloModule m\nsum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY main {\n  x = f32[4,8]{1,0} parameter(0)\n  c = f32[] parameter(1)\n",
    );
    for i in 0..6 {
        hlo.push_str(&format!(
            "  r{i} = f32[4]{{0}} reduce(x, c), dimensions={{1}}, to_apply=sum\n"
        ));
    }
    hlo.push_str("  a1 = f32[4]{0} add(r0, r1)\n");
    for i in 2..6 {
        let root = if i == 5 { "ROOT " } else { "" };
        hlo.push_str(&format!(
            "  {root}a{i} = f32[4]{{0}} add(a{}, r{i})\n",
            i - 1
        ));
    }
    hlo.push('}');
    let mut module = crate::pipeline::testing::parse_verified(&hlo);
    let mut pass = pass;
    pass.run(&mut module).unwrap();
    let refused: Vec<FusionRule> = log
        .borrow()
        .iter()
        .filter(|d| !d.fused)
        .map(|d| d.rule.clone())
        .collect();
    assert_eq!(refused, [FusionRule::TooManyReductions { count: 6 }]);
    let original = crate::pipeline::testing::parse_verified(&hlo);
    crate::pipeline::testing::assert_same_results(&original, &module);
}

#[test]
fn softmax_exp_feeding_a_sum_and_a_divide_is_not_duplicated_into_the_sum() {
    let (pass, log) = fusion();
    check_unchanged(
        pass,
        "HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  e = f32[4,8]{1,0} exponential(x)
  c = f32[] parameter(1)
  r = f32[4]{0} reduce(e, c), dimensions={1}, to_apply=sum
  ROOT t = (f32[4]{0}, f32[4,8]{1,0}) tuple(r, e)
}",
    );
    assert_eq!(
        rules(&log, "e", "r"),
        [FusionRule::ReductionWouldDuplicate {
            producer: Opcode::Exp,
            other_users: 1
        }]
    );
}

/// A mean over axis 0: the column sum and its scaling. Of 1 MiB or more, the sum stays a
/// fusion root (the column-reduction kernel streams its rows on every thread); smaller, it
/// is computed inside the multiply's loop.
#[test]
fn large_column_reduction_stays_a_fusion_root() {
    let text = |rows: usize| {
        format!(
            "HloModule m
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
ENTRY main {{
  x = f32[{rows},256]{{1,0}} parameter(0)
  k = f32[256]{{0}} parameter(1)
  c = f32[] constant(0)
  r = f32[256]{{0}} reduce(x, c), dimensions={{0}}, to_apply=add
  ROOT m = f32[256]{{0}} multiply(r, k)
}}"
        )
    };
    let (pass, log) = fusion();
    check_unchanged(pass, &text(1024));
    assert_eq!(
        rules(&log, "r", "m"),
        [FusionRule::ColumnReductionStaysRoot {
            input_bytes: 1 << 20
        }]
    );
    let (mut pass, log) = fusion();
    let mut module = crate::front::hlo_text::parse_module(&text(4), "t")
        .unwrap()
        .module;
    assert!(crate::pipeline::Pass::run(&mut pass, &mut module).unwrap());
    assert_eq!(
        rules(&log, "r", "m"),
        [FusionRule::LoopFusion {
            producer: Opcode::Reduce
        }]
    );
}
