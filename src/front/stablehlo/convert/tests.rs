//! Conversion tests: small StableHLO programs run on the reference interpreter; the
//! expected values are worked out by hand from the StableHLO spec.

use crate::eval::{EvalOptions, evaluate};
use crate::front::stablehlo::parse_chunk;
use crate::ir::verifier::verify;
use crate::ir::{ArrayLiteral, Literal, Module, Op};

fn convert(text: &str) -> Module {
    let m = parse_chunk(text, "t.mlir", 0).unwrap_or_else(|e| panic!("{e}"));
    if let Err(errors) = verify(&m) {
        panic!(
            "verify: {:?}\n{m}",
            errors.iter().map(|e| e.to_string()).collect::<Vec<_>>()
        );
    }
    m
}

fn run(text: &str, args: &[Literal]) -> Literal {
    let m = convert(text);
    evaluate(&m, args, &EvalOptions::default()).unwrap_or_else(|e| panic!("{e}\n{m}"))
}

fn i64s(l: &Literal) -> Vec<i64> {
    l.as_array()
        .and_then(|a| a.values::<i64>())
        .map(<[i64]>::to_vec)
        .unwrap_or_default()
}

#[test]
fn while_threads_captured_values_through_the_state() {
    // sum = 0; for i in 0..step*3 by step: sum += step  ->  (9, 9) with step = 3
    let text = "func.func @main(%step: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
      %c0 = stablehlo.constant dense<0> : tensor<i64>
      %lim = stablehlo.multiply %step, %step : tensor<i64>
      %r0, %r1 = stablehlo.while(%i = %c0, %s = %c0) : tensor<i64>, tensor<i64>
      cond {
        %c = stablehlo.compare LT, %i, %lim : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %i2 = stablehlo.add %i, %step : tensor<i64>
        %s2 = stablehlo.add %s, %step : tensor<i64>
        stablehlo.return %i2, %s2 : tensor<i64>, tensor<i64>
      }
      return %r0, %r1 : tensor<i64>, tensor<i64>
    }";
    let out = run(text, &[ArrayLiteral::scalar(3i64).into()]);
    let t = out.as_tuple().unwrap();
    assert_eq!((i64s(&t[0]), i64s(&t[1])), (vec![9], vec![9]));
}

#[test]
fn case_branches_capture_and_out_of_range_picks_the_last() {
    let text = "func.func @main(%index: tensor<i32>, %x: tensor<2xi64>) -> tensor<2xi64> {
      %one = stablehlo.constant dense<1> : tensor<2xi64>
      %r = \"stablehlo.case\"(%index) ({
        stablehlo.return %x : tensor<2xi64>
      }, {
        %y = stablehlo.add %x, %one : tensor<2xi64>
        stablehlo.return %y : tensor<2xi64>
      }) : (tensor<i32>) -> tensor<2xi64>
      return %r : tensor<2xi64>
    }";
    let x: Literal = ArrayLiteral::from_vec(&[2], vec![10i64, 20]).into();
    for (index, want) in [
        (0i32, vec![10, 20]),
        (1, vec![11, 21]),
        (-1, vec![11, 21]),
        (7, vec![11, 21]),
    ] {
        let out = run(text, &[ArrayLiteral::scalar(index).into(), x.clone()]);
        assert_eq!(i64s(&out), want, "index {index}");
    }
}

#[test]
fn reduce_forms_and_multiple_results() {
    // argmax over [[1, 5], [7, 2]] along dimension 0 with the general reducer form, and a
    // sum with the `applies` form.
    let text = "func.func @main(%x: tensor<2x2xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
      %0 = stablehlo.iota dim = 0 : tensor<2x2xi64>
      %m = stablehlo.constant dense<-100> : tensor<i64>
      %z = stablehlo.constant dense<0> : tensor<i64>
      %1:2 = stablehlo.reduce(%x init: %m), (%0 init: %z) across dimensions = [0] : (tensor<2x2xi64>, tensor<2x2xi64>, tensor<i64>, tensor<i64>) -> (tensor<2xi64>, tensor<2xi64>)
       reducer(%a: tensor<i64>, %b: tensor<i64>) (%ai: tensor<i64>, %bi: tensor<i64>) {
        %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
        %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<i64>
        %i = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i64>
        stablehlo.return %v, %i : tensor<i64>, tensor<i64>
      }
      %2 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x2xi64>, tensor<i64>) -> tensor<2xi64>
      return %1#1, %2 : tensor<2xi64>, tensor<2xi64>
    }";
    let x: Literal = ArrayLiteral::from_vec(&[2, 2], vec![1i64, 5, 7, 2]).into();
    let out = run(text, &[x]);
    let t = out.as_tuple().unwrap();
    assert_eq!(i64s(&t[0]), vec![1, 0]);
    assert_eq!(i64s(&t[1]), vec![6, 9]);
}

