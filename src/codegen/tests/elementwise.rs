//! Elementwise opcodes × element types × shapes.

use super::harness::check_hlo;
use super::{SHAPES, shape, wrap};

const FLOATS: &[&str] = &["f32", "f64", "bf16", "f16"];
const INTS: &[&str] = &["s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"];

fn unary(ops: &[&str], types: &[&str], result_type: Option<&str>) {
    let mut seed = 1;
    for op in ops {
        for t in types {
            for k in 0..3 {
                let s = SHAPES[(seed as usize + k) % SHAPES.len()];
                let rt = result_type.unwrap_or(t);
                let text = wrap(&[shape(t, s)], &shape(rt, s), &format!("{op}(p0)"));
                check_hlo(&text, seed);
                seed += 1;
            }
        }
    }
}

fn binary(ops: &[&str], types: &[&str]) {
    let mut seed = 100;
    for op in ops {
        for t in types {
            for k in 0..3 {
                let s = SHAPES[(seed as usize + k) % SHAPES.len()];
                let text = wrap(
                    &[shape(t, s), shape(t, s)],
                    &shape(t, s),
                    &format!("{op}(p0, p1)"),
                );
                check_hlo(&text, seed);
                seed += 1;
            }
        }
    }
}

#[test]
fn float_unary_ops() {
    unary(
        &[
            "abs",
            "negate",
            "sign",
            "floor",
            "ceil",
            "round-nearest-afz",
            "round-nearest-even",
            "sqrt",
            "rsqrt",
            "cbrt",
            "exponential",
            "exponential-minus-one",
            "log",
            "log-plus-one",
            "logistic",
            "tanh",
            "sine",
            "cosine",
            "tan",
            "erf",
            "copy",
            "real",
            "imag",
            "asin",
            "acos",
            "atanh",
            "sinh",
            "cosh",
            "asinh",
            "acosh",
        ],
        FLOATS,
        None,
    );
}

#[test]
fn float_is_finite() {
    unary(&["is-finite"], FLOATS, Some("pred"));
}

#[test]
fn float_binary_ops() {
    binary(
        &[
            "add",
            "subtract",
            "multiply",
            "divide",
            "remainder",
            "maximum",
            "minimum",
            "power",
            "atan2",
        ],
        FLOATS,
    );
}

#[test]
fn integer_unary_ops() {
    unary(
        &[
            "abs",
            "negate",
            "sign",
            "not",
            "popcnt",
            "count-leading-zeros",
            "copy",
        ],
        INTS,
        None,
    );
}

#[test]
fn integer_binary_ops() {
    binary(
        &[
            "add",
            "subtract",
            "multiply",
            "divide",
            "remainder",
            "maximum",
            "minimum",
            "power",
            "and",
            "or",
            "xor",
            "shift-left",
            "shift-right-logical",
            "shift-right-arithmetic",
        ],
        INTS,
    );
}

#[test]
fn pred_ops() {
    unary(&["not", "copy"], &["pred"], None);
    binary(&["and", "or", "xor", "maximum", "minimum"], &["pred"]);
}

#[test]
fn compare_all_directions_and_types() {
    let mut seed = 500;
    for t in FLOATS.iter().chain(INTS).chain(&["pred"]) {
        for dir in ["EQ", "NE", "LT", "LE", "GT", "GE"] {
            let s = SHAPES[seed as usize % SHAPES.len()];
            let mut types = vec![""];
            if t.starts_with('f') || t.starts_with('b') {
                types.push(", type=TOTALORDER");
            }
            for ty in types {
                let text = wrap(
                    &[shape(t, s), shape(t, s)],
                    &shape("pred", s),
                    &format!("compare(p0, p1), direction={dir}{ty}"),
                );
                check_hlo(&text, seed);
                seed += 1;
            }
        }
    }
}

#[test]
fn select_and_clamp() {
    let mut seed = 700;
    for t in FLOATS.iter().chain(INTS).chain(&["pred"]) {
        let s = SHAPES[seed as usize % SHAPES.len()];
        let text = wrap(
            &[shape("pred", s), shape(t, s), shape(t, s)],
            &shape(t, s),
            "select(p0, p1, p2)",
        );
        check_hlo(&text, seed);
        // Clamp with scalar bounds (implicit broadcast) and with full-shape bounds.
        let text = wrap(
            &[format!("{t}[]"), shape(t, s), format!("{t}[]")],
            &shape(t, s),
            "clamp(p0, p1, p2)",
        );
        check_hlo(&text, seed + 1);
        let text = wrap(
            &[shape(t, s), shape(t, s), shape(t, s)],
            &shape(t, s),
            "clamp(p0, p1, p2)",
        );
        check_hlo(&text, seed + 2);
        seed += 3;
    }
}

#[test]
fn convert_between_every_pair() {
    let all: Vec<&str> = FLOATS
        .iter()
        .chain(INTS)
        .chain(&["pred"])
        .copied()
        .collect();
    let mut seed = 900;
    for from in &all {
        for to in &all {
            let s = SHAPES[seed as usize % SHAPES.len()];
            let text = wrap(&[shape(from, s)], &shape(to, s), "convert(p0)");
            check_hlo(&text, seed);
            seed += 1;
        }
    }
}

#[test]
fn bitcast_convert_same_and_changed_width() {
    let pairs = [
        ("f32", "s32"),
        ("s32", "f32"),
        ("f32", "u32"),
        ("f64", "s64"),
        ("u64", "f64"),
        ("bf16", "s16"),
        ("u16", "bf16"),
        ("f16", "u16"),
        ("s16", "f16"),
        ("s8", "u8"),
    ];
    for (k, (from, to)) in pairs.iter().enumerate() {
        let s = SHAPES[k % SHAPES.len()];
        let text = wrap(&[shape(from, s)], &shape(to, s), "bitcast-convert(p0)");
        check_hlo(&text, 1000 + k as u64);
    }
    // Width changes: a minor dimension of sub-elements appears or disappears.
    let text = wrap(
        &["f32[3,5]{1,0}".into()],
        "u8[3,5,4]{2,1,0}",
        "bitcast-convert(p0)",
    );
    check_hlo(&text, 1100);
    let text = wrap(
        &["u16[7,2]{1,0}".into()],
        "f32[7]{0}",
        "bitcast-convert(p0)",
    );
    check_hlo(&text, 1101);
    let text = wrap(&["s8[4,8]{1,0}".into()], "f64[4]{0}", "bitcast-convert(p0)");
    check_hlo(&text, 1102);
}

#[test]
fn reduce_precision_to_narrow_formats() {
    for (k, t) in ["f32", "f64", "bf16"].iter().enumerate() {
        for (e, m) in [(8, 7), (5, 10), (4, 3)] {
            let s = SHAPES[k];
            let text = wrap(
                &[shape(t, s)],
                &shape(t, s),
                &format!("reduce-precision(p0), exponent_bits={e}, mantissa_bits={m}"),
            );
            check_hlo(&text, 1200 + k as u64);
        }
    }
}
