//! Data movement inside fusions: broadcast, transpose, reshape, bitcast, slice, reverse,
//! pad, concatenate, iota, dynamic-slice, dynamic-update-slice, gather; with layouts that
//! are not row-major, size-0 and size-1 dimensions, and out-of-range dynamic indices.

use super::harness::{check_hlo, check_hlo_with};
use super::wrap;
use crate::ir::{ArrayLiteral, Literal};

fn s(x: &str) -> String {
    x.to_string()
}

#[test]
fn broadcast_transpose_reverse() {
    let cases = [
        (
            vec![s("f32[3]{0}")],
            "f32[3,4]{0,1}",
            "broadcast(p0), dimensions={0}",
        ),
        (
            vec![s("f32[]")],
            "f32[2,3]{1,0}",
            "broadcast(p0), dimensions={}",
        ),
        (
            vec![s("s8[2,3]{0,1}")],
            "s8[3,5,2]{1,2,0}",
            "broadcast(p0), dimensions={2,0}",
        ),
        (
            vec![s("f32[3,4,5]{2,1,0}")],
            "f32[5,3,4]{0,2,1}",
            "transpose(p0), dimensions={2,0,1}",
        ),
        (
            vec![s("u16[7,9]{0,1}")],
            "u16[9,7]{1,0}",
            "transpose(p0), dimensions={1,0}",
        ),
        (
            vec![s("f64[4,0,3]{2,1,0}")],
            "f64[3,0,4]{2,1,0}",
            "transpose(p0), dimensions={2,1,0}",
        ),
        (
            vec![s("bf16[5,6]{0,1}")],
            "bf16[5,6]{1,0}",
            "reverse(p0), dimensions={0,1}",
        ),
        (
            vec![s("pred[5,6]{1,0}")],
            "pred[5,6]{1,0}",
            "reverse(p0), dimensions={1}",
        ),
    ];
    for (k, (params, result, body)) in cases.iter().enumerate() {
        check_hlo(&wrap(params, result, body), 2000 + k as u64);
    }
}

#[test]
fn reshape_and_bitcast_keep_logical_and_physical_order() {
    let cases = [
        (vec![s("f32[6,4]{1,0}")], "f32[2,3,4]{2,1,0}", "reshape(p0)"),
        (vec![s("f32[6,4]{0,1}")], "f32[24]{0}", "reshape(p0)"),
        (vec![s("s32[1,5,1]{2,1,0}")], "s32[5]{0}", "reshape(p0)"),
        (vec![s("s32[5]{0}")], "s32[5,1]{0,1}", "reshape(p0)"),
        (
            vec![s("f32[3,4,5]{0,1,2}")],
            "f32[4,15]{0,1}",
            "reshape(p0)",
        ),
        (vec![s("f64[0,3]{1,0}")], "f64[3,0]{1,0}", "reshape(p0)"),
        (vec![s("f32[]")], "f32[1,1]{1,0}", "reshape(p0)"),
        // bitcast: the same bytes seen with another shape (here a logical transpose).
        (vec![s("f32[4,6]{0,1}")], "f32[6,4]{1,0}", "bitcast(p0)"),
        (vec![s("u8[2,3,4]{2,1,0}")], "u8[6,4]{1,0}", "bitcast(p0)"),
    ];
    for (k, (params, result, body)) in cases.iter().enumerate() {
        check_hlo(&wrap(params, result, body), 2100 + k as u64);
    }
}