#[test]
fn calls_slices_and_generic_form() {
    // slice [1:5:2] of iota(6) is [1, 3]; @twice doubles; the generic add adds 100.
    let text = "module @m {
      func.func private @twice(%a: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
        %0 = stablehlo.add %a, %a : tensor<2xi64>
        func.return %0, %a : tensor<2xi64>, tensor<2xi64>
      }
      func.func @main() -> tensor<2xi64> {
        %0 = stablehlo.iota dim = 0 : tensor<6xi64>
        %1 = stablehlo.slice %0 [1:5:2] : (tensor<6xi64>) -> tensor<2xi64>
        %2:2 = call @twice(%1) : (tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>)
        %c = stablehlo.constant dense<100> : tensor<2xi64>
        %3 = \"stablehlo.add\"(%2#0, %c) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
        return %3 : tensor<2xi64>
      }
    }";
    assert_eq!(i64s(&run(text, &[])), vec![102, 106]);
}

/// How jaxlib's portable artifacts carry CHLO ops: a composite named `chlo.*` whose
/// `composite_attributes` are the op's. The decompositions here compute something else
/// (zeros, or the input) so the test sees which path ran.
#[test]
fn chlo_composites_lower_as_chlo_and_others_call_their_decomposition() {
    let top_k = "module @m {
      func.func private @fake(%x: tensor<4xi64>) -> (tensor<2xi64>, tensor<2xi32>) {
        %0 = stablehlo.constant dense<0> : tensor<2xi64>
        %1 = stablehlo.constant dense<0> : tensor<2xi32>
        return %0, %1 : tensor<2xi64>, tensor<2xi32>
      }
      func.func @main(%x: tensor<4xi64>) -> tensor<2xi64> {
        %0:2 = \"stablehlo.composite\"(%x) <{composite_attributes = {k = 2 : i64}, decomposition = @fake, name = \"chlo.top_k\", version = 1 : i32}> : (tensor<4xi64>) -> (tensor<2xi64>, tensor<2xi32>)
        return %0#0 : tensor<2xi64>
      }
    }";
    let x: Literal = ArrayLiteral::from_vec(&[4], vec![3i64, 9, 1, 7]).into();
    assert_eq!(i64s(&run(top_k, std::slice::from_ref(&x))), vec![9, 7]);
    // A name xlac's CHLO lowering does not know, and a CHLO op on a type it does not
    // lower (complex lgamma): the decomposition is called.
    let unknown = "module @m {
      func.func private @twice(%x: tensor<4xi64>) -> tensor<4xi64> {
        %0 = stablehlo.add %x, %x : tensor<4xi64>
        return %0 : tensor<4xi64>
      }
      func.func @main(%x: tensor<4xi64>) -> tensor<4xi64> {
        %0 = \"stablehlo.composite\"(%x) <{decomposition = @twice, name = \"chlo.not_an_op\", version = 1 : i32}> : (tensor<4xi64>) -> tensor<4xi64>
        return %0 : tensor<4xi64>
      }
    }";
    assert_eq!(i64s(&run(unknown, &[x])), vec![6, 18, 2, 14]);
    let complex = "module @m {
      func.func private @same(%x: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
        return %x : tensor<2xcomplex<f32>>
      }
      func.func @main(%x: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
        %0 = \"stablehlo.composite\"(%x) <{decomposition = @same, name = \"chlo.lgamma\", version = 1 : i32}> : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
        return %0 : tensor<2xcomplex<f32>>
      }
    }";
    let m = convert(complex);
    let entry = m.entry_computation();
    assert!(
        entry.iter().any(|(_, i)| matches!(i.op, Op::Call { .. })),
        "{m}"
    );
    assert_eq!(
        entry.iter().count(),
        2,
        "only the parameter and the call are live: {m}"
    );
}

