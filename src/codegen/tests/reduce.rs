//! Reductions inside fusions: row, column and full reduces, variadic reduces (argmax),
//! narrow float accumulation, reduce-window with padding, strides and dilations, and map.

use super::harness::{check_hlo, check_hlo_reduction};
use super::{add_reducer, wrap_with};

fn s(x: &str) -> String {
    x.to_string()
}

#[test]
fn row_column_and_full_reductions() {
    let cases = [
        ("f32", "f32[7,33]{1,0}", "f32[7]{0}", "{1}"),
        ("f32", "f32[7,33]{0,1}", "f32[33]{0}", "{0}"),
        ("f64", "f64[4,5,6]{2,1,0}", "f64[]", "{0,1,2}"),
        ("s32", "s32[4,5,6]{0,2,1}", "s32[5]{0}", "{0,2}"),
        ("bf16", "bf16[3,40]{1,0}", "bf16[3]{0}", "{1}"),
        ("u8", "u8[0,4]{1,0}", "u8[4]{0}", "{0}"),
        ("f32", "f32[3,0]{1,0}", "f32[3]{0}", "{1}"),
        ("f32", "f32[2,3000]{1,0}", "f32[2]{0}", "{1}"),
    ];
    for (k, (t, input, result, dims)) in cases.iter().enumerate() {
        let text = wrap_with(
            &add_reducer(t),
            &[s(input), format!("{t}[]")],
            result,
            &format!("reduce(p0, p1), dimensions={dims}, to_apply=add_{t}"),
            "kInput",
        );
        check_hlo_reduction(&text, 3000 + k as u64);
    }
}

#[test]
fn variadic_reduce_argmax() {
    let reducer = "argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  eq = pred[] compare(v0, v1), direction=EQ
  lt = pred[] compare(i0, i1), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, v0, v1)
  i = s32[] select(keep, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
";
    let text = format!(
        "HloModule m\n\n{reducer}\nfused {{
  p0 = f32[5,9]{{1,0}} parameter(0)
  iota = s32[5,9]{{1,0}} iota(), iota_dimension=1
  init = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[5]{{0}}, s32[5]{{0}}) reduce(p0, iota, init, zero), dimensions={{1}}, to_apply=argmax
}}

ENTRY main {{
  a0 = f32[5,9]{{1,0}} parameter(0)
  ROOT f = (f32[5]{{0}}, s32[5]{{0}}) fusion(a0), kind=kInput, calls=fused
}}
"
    );
    for seed in 0..3 {
        check_hlo(&text, 3100 + seed);
    }
}

#[test]
fn reduce_window_pools() {
    let max = "max_f32 {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT m = f32[] maximum(x, y)\n}\n";
    let cases = [
        // 3x3 max pool, stride 2, padding 1.
        (
            "f32[1,7,9,2]{3,2,1,0}",
            "f32[1,4,5,2]{3,2,1,0}",
            "window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}",
        ),
        // Window dilation and base dilation.
        (
            "f32[6,5]{0,1}",
            "f32[4,4]{1,0}",
            "window={size=2x2 rhs_dilate=2x1}",
        ),
        (
            "f32[4,3]{1,0}",
            "f32[6,4]{1,0}",
            "window={size=2x2 lhs_dilate=2x2 pad=0_0x1_0}",
        ),
        // Negative padding trims the input.
        (
            "f32[8]{0}",
            "f32[2]{0}",
            "window={size=3 stride=2 pad=-1_-1}",
        ),
    ];
    for (k, (input, result, window)) in cases.iter().enumerate() {
        let text = wrap_with(
            max,
            &[s(input), s("f32[]")],
            result,
            &format!("reduce-window(p0, p1), {window}, to_apply=max_f32"),
            "kLoop",
        );
        check_hlo(&text, 3200 + k as u64);
    }
    // Summing windows of integers.
    let text = wrap_with(
        &add_reducer("s32"),
        &[s("s32[5,5]{1,0}"), s("s32[]")],
        "s32[5,5]{1,0}",
        "reduce-window(p0, p1), window={size=3x3 pad=1_1x1_1}, to_apply=add_s32",
        "kLoop",
    );
    check_hlo(&text, 3210);
}