#[test]
fn slice_pad_concatenate_iota() {
    let cases = [
        (
            vec![s("f32[10,9]{0,1}")],
            "f32[3,4]{1,0}",
            "slice(p0), slice={[1:8:3], [0:9:2]}",
        ),
        (
            vec![s("s64[10]{0}")],
            "s64[0]{0}",
            "slice(p0), slice={[4:4]}",
        ),
        (
            vec![s("f32[4,5]{1,0}"), s("f32[]")],
            "f32[8,13]{0,1}",
            "pad(p0, p1), padding=1_2_1x-1_3_2",
        ),
        (
            vec![s("bf16[3]{0}"), s("bf16[]")],
            "bf16[1]{0}",
            "pad(p0, p1), padding=-1_-1",
        ),
        (
            vec![s("s8[0,2]{1,0}"), s("s8[]")],
            "s8[2,4]{1,0}",
            "pad(p0, p1), padding=1_1x1_1",
        ),
        (
            vec![s("f32[2,3]{1,0}"), s("f32[2,0]{1,0}"), s("f32[2,4]{0,1}")],
            "f32[2,7]{1,0}",
            "concatenate(p0, p1, p2), dimensions={1}",
        ),
        (
            vec![s("u32[1,3]{1,0}"), s("u32[4,3]{1,0}")],
            "u32[5,3]{0,1}",
            "concatenate(p0, p1), dimensions={0}",
        ),
        (vec![], "s32[4,5]{0,1}", "iota(), iota_dimension=1"),
        (vec![], "f32[3,7]{1,0}", "iota(), iota_dimension=0"),
        (vec![], "bf16[300]{0}", "iota(), iota_dimension=0"),
        (vec![], "u8[300]{0}", "iota(), iota_dimension=0"),
    ];
    for (k, (params, result, body)) in cases.iter().enumerate() {
        check_hlo(&wrap(params, result, body), 2200 + k as u64);
    }
}

fn scalar_s32(v: i32) -> Option<Literal> {
    Some(Literal::Array(ArrayLiteral::scalar(v)))
}

#[test]
fn dynamic_slice_clamps_its_start() {
    for (k, (i, j)) in [(0, 0), (2, 3), (-5, 100), (7, -1), (i32::MIN, i32::MAX)]
        .iter()
        .enumerate()
    {
        let text = wrap(
            &[s("f32[6,8]{0,1}"), s("s32[]"), s("s32[]")],
            "f32[3,4]{1,0}",
            "dynamic-slice(p0, p1, p2), dynamic_slice_sizes={3,4}",
        );
        check_hlo_with(
            &text,
            2300 + k as u64,
            &[None, scalar_s32(*i), scalar_s32(*j)],
        );
    }
    // Unsigned start indices: random, mostly out of range.
    let text = wrap(
        &[s("s16[5,5]{1,0}"), s("u8[]"), s("u64[]")],
        "s16[2,5]{1,0}",
        "dynamic-slice(p0, p1, p2), dynamic_slice_sizes={2,5}",
    );
    for seed in 0..4 {
        check_hlo(&text, 2310 + seed);
    }
}

#[test]
fn dynamic_update_slice_in_place_and_fused() {
    for (k, (i, j)) in [(0, 0), (3, 1), (-2, 9), (100, 100)].iter().enumerate() {
        // Root DUS on a parameter: in place, writes only the window.
        let text = wrap(
            &[
                s("f32[6,5]{1,0}"),
                s("f32[2,3]{1,0}"),
                s("s32[]"),
                s("s32[]"),
            ],
            "f32[6,5]{1,0}",
            "dynamic-update-slice(p0, p1, p2, p3)",
        );
        check_hlo_with(
            &text,
            2400 + k as u64,
            &[None, None, scalar_s32(*i), scalar_s32(*j)],
        );
        // The same with a column-major buffer.
        let text = wrap(
            &[
                s("s32[6,5]{0,1}"),
                s("s32[2,3]{1,0}"),
                s("s32[]"),
                s("s32[]"),
            ],
            "s32[6,5]{0,1}",
            "dynamic-update-slice(p0, p1, p2, p3)",
        );
        check_hlo_with(
            &text,
            2410 + k as u64,
            &[None, None, scalar_s32(*i), scalar_s32(*j)],
        );
    }
    // A DUS that is not the root is read as an element.
    let text = "HloModule m

fused {
  p0 = f32[6,5]{1,0} parameter(0)
  p1 = f32[2,3]{1,0} parameter(1)
  p2 = s32[] parameter(2)
  dus = f32[6,5]{1,0} dynamic-update-slice(p0, p1, p2, p2)
  ROOT n = f32[6,5]{0,1} negate(dus)
}

ENTRY main {
  a0 = f32[6,5]{1,0} parameter(0)
  a1 = f32[2,3]{1,0} parameter(1)
  a2 = s32[] parameter(2)
  ROOT f = f32[6,5]{0,1} fusion(a0, a1, a2), kind=kLoop, calls=fused
}
";
    for (k, i) in [1, 4, -3].iter().enumerate() {
        check_hlo_with(text, 2420 + k as u64, &[None, None, scalar_s32(*i)]);
    }
}