/// What `jax.jit` lowers for an argument committed to a device: a module-level Shardy mesh
/// and a sharding attribute on the argument. The mesh is skipped, the program runs.
#[test]
fn module_level_shardy_meshes_are_skipped() {
    let text = "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
      sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
      sdy.mesh @mesh = <[\"x\"=2, \"y\"=1]> loc(unknown)
      func.func public @main(%arg0: tensor<2xi64> {sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}) -> (tensor<2xi64> {jax.result_info = \"result\"}) {
        %0 = stablehlo.add %arg0, %arg0 : tensor<2xi64>
        return %0 : tensor<2xi64>
      }
    }";
    let x: Literal = ArrayLiteral::from_vec(&[2], vec![4i64, 5]).into();
    assert_eq!(i64s(&run(text, &[x])), vec![8, 10]);
    let bad = "module {\n  sdy.mesh = <[]>\n}";
    assert!(parse_chunk(bad, "t.mlir", 0).is_err());
}

#[test]
fn broadcast_in_dim_stretches_size_one_dimensions() {
    let text = "func.func @main(%x: tensor<2x1xi64>) -> tensor<2x3xi64> {
      %0 = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x1xi64>) -> tensor<2x3xi64>
      return %0 : tensor<2x3xi64>
    }";
    let x: Literal = ArrayLiteral::from_vec(&[2, 1], vec![4i64, 5]).into();
    assert_eq!(i64s(&run(text, &[x])), vec![4, 4, 4, 5, 5, 5]);
}

#[test]
fn check_ops_become_custom_calls() {
    let text = "func.func @main() {
      %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
      check.expect_almost_eq_const %0, dense<[1.0, 2.5]> : tensor<2xf64> {tolerance = 0.5 : f64}
      check.expect_close %0, %0, max_ulp_difference = 3 : tensor<2xf64>, tensor<2xf64>
      func.return
    }";
    let m = convert(text);
    let comp = m.entry_computation();
    let calls: Vec<_> = comp
        .iter()
        .filter_map(|(_, i)| match &i.op {
            Op::CustomCall(cc) => Some((
                cc.target.clone(),
                cc.literal.is_some(),
                i.backend_config.clone(),
            )),
            _ => None,
        })
        .collect();
    use crate::ir::BackendConfig::Json;
    assert_eq!(
        calls,
        vec![
            (
                "check.expect_almost_eq_const".to_string(),
                true,
                Some(Json("{\"tolerance\": 0.5}".into()))
            ),
            (
                "check.expect_close".to_string(),
                false,
                Some(Json("{\"max_ulp_difference\": 3}".into()))
            ),
        ]
    );
}

#[test]
fn errors_carry_the_chunk_line_offset() {
    let e = parse_chunk(
        "func.func @main() {\n  %0 = stablehlo.nope : tensor<f32>\n  func.return\n}",
        "f.mlir",
        40,
    )
    .unwrap_err();
    assert_eq!((e.line, e.col), (42, 3));
    assert!(
        e.message.contains("unknown op 'stablehlo.nope'"),
        "{}",
        e.message
    );
}

#[test]
fn reducers_may_not_capture_non_constants() {
    let text = "func.func @main(%x: tensor<2xi64>, %y: tensor<i64>) -> tensor<i64> {
      %z = stablehlo.constant dense<0> : tensor<i64>
      %0 = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
       reducer(%a: tensor<i64>, %b: tensor<i64>) {
        %s = stablehlo.add %a, %y : tensor<i64>
        stablehlo.return %s : tensor<i64>
      }
      return %0 : tensor<i64>
    }";
    let e = parse_chunk(text, "t", 0).unwrap_err();
    assert!(
        e.message.contains("uses %y, defined outside it"),
        "{}",
        e.message
    );
}