#[test]
fn map_inlines_its_computation() {
    let f = "fma_like {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  m = f32[] multiply(x, y)\n  ROOT a = f32[] add(m, x)\n}\n";
    let text = wrap_with(
        f,
        &[s("f32[4,6]{0,1}"), s("f32[4,6]{1,0}")],
        "f32[4,6]{1,0}",
        "map(p0, p1), dimensions={0,1}, to_apply=fma_like",
        "kLoop",
    );
    check_hlo(&text, 3300);
}

/// The vectorized row reduction: a max reducer over a vector-computed input (exp of the
/// input minus a broadcast column) with a scalar tail, in f32 and f64.
#[test]
fn vector_row_reduce_with_max_and_broadcast_input() {
    for (k, t) in ["f32", "f64"].iter().enumerate() {
        let text = format!(
            "HloModule m

max_{t} {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT m = {t}[] maximum(a, b)
}}

fused {{
  p0 = {t}[6,45]{{1,0}} parameter(0)
  p1 = {t}[6]{{0}} parameter(1)
  bc = {t}[6,45]{{1,0}} broadcast(p1), dimensions={{0}}
  d = {t}[6,45]{{1,0}} subtract(p0, bc)
  e = {t}[6,45]{{1,0}} exponential(d)
  init = {t}[] constant(-inf)
  ROOT r = {t}[6]{{0}} reduce(e, init), dimensions={{1}}, to_apply=max_{t}
}}

ENTRY main {{
  a0 = {t}[6,45]{{1,0}} parameter(0)
  a1 = {t}[6]{{0}} parameter(1)
  ROOT f = {t}[6]{{0}} fusion(a0, a1), kind=kInput, calls=fused
}}
"
        );
        check_hlo_reduction(&text, 3100 + k as u64);
    }
}

/// Vectorized row maxima and minima on data with NaN (in about half the rows, in the vector
/// part and in the scalar tail), infinities and signed zeros: the loop keeps NaNs out of its
/// accumulators and in a lane mask, and must still return NaN exactly where the
/// interpreter does (and the interpreter's value elsewhere: max and min do not round).
#[test]
fn vector_row_max_and_min_propagate_nan() {
    for (k, (t, n)) in [("f32", 70), ("f64", 37)].iter().enumerate() {
        for (op, init) in [("maximum", "-inf"), ("minimum", "inf")] {
            let text = format!(
                "HloModule m

r_{t} {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT m = {t}[] {op}(a, b)
}}

fused {{
  p0 = {t}[40,{n}]{{1,0}} parameter(0)
  init = {t}[] constant({init})
  ROOT r = {t}[40]{{0}} reduce(p0, init), dimensions={{1}}, to_apply=r_{t}
}}

ENTRY main {{
  a0 = {t}[40,{n}]{{1,0}} parameter(0)
  ROOT f = {t}[40]{{0}} fusion(a0), kind=kInput, calls=fused
}}
"
            );
            for seed in 0..3 {
                check_hlo(&text, 3150 + 10 * k as u64 + seed);
            }
        }
    }
}