#[test]
fn gather_clamps_indices() {
    // Embedding lookup: rows of a table by index, indices out of range clamp.
    let text = wrap(
        &[s("f32[10,4]{1,0}"), s("s32[5]{0}")],
        "f32[5,4]{1,0}",
        "gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}",
    );
    for seed in 0..4 {
        check_hlo(&text, 2500 + seed);
    }
    // Two-component index vectors taking 2x2 windows.
    let text = wrap(
        &[s("s32[6,7]{0,1}"), s("s64[3,2]{1,0}")],
        "s32[3,2,2]{2,1,0}",
        "gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,2}",
    );
    for seed in 0..4 {
        check_hlo(&text, 2510 + seed);
    }
    // Batching dims: operand dim 0 pairs with indices dim 0.
    let text = wrap(
        &[s("f32[3,8]{1,0}"), s("u32[3,2,1]{2,1,0}")],
        "f32[3,2]{1,0}",
        "gather(p0, p1), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, index_vector_dim=2, operand_batching_dims={0}, start_indices_batching_dims={0}, slice_sizes={1,1}",
    );
    for seed in 0..4 {
        check_hlo(&text, 2520 + seed);
    }
}

/// Tiled loop fusions (`tiled_loops.rs`): an operand read across the output's layout,
/// with sizes that are not multiples of the tile, a third dimension, a broadcast row,
/// integers, and dimensions too small to tile.
#[test]
fn tiled_loops_for_operands_read_across_the_layout() {
    let cases = [
        (
            vec![s("f32[45,70]{1,0}"), s("f32[70,45]{1,0}")],
            "f32[70,45]{0,1}",
            "add(transpose(p0), p1), dimensions={1,0}",
        ),
        (
            vec![s("f32[3,33,40]{2,1,0}"), s("f32[3,33,40]{1,2,0}")],
            "f32[3,33,40]{1,2,0}",
            "add(p0, p1)",
        ),
        (
            vec![s("s32[65,31]{1,0}"), s("s32[65,31]{0,1}")],
            "s32[65,31]{0,1}",
            "multiply(p0, p1)",
        ),
        (
            vec![s("f64[1,37]{1,0}"), s("f64[1,37]{0,1}")],
            "f64[1,37]{0,1}",
            "subtract(p0, p1)",
        ),
        (
            vec![s("f32[40,50]{0,1}"), s("f32[50]{0}")],
            "f32[40,50]{0,1}",
            "multiply(p0, broadcast(p1), dimensions={1})",
        ),
    ];
    for (k, (params, result, body)) in cases.iter().enumerate() {
        // The body's nested ops are spelled out as separate instructions below.
        let text = tiled_case(params, result, body);
        check_hlo(&text, 2900 + k as u64);
    }
}

/// A module for one tiled case: `op(a, b)` where `a`/`b` may be wrapped in a transpose
/// (dimensions `{1,0}`) or a broadcast (dimensions `{1}`) as `body` says.
fn tiled_case(params: &[String], result: &str, body: &str) -> String {
    let op = body.split('(').next().unwrap();
    let t = &result[..result.find('[').unwrap()];
    let dims = &result[result.find('[').unwrap()..result.find(']').unwrap() + 1];
    let (a, extra) = if body.contains("transpose(p0)") {
        (
            "tr".to_string(),
            format!("  tr = {t}{dims}{{1,0}} transpose(p0), dimensions={{1,0}}\n"),
        )
    } else {
        ("p0".to_string(), String::new())
    };
    let (b, extra2) = if body.contains("broadcast(p1)") {
        (
            "bc".to_string(),
            format!("  bc = {t}{dims}{{1,0}} broadcast(p1), dimensions={{1}}\n"),
        )
    } else {
        ("p1".to_string(), String::new())
    };
    let mut fused = String::new();
    let mut entry = String::new();
    for (i, p) in params.iter().enumerate() {
        fused.push_str(&format!("  p{i} = {p} parameter({i})\n"));
        entry.push_str(&format!("  a{i} = {p} parameter({i})\n"));
    }
    format!(
        "HloModule m\n\nfused {{\n{fused}{extra}{extra2}  ROOT r = {result} {op}({a}, {b})\n}}\n\nENTRY main {{\n{entry}  ROOT f = {result} fusion(a0, a1), kind=kLoop, calls=fused\n}}\n"
    )
}

