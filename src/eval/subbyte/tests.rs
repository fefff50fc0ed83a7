//! Sub-byte integer programs as HLO text. Expected values are worked out by hand from
//! two's-complement arithmetic at the declared width (e.g. `s4` 7 + 1 = -8).

use super::*;
use crate::eval::{EvalOptions, evaluate};
use crate::front::hlo_text::parse_module;

/// Runs an entry computation with body `body` (its root named `ROOT r`).
fn run(body: &str) -> Result<Literal, String> {
    let text = format!("HloModule m\n\nENTRY main {{\n{body}\n}}\n");
    let module = parse_module(&text, "test.hlo")
        .map_err(|e| format!("parse: {e}"))?
        .module;
    evaluate(&module, &[], &EvalOptions::default()).map_err(|e| e.to_string())
}

/// The raw bytes of an array result, and its element type.
fn raw(l: &Literal) -> (PrimitiveType, Vec<u8>) {
    let a = l.as_array().expect("array");
    match &a.data {
        ArrayData::Raw(v) => (a.element_type(), v.clone()),
        other => panic!("not raw: {other:?}"),
    }
}

#[test]
fn s4_add_wraps() {
    // 7 + 1 = 8 wraps to -8 (0b1000); -8 + -1 = -9 wraps to 7; 3 + 2 = 5.
    let out = run(
        "  a = s4[3] constant({7, -8, 3})\n  b = s4[3] constant({1, -1, 2})\n  \
                   ROOT r = s4[3] add(a, b)",
    )
    .unwrap();
    assert_eq!(raw(&out), (PrimitiveType::S4, vec![0b1000, 0b0111, 0b0101]));
}

#[test]
fn u4_negate_and_multiply_wrap() {
    // -(1) = 16 - 1 = 15; -(0) = 0; 5 * 4 = 20 = 16 + 4.
    let out = run("  a = u4[2] constant({1, 0})\n  ROOT r = u4[2] negate(a)").unwrap();
    assert_eq!(raw(&out), (PrimitiveType::U4, vec![15, 0]));
    let out = run("  a = u4[] constant(5)\n  b = u4[] constant(4)\n  ROOT r = u4[] multiply(a, b)")
        .unwrap();
    assert_eq!(raw(&out), (PrimitiveType::U4, vec![4]));
}

#[test]
fn s2_compare_and_convert() {
    // s2 holds -2..=1; -2 < 1, 1 > -1.
    let out = run(
        "  a = s2[2] constant({-2, 1})\n  b = s2[2] constant({1, -1})\n  \
                   ROOT r = pred[2] compare(a, b), direction=LT",
    )
    .unwrap();
    assert_eq!(
        out.as_array().unwrap().values::<bool>().unwrap(),
        &[true, false]
    );
    let out = run("  a = s2[2] constant({-2, 1})\n  ROOT r = f32[2] convert(a)").unwrap();
    assert_eq!(
        out.as_array().unwrap().values::<f32>().unwrap(),
        &[-2.0, 1.0]
    );
    // 300 converts to s4 by wrapping: 300 = 18 * 16 + 12, and 12 is -4 in s4.
    let out = run("  a = s32[] constant(300)\n  ROOT r = s4[] convert(a)").unwrap();
    assert_eq!(raw(&out), (PrimitiveType::S4, vec![0b1100]));
}

#[test]
fn s4_iota_and_reduce() {
    // iota 0..9 wraps past 7: 8 is -8, 9 is -7. Sum of 0..=7 = 28 = 16 + 12 -> -4.
    let out = run("  ROOT r = s4[10] iota(), iota_dimension=0").unwrap();
    assert_eq!(raw(&out).1, vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let text = "HloModule m\n\nadd {\n  a = s4[] parameter(0)\n  b = s4[] parameter(1)\n  \
                ROOT s = s4[] add(a, b)\n}\n\nENTRY main {\n  x = s4[8] iota(), iota_dimension=0\n  \
                z = s4[] constant(0)\n  ROOT r = s4[] reduce(x, z), dimensions={0}, to_apply=add\n}\n";
    let module = parse_module(text, "t.hlo").unwrap().module;
    let out = evaluate(&module, &[], &EvalOptions::default()).unwrap();
    assert_eq!(raw(&out), (PrimitiveType::S4, vec![0b1100]));
}

#[test]
fn bit_ops_read_the_declared_width() {
    // s4 -8 = 0b1000: logical shift right by 1 is 0b0100 = 4; popcnt(-1 = 0b1111) = 4;
    // clz(1 = 0b0001) = 3.
    let out = run("  a = s4[] constant(-8)\n  b = s4[] constant(1)\n  \
                   ROOT r = s4[] shift-right-logical(a, b)")
    .unwrap();
    assert_eq!(raw(&out).1, vec![4]);
    let out = run("  a = s4[] constant(-1)\n  ROOT r = s4[] popcnt(a)").unwrap();
    assert_eq!(raw(&out).1, vec![4]);
    let out = run("  a = u4[] constant(1)\n  ROOT r = u4[] count-leading-zeros(a)").unwrap();
    assert_eq!(raw(&out).1, vec![3]);
    let out = run("  a = s4[] constant(1)\n  ROOT r = s4[] count-leading-zeros(a)").unwrap();
    assert_eq!(raw(&out).1, vec![3]);
}

#[test]
fn wrap_sign_extends() {
    assert_eq!(wrap(0b1000, 4, true) as i8, -8);
    assert_eq!(wrap(0b0111, 4, true) as i8, 7);
    assert_eq!(wrap(0b11, 2, true) as i8, -1);
    assert_eq!(wrap(0xff, 4, false), 15);
    assert_eq!(wrap(1, 1, true) as i8, -1);
}