/// The column-reduction emitter (`column_reduce.rs`): the kept minor dimension in vectors
/// with unrolled, single-vector and scalar tails, several column blocks, kept major
/// dimensions, several and permuted reduced dimensions, zero rows, one row.
#[test]
fn column_reductions() {
    let cases = [
        ("f32", "f32[37,45]{1,0}", "f32[45]{0}", "{0}"),
        ("f32", "f32[5,3001]{1,0}", "f32[3001]{0}", "{0}"),
        ("f64", "f64[4,7,9]{2,1,0}", "f64[9]{0}", "{0,1}"),
        ("f64", "f64[3,1030]{1,0}", "f64[1030]{0}", "{0}"),
        ("f32", "f32[6,5,18]{2,1,0}", "f32[6,18]{1,0}", "{1}"),
        ("f32", "f32[6,5,18]{2,1,0}", "f32[6,18]{0,1}", "{1}"),
        ("f32", "f32[3,8,10]{2,0,1}", "f32[8,10]{1,0}", "{0}"),
        ("f32", "f32[0,8]{1,0}", "f32[8]{0}", "{0}"),
        ("f32", "f32[1,4]{1,0}", "f32[4]{0}", "{0}"),
        ("f32", "f32[9,3]{1,0}", "f32[3]{0}", "{0}"),
    ];
    for (k, (t, input, result, dims)) in cases.iter().enumerate() {
        let text = wrap_with(
            &add_reducer(t),
            &[s(input), format!("{t}[]")],
            result,
            &format!("reduce(p0, p1), dimensions={dims}, to_apply=add_{t}"),
            "kInput",
        );
        check_hlo_reduction(&text, 3400 + k as u64);
    }
}

/// Column reductions in row chunks (more than `CHUNK_BYTES` of input per column block):
/// two phases, partial rows in scratch, a last chunk shorter than the others and chunks
/// whose rows are not a multiple of `ROW_UNROLL`, vector and scalar column tails, two
/// column blocks per row, a kept major dimension, several reduced dimensions (batch norm's
/// `[B,H,W,C]` over `B,H,W`), f32 and f64.
#[test]
fn column_reductions_in_row_chunks() {
    let cases = [
        ("f32", "f32[300,1000]{1,0}", "f32[1000]{0}", "{0}"),
        ("f32", "f32[531,1001]{1,0}", "f32[1001]{0}", "{0}"),
        ("f64", "f64[200,701]{1,0}", "f64[701]{0}", "{0}"),
        ("f32", "f32[70,5003]{1,0}", "f32[5003]{0}", "{0}"),
        ("f32", "f32[3,400,700]{2,1,0}", "f32[3,700]{1,0}", "{1}"),
        ("f32", "f32[5,70,9,131]{3,2,1,0}", "f32[131]{0}", "{0,1,2}"),
        ("f64", "f64[4,66,7,77]{3,2,1,0}", "f64[77]{0}", "{0,1,2}"),
        ("f32", "f32[3,50000,6]{2,0,1}", "f32[3,6]{1,0}", "{1}"),
    ];
    for (k, (t, input, result, dims)) in cases.iter().enumerate() {
        let text = wrap_with(
            &add_reducer(t),
            &[s(input), format!("{t}[]")],
            result,
            &format!("reduce(p0, p1), dimensions={dims}, to_apply=add_{t}"),
            "kInput",
        );
        check_hlo_reduction(&text, 3600 + k as u64);
    }
}

/// A column max in row chunks over a fused input with NaN, infinities and signed zeros: a
/// max of partial maxima is the max of the column, NaN wherever the column has one.
#[test]
fn column_max_in_row_chunks_with_special_values() {
    for (k, (t, rows, cols)) in [("f32", 700, 523), ("f64", 400, 389)].iter().enumerate() {
        let text = format!(
            "HloModule m

max_{t} {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT m = {t}[] maximum(a, b)
}}

fused {{
  p0 = {t}[{rows},{cols}]{{1,0}} parameter(0)
  p1 = {t}[{cols}]{{0}} parameter(1)
  bc = {t}[{rows},{cols}]{{1,0}} broadcast(p1), dimensions={{1}}
  m = {t}[{rows},{cols}]{{1,0}} multiply(p0, bc)
  init = {t}[] constant(-inf)
  ROOT r = {t}[{cols}]{{0}} reduce(m, init), dimensions={{0}}, to_apply=max_{t}
}}

ENTRY main {{
  a0 = {t}[{rows},{cols}]{{1,0}} parameter(0)
  a1 = {t}[{cols}]{{0}} parameter(1)
  ROOT f = {t}[{cols}]{{0}} fusion(a0, a1), kind=kInput, calls=fused
}}
"
        );
        for seed in 0..2 {
            check_hlo(&text, 3700 + 10 * k as u64 + seed);
        }
    }
}