/// The CLIF (before optimization) of the kernel compiled from `text`.
fn kernel_clif(text: &str) -> String {
    let module = crate::front::hlo_text::parse_module(text, "t")
        .unwrap()
        .module;
    let options = crate::codegen::CodegenOptions {
        keep_artifacts: true,
        ..Default::default()
    };
    let mut set = crate::codegen::compile_kernels(&module, &options).unwrap();
    set.kernels.swap_remove(0).artifacts.clif_no_opt
}

#[test]
fn a_scans_dynamic_slices_and_in_place_updates_are_vectors() {
    // `xs[i]` read and `ys[i] = f(...)` written by a scan body, with a dynamic start
    // along the vector too (clamped: starts out of range on both sides), rows of 33 and
    // 9 elements so the vector loops end in a scalar tail. A wrong start, shift or tail
    // writes or reads the wrong elements; the interpreter is the reference.
    for (t, lanes, n, w) in [("f32", "f32x4", 37, 33), ("f64", "f64x2", 12, 9)] {
        let read = format!(
            "HloModule m

fused {{
  p0 = {t}[7,3,{n}]{{2,1,0}} parameter(0)
  p1 = s32[] parameter(1)
  p2 = s32[] parameter(2)
  z = s32[] constant(0)
  ds = {t}[1,3,{w}]{{2,1,0}} dynamic-slice(p0, p1, z, p2), dynamic_slice_sizes={{1,3,{w}}}
  ROOT r = {t}[1,3,{w}]{{2,1,0}} multiply(ds, ds)
}}

ENTRY main {{
  a0 = {t}[7,3,{n}]{{2,1,0}} parameter(0)
  a1 = s32[] parameter(1)
  a2 = s32[] parameter(2)
  ROOT f = {t}[1,3,{w}]{{2,1,0}} fusion(a0, a1, a2), kind=kLoop, calls=fused
}}
"
        );
        let write = format!(
            "HloModule m

fused {{
  p0 = {t}[7,3,{n}]{{2,1,0}} parameter(0)
  p1 = {t}[1,3,{w}]{{2,1,0}} parameter(1)
  p2 = s32[] parameter(2)
  p3 = s32[] parameter(3)
  z = s32[] constant(0)
  u = {t}[1,3,{w}]{{2,1,0}} negate(p1)
  ROOT r = {t}[7,3,{n}]{{2,1,0}} dynamic-update-slice(p0, u, p2, z, p3)
}}

ENTRY main {{
  a0 = {t}[7,3,{n}]{{2,1,0}} parameter(0)
  a1 = {t}[1,3,{w}]{{2,1,0}} parameter(1)
  a2 = s32[] parameter(2)
  a3 = s32[] parameter(3)
  ROOT f = {t}[7,3,{n}]{{2,1,0}} fusion(a0, a1, a2, a3), kind=kLoop, calls=fused
}}
"
        );
        for (k, (i, j)) in [(0, 0), (3, 2), (9, -1), (6, 100)].iter().enumerate() {
            let seed = 2600 + k as u64;
            check_hlo_with(&read, seed, &[None, scalar_s32(*i), scalar_s32(*j)]);
            check_hlo_with(&write, seed, &[None, None, scalar_s32(*i), scalar_s32(*j)]);
        }
        for text in [&read, &write] {
            let clif = kernel_clif(text);
            assert!(clif.contains(&format!("load.{lanes}")), "{t}:\n{clif}");
        }
    }
}