#[test]
fn every_prefix_and_single_deletion_fails_cleanly() {
    // A program using most syntax classes; no cut or deleted character may panic.
    let text = "module @m attributes {mhlo.num_replicas = 1 : i32} {
      func.func @main(%x: tensor<2x2xi64> {jax.result_info = \"\"}) -> tensor<2xi64> {
        %0 = stablehlo.iota dim = 0 : tensor<2x2xi64>
        %z = stablehlo.constant dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>
        %s = stablehlo.constant dense<0> : tensor<i64>
        %1 = \"stablehlo.add\"(%x, %z) : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
        %2 = stablehlo.reduce(%1 init: %s) applies stablehlo.add across dimensions = [1] : (tensor<2x2xi64>, tensor<i64>) -> tensor<2xi64>
        %3:2 = stablehlo.while(%i = %s, %a = %2) : tensor<i64>, tensor<2xi64>
        cond {
          %c = stablehlo.compare LT, %i, %s, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
          stablehlo.return %c : tensor<i1>
        } do {
          stablehlo.return %i, %a : tensor<i64>, tensor<2xi64>
        }
        return %3#1 : tensor<2xi64>
      }
    }";
    assert!(parse_chunk(text, "t", 0).is_ok());
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for &(i, ch) in &chars {
        let _ = parse_chunk(&text[..i], "t", 0);
        let deleted = format!("{}{}", &text[..i], &text[i + ch.len_utf8()..]);
        let _ = parse_chunk(&deleted, "t", 0);
    }
}

/// `chlo.scan` cumulative sums; expected values from the corpus file
/// `stablehlo-interpret/chlo/scan.mlir` (`scan_cumsum_1d`, `scan_cumsum_reverse`, `scan_cumsum_dim1`).
fn scan_sum(
    input: &str,
    ty: &str,
    carry_ty: &str,
    dim: usize,
    reverse: bool,
) -> (Vec<i64>, Vec<i64>) {
    let attrs = if reverse {
        " attributes {is_reverse = true}"
    } else {
        ""
    };
    let text = format!(
        "func.func @main() -> ({ty}, {carry_ty}) {{
      %input = stablehlo.constant dense<{input}> : {ty}
      %init = stablehlo.constant dense<0> : {carry_ty}
      %0:2 = chlo.scan(%input) inits(%init) dimension={dim}{attrs} {{
      ^bb0(%a: {carry_ty}, %b: {carry_ty}):
        %1 = stablehlo.add %a, %b : {carry_ty}
        stablehlo.return %1, %1 : {carry_ty}, {carry_ty}
      }} : ({ty}, {carry_ty}) -> ({ty}, {carry_ty})
      return %0#0, %0#1 : {ty}, {carry_ty}
    }}"
    );
    let out = run(&text, &[]);
    let t = out.as_tuple().unwrap();
    (i64s(&t[0]), i64s(&t[1]))
}

#[test]
fn scan_prefix_sums_forward_reverse_and_along_dim1() {
    let s = |v: &[i64]| v.to_vec();
    let t = "tensor<4xi64>";
    assert_eq!(
        scan_sum("[1, 2, 3, 4]", t, "tensor<i64>", 0, false),
        (s(&[1, 3, 6, 10]), s(&[10]))
    );
    assert_eq!(
        scan_sum("[1, 2, 3, 4]", t, "tensor<i64>", 0, true),
        (s(&[10, 9, 7, 4]), s(&[10]))
    );
    assert_eq!(
        scan_sum(
            "[[1, 2, 3], [4, 5, 6]]",
            "tensor<2x3xi64>",
            "tensor<2xi64>",
            1,
            false
        ),
        (s(&[1, 3, 6, 4, 9, 15]), s(&[6, 15]))
    );
}

#[test]
fn scan_with_two_inputs_and_two_carries() {
    // Cumulative max with argmax (`scan_cummax` of the corpus file).
    let text = "func.func @main() -> (tensor<5xi64>, tensor<5xi64>, tensor<i64>, tensor<i64>) {
      %input = stablehlo.constant dense<[3, 1, 4, 1, 5]> : tensor<5xi64>
      %iota = stablehlo.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
      %vi = stablehlo.constant dense<-100> : tensor<i64>
      %ii = stablehlo.constant dense<0> : tensor<i64>
      %0:4 = chlo.scan(%input, %iota) inits(%vi, %ii) dimension=0 {
      ^bb0(%cv: tensor<i64>, %ci: tensor<i64>, %rv: tensor<i64>, %ri: tensor<i64>):
        %nv = stablehlo.maximum %rv, %cv : tensor<i64>
        %gt = stablehlo.compare GT, %rv, %cv : (tensor<i64>, tensor<i64>) -> tensor<i1>
        %eq = stablehlo.compare EQ, %rv, %cv : (tensor<i64>, tensor<i64>) -> tensor<i1>
        %mi = stablehlo.maximum %ri, %ci : tensor<i64>
        %t = stablehlo.select %eq, %mi, %ci : tensor<i1>, tensor<i64>
        %ni = stablehlo.select %gt, %ri, %t : tensor<i1>, tensor<i64>
        stablehlo.return %nv, %ni, %nv, %ni : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>
      } : (tensor<5xi64>, tensor<5xi64>, tensor<i64>, tensor<i64>)
          -> (tensor<5xi64>, tensor<5xi64>, tensor<i64>, tensor<i64>)
      return %0#0, %0#1, %0#2, %0#3 : tensor<5xi64>, tensor<5xi64>, tensor<i64>, tensor<i64>
    }";
    let out = run(text, &[]);
    let t = out.as_tuple().unwrap();
    let got: Vec<Vec<i64>> = t.iter().map(i64s).collect();
    assert_eq!(
        got,
        vec![vec![3, 3, 4, 4, 5], vec![0, 0, 2, 2, 4], vec![5], vec![4]]
    );
}