/// A column max over a fused input (a product with a broadcast row), with NaN, infinities
/// and signed zeros in the data: each column keeps the interpreter's order, so the result
/// matches within ULPs.
#[test]
fn column_max_of_fused_input_with_special_values() {
    for (k, t) in ["f32", "f64"].iter().enumerate() {
        let text = format!(
            "HloModule m

max_{t} {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT m = {t}[] maximum(a, b)
}}

fused {{
  p0 = {t}[11,23]{{1,0}} parameter(0)
  p1 = {t}[23]{{0}} parameter(1)
  bc = {t}[11,23]{{1,0}} broadcast(p1), dimensions={{1}}
  m = {t}[11,23]{{1,0}} multiply(p0, bc)
  init = {t}[] constant(-inf)
  ROOT r = {t}[23]{{0}} reduce(m, init), dimensions={{0}}, to_apply=max_{t}
}}

ENTRY main {{
  a0 = {t}[11,23]{{1,0}} parameter(0)
  a1 = {t}[23]{{0}} parameter(1)
  ROOT f = {t}[23]{{0}} fusion(a0, a1), kind=kInput, calls=fused
}}
"
        );
        for seed in 0..3 {
            check_hlo(&text, 3500 + 10 * k as u64 + seed);
        }
    }
}

/// Vectorized pooling (`vector_window.rs`): NHWC windows over the spatial dimensions with
/// a fused bias + relu input, padding, odd feature counts (scalar tails), f64, and a sum.
#[test]
fn vector_pooling_over_fused_inputs() {
    let cases = [
        (
            "f32",
            "maximum",
            "[2,8,6,13]",
            "[2,4,3,13]",
            "size=1x2x2x1 stride=1x2x2x1",
        ),
        (
            "f32",
            "maximum",
            "[1,7,9,8]",
            "[1,4,5,8]",
            "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0",
        ),
        ("f64", "maximum", "[1,5,5,6]", "[1,4,4,6]", "size=1x2x2x1"),
        (
            "f32",
            "add",
            "[2,6,6,9]",
            "[2,3,3,9]",
            "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_0x1_0x0_0",
        ),
    ];
    for (k, (t, op, input, result, window)) in cases.iter().enumerate() {
        let c = input
            .trim_matches(|ch| ch == '[' || ch == ']')
            .rsplit(',')
            .next()
            .unwrap();
        let init = if *op == "add" { "0" } else { "-inf" };
        let text = format!(
            "HloModule m

r_{t} {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT m = {t}[] {op}(a, b)
}}

fused {{
  p0 = {t}{input}{{3,2,1,0}} parameter(0)
  p1 = {t}[{c}]{{0}} parameter(1)
  bc = {t}{input}{{3,2,1,0}} broadcast(p1), dimensions={{3}}
  s = {t}{input}{{3,2,1,0}} add(p0, bc)
  z = {t}[] constant(0)
  zb = {t}{input}{{3,2,1,0}} broadcast(z), dimensions={{}}
  relu = {t}{input}{{3,2,1,0}} maximum(s, zb)
  init = {t}[] constant({init})
  ROOT r = {t}{result}{{3,2,1,0}} reduce-window(relu, init), window={{{window}}}, to_apply=r_{t}
}}

ENTRY main {{
  a0 = {t}{input}{{3,2,1,0}} parameter(0)
  a1 = {t}[{c}]{{0}} parameter(1)
  ROOT f = {t}{result}{{3,2,1,0}} fusion(a0, a1), kind=kLoop, calls=fused
}}
"
        );
        if *op == "add" {
            check_hlo_reduction(&text, 3600 + k as u64);
        } else {
            check_hlo(&text, 3600 + k as u64);
        }
    }
}
