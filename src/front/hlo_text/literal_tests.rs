//! Tests of literal reading and writing. Expected strings come from XLA's documented
//! formats (`%.{6,9}g` for f32, `max_digits10` for halves) and from constants in the real
//! `testdata/*/xla_opt.hlo` files.

use super::super::lexer::Source;
use super::super::shapes::parse_shape;
use super::*;

/// Parses `literal` as a constant of `shape`; returns it and the warnings.
fn parse(shape: &str, literal: &str) -> Result<(Literal, Vec<String>), String> {
    // In HLO a literal sits inside `constant(...)`, never right after a shape (where `{1`
    // would start a layout), so the shape is read from its own source. Columns in messages
    // count from the literal, after a `shape ` prefix of the same width.
    let shape_src = Source::new(shape, "shape");
    let shape = parse_shape(&mut Cursor::new(&shape_src)).map_err(|e| e.to_string())?;
    let text = format!("{} {literal}", " ".repeat(shape_src.text.len()));
    let src = Source::new(&text, "lit");
    let mut cur = Cursor::new(&src);
    let mut warnings = Vec::new();
    let lit = parse_literal(&mut cur, &shape, &mut warnings).map_err(|e| e.to_string())?;
    if !cur.at_end() {
        return Err(format!("trailing text at {}", cur.pos));
    }
    Ok((lit, warnings.iter().map(|w| w.to_string()).collect()))
}

fn lit(shape: &str, literal: &str) -> Literal {
    parse(shape, literal).unwrap().0
}

/// The HLO one-line form (what `constant(...)` holds).
fn oneline(l: &Literal) -> String {
    let mut s = String::new();
    write_literal(&mut s, l, false, true);
    s
}

fn f32s(l: &Literal) -> Vec<f32> {
    l.as_array().unwrap().values::<f32>().unwrap().to_vec()
}

#[test]
fn percent_g_formatting() {
    // Values worked out by hand from C's %g rules.
    assert_eq!(format_g(0.1, 6), "0.1");
    assert_eq!(format_g(100000.0, 6), "100000");
    assert_eq!(format_g(1000000.0, 6), "1e+06");
    assert_eq!(format_g(123456789.0, 6), "1.23457e+08");
    assert_eq!(format_g(0.0001, 6), "0.0001");
    assert_eq!(format_g(0.00001, 6), "1e-05");
    assert_eq!(format_g(-2.5, 6), "-2.5");
    assert_eq!(format_g(-0.0, 6), "-0");
    assert_eq!(format_g(9.9999996, 6), "10");
}

#[test]
fn f32_prints_six_digits_or_nine() {
    // From testdata/constants/xla_opt.hlo and avgpool/xla_opt.hlo.
    assert_eq!(format_f32(f32::MAX), "3.40282347e+38");
    assert_eq!(format_f32(-f32::MIN_POSITIVE), "-1.17549435e-38");
    assert_eq!(format_f32(f32::from_bits(1)), "1.4013e-45");
    assert_eq!(format_f32(1.0 / 6.0), "0.166666672");
    assert_eq!(format_f32(0.1), "0.1");
    assert_eq!(format_f32(-1e9), "-1e+09");
    assert_eq!(format_f32(f32::INFINITY), "inf");
    assert_eq!(format_f32(f32::NEG_INFINITY), "-inf");
    assert_eq!(format_f32(f32::NAN), "nan");
    assert_eq!(format_f32(-f32::NAN), "-nan");
    assert_eq!(format_f32(f32::from_bits(0x7f80_0001)), "nan(0x1)");
}

#[test]
fn f64_prints_fifteen_digits_or_seventeen() {
    assert_eq!(format_f64(0.1), "0.1");
    assert_eq!(format_f64(1.0 / 3.0), "0.33333333333333331");
    assert_eq!(format_f64(f64::MAX), "1.7976931348623157e+308");
}

#[test]
fn halves_print_max_digits10() {
    // testdata/README.md: "bf16/f16 constants print with few digits (`0.7344`)";
    // f16 values from testdata/constants/xla_opt.hlo.
    let l = lit("bf16[2]", "{0.734375, -0.0883789062}");
    assert_eq!(oneline(&l), "{0.7344, -0.08838}");
    let l = lit("f16[4]", "{inf, nan, 65504, 0.7085}");
    assert_eq!(oneline(&l), "{inf, nan, 65504, 0.7085}");
}

#[test]
fn scalars_of_every_kind() {
    assert_eq!(oneline(&lit("pred[]", "true")), "true");
    assert_eq!(oneline(&lit("pred[]", "0")), "false");
    assert_eq!(oneline(&lit("s32[]", "-2147483648")), "-2147483648");
    assert_eq!(
        oneline(&lit("u64[]", "18446744073709551615")),
        "18446744073709551615"
    );
    assert_eq!(
        oneline(&lit("s64[]", "-9223372036854775808")),
        "-9223372036854775808"
    );
    assert_eq!(oneline(&lit("f32[]", "-0")), "-0");
    assert_eq!(oneline(&lit("f32[]", "1.5e3")), "1500");
    assert_eq!(oneline(&lit("f32[]", "-inf")), "-inf");
    assert_eq!(oneline(&lit("f64[]", "nan(0x7)")), "nan(0x7)");
    assert_eq!(oneline(&lit("f32[]", "-nan")), "-nan");
    assert_eq!(oneline(&lit("c64[]", "(1, -2.5)")), "(1, -2.5)");
    assert_eq!(
        oneline(&lit("c128[2]", "{(1, 2), (-inf, nan)}")),
        "{(1, 2), (-inf, nan)}"
    );
    assert_eq!(oneline(&lit("s4[3]", "{-8, 7, -1}")), "{-8, 7, -1}");
    assert_eq!(oneline(&lit("u4[]", "15")), "15");
    assert_eq!(oneline(&lit("f8e4m3fn[3]", "{1, -2, 448}")), "{1, -2, 448}");
}