#[test]
fn ragged_dot_multiplies_each_row_group_by_its_rhs() {
    // lhs rows [1,2], [3,4], [5,6]; groups of sizes 2 and 1; rhs[0] = identity,
    // rhs[1] = [[0,1],[1,0]] (swap). Rows 0-1 stay, row 2 is swapped: by hand.
    let text = "func.func @main() -> tensor<3x2xf32> {
      %lhs = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
      %rhs = stablehlo.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]]> : tensor<2x2x2xf32>
      %gs = stablehlo.constant dense<[2, 1]> : tensor<2xi64>
      %r = \"chlo.ragged_dot\"(%lhs, %rhs, %gs) {
        ragged_dot_dimension_numbers = #chlo.ragged_dot<
          lhs_batching_dimensions = [], rhs_batching_dimensions = [],
          lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1],
          lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>,
        precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
      } : (tensor<3x2xf32>, tensor<2x2x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
      return %r : tensor<3x2xf32>
    }";
    let out = run(text, &[]);
    let v = out
        .as_array()
        .and_then(|a| a.values::<f32>())
        .unwrap()
        .to_vec();
    assert_eq!(v, vec![1.0, 2.0, 3.0, 4.0, 6.0, 5.0]);
}

#[test]
fn rng_drops_its_shape_operand() {
    // jax's `lax.rng_uniform` in both printed forms: `rng(a, b)` of the result's shape.
    for line in [
        "%0 = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<2xf32>",
        "%0 = \"stablehlo.rng\"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<2xf32>",
    ] {
        let text = format!(
            "func.func @main() -> tensor<2xf32> {{
              %a = stablehlo.constant dense<0.0> : tensor<f32>
              %b = stablehlo.constant dense<1.0> : tensor<f32>
              %s = stablehlo.constant dense<2> : tensor<1xi64>
              {line}
              func.return %0 : tensor<2xf32>
            }}"
        );
        let m = convert(&text);
        let rngs: Vec<_> = m
            .entry_computation()
            .iter()
            .filter_map(|(_, i)| match &i.op {
                Op::Rng { distribution } => Some((*distribution, i.operands.len())),
                _ => None,
            })
            .collect();
        let want = if line.contains("NORMAL") {
            crate::ir::RandomDistribution::Normal
        } else {
            crate::ir::RandomDistribution::Uniform
        };
        assert_eq!(rngs, vec![(want, 2)], "{line}");
    }
}

#[test]
fn create_token_is_an_after_all_of_nothing() {
    // `jax.lax.create_token()` lowers to the deprecated `stablehlo.create_token`.
    let m = convert(
        "func.func @main(%x: tensor<f32>) -> (!stablehlo.token, tensor<f32>) {
      %t = stablehlo.create_token : !stablehlo.token
      return %t, %x : !stablehlo.token, tensor<f32>
    }",
    );
    let entry = &m.computations[m.entry];
    let tokens: Vec<_> = entry
        .order
        .iter()
        .map(|&i| &entry.instrs[i])
        .filter(|i| i.opcode() == crate::ir::Opcode::AfterAll)
        .collect();
    assert_eq!(tokens.len(), 1, "{m}");
    assert!(tokens[0].operands.is_empty(), "{m}");
    let bad = parse_chunk(
        "func.func @main(%t: !stablehlo.token) -> !stablehlo.token {
      %u = \"stablehlo.create_token\"(%t) : (!stablehlo.token) -> !stablehlo.token
      return %u : !stablehlo.token
    }",
        "t.mlir",
        0,
    );
    let message = bad.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.contains("operand"),
        "create_token takes no operands: {message}"
    );
}
