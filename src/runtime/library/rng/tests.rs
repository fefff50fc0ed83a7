//! The native `rng` against XLA:CPU's results (`src/eval/rng/xla_rng_op.txt`, from
//! `scripts/golden_rng_op.py`) and against the interpreter, bit for bit.

use crate::eval::rng_golden::{bits_as_u64, xla_rng_cases};
use crate::eval::{EvalOptions, evaluate};
use crate::front::hlo_text::parse_module;
use crate::ir::{ArrayLiteral, Literal};
use crate::runtime::tests::build;

#[test]
fn rng_matches_xla_cpu_on_the_compiled_backend() {
    let cases = xla_rng_cases();
    assert_eq!(cases.len(), 11);
    for case in &cases {
        let (_, mut exe) = build(&case.hlo());
        assert!(
            exe.thunk_sequence_text().contains("library rng r (philox"),
            "{}",
            exe.thunk_sequence_text()
        );
        exe.seed = case.seed();
        // Counters restart at every run: both runs are XLA's first execution.
        for _ in 0..2 {
            let got = exe.execute(&[]).unwrap();
            case.assert_matches(got.as_array().unwrap(), &case.first, "compiled");
        }
    }
}

#[test]
fn rng_through_the_whole_compiler_matches_the_interpreter_bit_for_bit() {
    // Two rng ops (different keys), one of them in a while loop whose three iterations see
    // three counters, one bf16 (computed in f32), one s64 on a column-major result.
    let hlo = r#"
HloModule m

body {
  s = (s32[], f32[4,3]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[4,3]{1,0} get-tuple-element(s), index=1
  lo = f32[] constant(-1)
  hi = f32[] constant(1)
  r = f32[4,3]{1,0} rng(lo, hi), distribution=rng_uniform
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  acc1 = f32[4,3]{1,0} subtract(r, acc)
  ROOT t = (s32[], f32[4,3]{1,0}) tuple(i1, acc1)
}

cond {
  s = (s32[], f32[4,3]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

ENTRY main {
  zero = s32[] constant(0)
  init = f32[4,3]{1,0} constant({{0,0,0},{0,0,0},{0,0,0},{0,0,0}})
  s0 = (s32[], f32[4,3]{1,0}) tuple(zero, init)
  w = (s32[], f32[4,3]{1,0}) while(s0), condition=cond, body=body
  acc = f32[4,3]{1,0} get-tuple-element(w), index=1
  a = bf16[] constant(2)
  b = bf16[] constant(3)
  n = bf16[5,2]{1,0} rng(a, b), distribution=rng_normal
  ia = s64[] constant(-40)
  ib = s64[] constant(9000000000)
  k = s64[3,2]{0,1} rng(ia, ib), distribution=rng_uniform
  ROOT out = (f32[4,3]{1,0}, bf16[5,2]{1,0}, s64[3,2]{0,1}) tuple(acc, n, k)
}
"#;
    let module = parse_module(hlo, "rng.hlo").unwrap().module;
    for seed in [0u64, 77] {
        let options = crate::compiler::CompileOptions::default();
        let mut compiled = crate::compiler::compile(module.clone(), &options)
            .unwrap()
            .executable;
        compiled.seed = seed;
        let want = evaluate(
            &module,
            &[],
            &EvalOptions {
                seed,
                ..EvalOptions::default()
            },
        )
        .unwrap();
        let got = compiled.execute(&[]).unwrap();
        let (g, w) = (got.leaves(), want.leaves());
        assert_eq!(g.len(), 3);
        for (g, w) in g.iter().zip(&w) {
            assert_eq!(
                bits_as_u64(&row_major(g)),
                bits_as_u64(&row_major(w)),
                "seed {seed}"
            );
        }
        // r3 - r2 + r1 of three draws in [-1, 1).
        let acc = g[0].values::<f32>().unwrap();
        assert!(acc.iter().all(|x| x.abs() <= 3.0));
    }
}

fn row_major(x: &ArrayLiteral) -> ArrayLiteral {
    match crate::eval::to_row_major(&Literal::Array(x.clone())) {
        Literal::Array(a) => a,
        _ => unreachable!(),
    }
}