#[test]
fn float_bits_are_exact() {
    let l = lit("f32[3]", "{0.1, -0, nan}");
    let v = f32s(&l);
    assert_eq!(v[0].to_bits(), 0.1f32.to_bits());
    assert_eq!(v[1].to_bits(), 0x8000_0000);
    assert_eq!(v[2].to_bits(), 0x7fc0_0000);
    let l = lit("f32[]", "nan(0x1234)");
    assert_eq!(f32s(&l)[0].to_bits(), 0x7f80_1234);
}

#[test]
fn arrays_print_like_xla_hlo_constants() {
    // Shapes as in testdata: `{ {1} }`, `{ { {1} } }`, `{ { 1, 2 }, { 3, 4 } }`.
    assert_eq!(oneline(&lit("f32[1,1]", "{ {1} }")), "{ {1} }");
    assert_eq!(oneline(&lit("f32[1,1,1]", "{ { {1} } }")), "{ { {1} } }");
    assert_eq!(
        oneline(&lit("s32[2,2]", "{{1,2},{3,4}}")),
        "{ { 1, 2 }, { 3, 4 } }"
    );
    assert_eq!(oneline(&lit("pred[2]", "{true, 0}")), "{1, 0}");
    assert_eq!(oneline(&lit("f32[0]", "{}")), "{}");
    assert_eq!(oneline(&lit("f32[2,0]", "{ {}, {} }")), "{ {}, {} }");
    // Rank 4 gets /*i0=..*/ markers (avgpool/xla_opt.hlo), which the reader skips.
    let text = "{ { /*i0=0*/ { /*i1=0*/ {1, 2} } }, { /*i0=1*/ { /*i1=0*/ {3, 4} } } }";
    let l = lit("s32[2,1,1,2]", text);
    assert_eq!(
        oneline(&l),
        "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 } } }, { /*i0=1*/ { /*i1=0*/ { 3, 4 } } } }"
    );
}

#[test]
fn tuples_nest() {
    let l = lit("(s32[1], (f32[], pred[]))", "( {1}, (2.5, true) )");
    assert_eq!(oneline(&l), "( {1}, ( 2.5, true ) )");
}

#[test]
fn non_row_major_layout_stores_physical_order() {
    // Text is logical order; with layout {0,1} the storage is column-major.
    let l = lit("s32[2,3]{0,1}", "{ {1, 2, 3}, {4, 5, 6} }");
    let a = l.as_array().unwrap();
    assert_eq!(a.values::<i32>().unwrap(), &[1, 4, 2, 5, 3, 6]);
    assert_eq!(oneline(&l), "{ { 1, 2, 3 }, { 4, 5, 6 } }");
}

#[test]
fn elided_constant_is_zeros_with_warning() {
    let (l, warnings) = parse("f32[3]", "{...}").unwrap();
    assert_eq!(f32s(&l), vec![0.0; 3]);
    assert_eq!(
        warnings,
        vec!["lit:1:8: elided constant `{...}` filled with zeros"]
    );
}

#[test]
fn bad_literals_are_located_errors() {
    let err = |shape: &str, text: &str| parse(shape, text).unwrap_err();
    assert_eq!(
        err("s8[]", "300"),
        "lit:1:6: integer 300 is out of range for s8"
    );
    assert_eq!(
        err("u32[]", "-1"),
        "lit:1:7: integer -1 is out of range for u32"
    );
    assert_eq!(
        err("f16[]", "70000"),
        "lit:1:7: 70000 is out of range for f16"
    );
    assert_eq!(
        err("bf16[]", "1e39"),
        "lit:1:8: 1e39 is out of range for bf16"
    );
    assert_eq!(
        err("f32[]", "1e39"),
        "lit:1:7: 1e39 is out of range for f32"
    );
    assert_eq!(
        err("s32[]", "1.5"),
        "lit:1:7: `1.5` is not a valid s32 value"
    );
    assert_eq!(err("pred[]", "2"), "lit:1:8: `2` is not a valid pred value");
    assert_eq!(
        err("f32[3]", "{1, 2}"),
        "lit:1:8: expected 3 elements in dimension 0, found 2"
    );
    assert_eq!(
        err("f32[1]", "{1, 2}"),
        "lit:1:8: too many elements in dimension 0: the shape has 1"
    );
    assert_eq!(
        err("u64[]", "18446744073709551616"),
        "lit:1:7: integer 18446744073709551616 is out of range for u64"
    );
    assert_eq!(
        err("f32[]", "abc"),
        "lit:1:7: expected a literal value, found `abc`"
    );
}

#[test]
fn display_is_xla_to_string() {
    // XLA's Literal::ToString (literal.cc, DenseArrayPrintHelper) for these shapes.
    assert_eq!(lit("f32[]", "1").to_string(), "f32[] 1");
    assert_eq!(lit("s32[3]", "{1,2,3}").to_string(), "s32[3] {1, 2, 3}");
    assert_eq!(
        lit("f32[2,3]", "{{1,2,3},{4,5,6}}").to_string(),
        "f32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5, 6 }\n}"
    );
    assert_eq!(lit("pred[2]", "{1,0}").to_string(), "pred[2] {1, 0}");
    assert_eq!(
        lit("(f32[], pred[])", "(1, true)").to_string(),
        "(\nf32[] 1,\npred[] true\n)"
    );
    assert_eq!(
        lit("f32[2,3]{0,1}", "{{1,2,3},{4,5,6}}").to_string(),
        "f32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5, 6 }\n}"
    );
}
