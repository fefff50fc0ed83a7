//! Tests of `constant_folding.rs`.

use super::*;
use crate::pipeline::testing::{check_pass, check_unchanged};

#[test]
fn folds_arithmetic_on_constants() {
    check_pass(
        ConstantFolding,
        "
HloModule m
ENTRY main {
  p = f32[2]{0} parameter(0)
  a = f32[2]{0} constant({1.5, -2})
  b = f32[2]{0} constant({0.5, 4})
  s = f32[2]{0} add(a, b)
  m = f32[2]{0} multiply(s, s)
  ROOT r = f32[2]{0} add(p, m)
}",
        "
HloModule m
ENTRY main {
  p = f32[2]{0} parameter(0)
  constant.1 = f32[2]{0} constant({4, 4})
  ROOT r = f32[2]{0} add(p, constant.1)
}",
    );
}

#[test]
fn folds_with_an_iota_operand_and_keeps_the_layout() {
    // iota + 1 over s32[2,3]{0,1} is logically [[1,2,3],[1,2,3]], stored
    // column-major; the broadcast of 10 alone is not folded.
    check_pass(
        ConstantFolding,
        "
HloModule m
ENTRY main {
  ten = s32[] constant(10)
  b = s32[2,3]{0,1} broadcast(ten), dimensions={}
  i = s32[2,3]{0,1} iota(), iota_dimension=1
  one = s32[2,3]{0,1} constant({ {1, 1, 1}, {1, 1, 1} })
  a = s32[2,3]{0,1} add(i, one)
  ROOT r = (s32[2,3]{0,1}, s32[2,3]{0,1}) tuple(a, b)
}",
        "
HloModule m
ENTRY main {
  ten = s32[] constant(10)
  b = s32[2,3]{0,1} broadcast(ten), dimensions={}
  constant = s32[2,3]{0,1} constant({ {1, 2, 3}, {1, 2, 3} })
  ROOT r = (s32[2,3]{0,1}, s32[2,3]{0,1}) tuple(constant, b)
}",
    );
}

#[test]
fn folds_a_reduce() {
    check_pass(
        ConstantFolding,
        "
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  c = f32[3]{0} constant({1, 2, 3.5})
  z = f32[] constant(0)
  ROOT r = f32[] reduce(c, z), dimensions={0}, to_apply=add
}",
        "
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  ROOT constant = f32[] constant(6.5)
}",
    );
}

#[test]
fn keeps_denormals_as_xla_does() {
    // 1e-30 * 1e-12 = 1e-42 is a denormal. XLA folds with its HloEvaluator, which keeps it
    // (jax 0.10.2 on CPU: the optimized module holds `f32[] constant(1.00053e-42)` and the
    // program returns 1e-42), although XLA:CPU's kernels would flush it at run time. So the
    // folded module equals the original run without flushing, not the default interpreter.
    let before = crate::pipeline::testing::parse_verified(
        "
HloModule m
ENTRY main {
  t = f32[] constant(1e-30)
  h = f32[] constant(1e-12)
  ROOT d = f32[] multiply(t, h)
}",
    );
    let mut after = before.clone();
    assert!(ConstantFolding.run(&mut after).unwrap());
    let text = after.to_string();
    assert!(text.contains("f32[] constant(1.00053e-42)"), "{text}");
    let keep = crate::eval::EvalOptions {
        flush_denormals: false,
        ..Default::default()
    };
    let run = |m: &Module, o: &crate::eval::EvalOptions| crate::eval::evaluate(m, &[], o).unwrap();
    assert_eq!(run(&after, &keep), run(&before, &keep));
    assert_ne!(
        run(&after, &Default::default()),
        run(&before, &Default::default())
    );
}

#[test]
fn keeps_denormals_on_a_thread_that_flushes_them() {
    // jaxlib compiles on thread-pool workers that run with FTZ and DAZ set; the fold must not
    // take the thread's mode (jnp.spacing of a bf16 zero is this denormal on XLA:CPU).
    use crate::ir::denormal_mode::{DenormalMode, with_denormal_mode};
    let mut module = crate::pipeline::testing::parse_verified(
        "
HloModule m
ENTRY main {
  t = f32[] constant(1e-30)
  h = f32[] constant(1e-12)
  ROOT d = f32[] multiply(t, h)
}",
    );
    with_denormal_mode(DenormalMode::Flush, || {
        assert!(ConstantFolding.run(&mut module).unwrap());
    });
    let text = module.to_string();
    assert!(text.contains("f32[] constant(1.00053e-42)"), "{text}");
}

#[test]
fn does_not_fold_broadcast_iota_or_ops_of_only_broadcasts() {
    check_unchanged(
        ConstantFolding,
        "
HloModule m
ENTRY main {
  c = f32[] constant(2)
  b = f32[16]{0} broadcast(c), dimensions={}
  i = f32[16]{0} iota(), iota_dimension=0
  e = f32[16]{0} exponential(b)
  m = f32[16]{0} multiply(b, i)
  ROOT t = (f32[16]{0}, f32[16]{0}) tuple(e, m)
}",
    );
}

#[test]
fn does_not_fold_parameters_rng_or_large_results() {
    check_unchanged(
        ConstantFolding,
        "
HloModule m
ENTRY main {
  p = f32[] parameter(0)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[4]{0} rng(lo, hi), distribution=rng_uniform
  s = f32[] add(p, lo)
  big = f32[2048]{0} broadcast(hi), dimensions={}
  two = f32[2048]{0} broadcast(lo), dimensions={}
  c = f32[1]{0} constant({3})
  pad = f32[4096]{0} pad(c, hi), padding=0_4095
  ROOT t = (f32[4]{0}, f32[], f32[2048]{0}, f32[2048]{0}, f32[4096]{0}) tuple(r, s, big, two, pad)
}",
    );
}

#[test]
fn does_not_fold_while_loops() {
    check_unchanged(
        ConstantFolding,
        "
HloModule m
cond {
  s = s32[] parameter(0)
  n = s32[] constant(5)
  ROOT lt = pred[] compare(s, n), direction=LT
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT a = s32[] add(s, one)
}
ENTRY main {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=body
}",
    );
}
