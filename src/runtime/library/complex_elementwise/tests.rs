//! The complex elementwise routine against the interpreter, bit for bit (NaN matches NaN),
//! on special values, both precisions, non-row-major layouts and every op it takes.

use crate::eval::compare::Tolerance;
use crate::ir::{ArrayLiteral, ArrayShape, Literal, PrimitiveType};
use crate::runtime::tests::{build, check_args};
use num_complex::Complex;

/// Interesting complex values: zeros of both signs, ones, huge and tiny parts, infinities
/// and NaNs in either part.
fn values() -> Vec<(f64, f64)> {
    let big = 3.0e38;
    vec![
        (0.0, 0.0),
        (-0.0, 0.0),
        (1.0, 0.0),
        (0.0, 1.0),
        (-1.5, 2.25),
        (0.3, -0.7),
        (big, big),
        (1e-39, -2e-40),
        (f64::INFINITY, 0.0),
        (f64::NEG_INFINITY, 1.0),
        (1.0, f64::INFINITY),
        (f64::NAN, 0.0),
        (0.5, f64::NAN),
        (-3.0, -4.0),
        (7.0, 0.0),
        (-0.25, 0.0),
    ]
}

fn complex_literal(ty: PrimitiveType, dims: &[i64], rotate: usize) -> Literal {
    let v = values();
    let n: usize = dims.iter().product::<i64>() as usize;
    let pick = |i: usize| v[(i * 7 + rotate) % v.len()];
    let shape = ArrayShape::new(ty, dims);
    let data = match ty {
        PrimitiveType::C64 => crate::ir::ArrayData::C64(
            (0..n)
                .map(|i| {
                    let (re, im) = pick(i);
                    Complex::new(re as f32, im as f32)
                })
                .collect(),
        ),
        _ => crate::ir::ArrayData::C128(
            (0..n)
                .map(|i| {
                    let (re, im) = pick(i);
                    Complex::new(re, im)
                })
                .collect(),
        ),
    };
    Literal::Array(ArrayLiteral { shape, data })
}

fn exact(hlo: &str, args: &[Literal]) -> String {
    check_args(hlo, args, Tolerance::EXACT)
}

#[test]
fn every_unary_and_binary_op_matches_the_interpreter() {
    let unary = [
        "negate",
        "sign",
        "exponential",
        "log",
        "sqrt",
        "rsqrt",
        "tanh",
        "sine",
        "cosine",
        "tan",
        "logistic",
        "log-plus-one",
        "exponential-minus-one",
        "cbrt",
    ];
    let binary = [
        "add", "subtract", "multiply", "divide", "atan2", "maximum", "minimum", "power",
    ];
    for (ty, real) in [("c64", "f32"), ("c128", "f64")] {
        let pty = if ty == "c64" {
            PrimitiveType::C64
        } else {
            PrimitiveType::C128
        };
        let x = complex_literal(pty, &[4, 4], 0);
        let y = complex_literal(pty, &[4, 4], 3);
        for op in unary {
            let hlo = format!(
                "HloModule m\nENTRY main {{\n  x = {ty}[4,4]{{1,0}} parameter(0)\n  \
                 ROOT r = {ty}[4,4]{{1,0}} {op}(x)\n}}\n"
            );
            let text = exact(&hlo, std::slice::from_ref(&x));
            assert!(
                text.contains("native complex elementwise"),
                "{op} {ty}:\n{text}"
            );
        }
        for op in ["abs", "real", "imag"] {
            let hlo = format!(
                "HloModule m\nENTRY main {{\n  x = {ty}[4,4]{{1,0}} parameter(0)\n  \
                 ROOT r = {real}[4,4]{{1,0}} {op}(x)\n}}\n"
            );
            exact(&hlo, std::slice::from_ref(&x));
        }
        for op in binary {
            // The second operand column-major: the routine walks both layouts.
            let hlo = format!(
                "HloModule m\nENTRY main {{\n  x = {ty}[4,4]{{1,0}} parameter(0)\n  \
                 y = {ty}[4,4]{{0,1}} parameter(1)\n  ROOT r = {ty}[4,4]{{1,0}} {op}(x, y)\n}}\n"
            );
            exact(&hlo, &[x.clone(), y.clone()]);
        }
        for dir in ["EQ", "NE"] {
            let hlo = format!(
                "HloModule m\nENTRY main {{\n  x = {ty}[4,4]{{1,0}} parameter(0)\n  \
                 y = {ty}[4,4]{{1,0}} parameter(1)\n  \
                 ROOT r = pred[4,4]{{1,0}} compare(x, y), direction={dir}\n}}\n"
            );
            exact(&hlo, &[x.clone(), x.clone()]);
            exact(&hlo, &[x.clone(), y.clone()]);
        }
    }
}

#[test]
fn complex_select_and_converts_match_the_interpreter() {
    let hlo = "HloModule m
ENTRY main {
  re = f32[3,5]{1,0} parameter(0)
  im = f32[3,5]{0,1} parameter(1)
  p = pred[3,5]{1,0} parameter(2)
  i = s64[3,5]{1,0} parameter(3)
  h = bf16[3,5]{1,0} parameter(4)
  c = c64[3,5]{1,0} complex(re, im)
  ci = c64[3,5]{1,0} convert(i)
  s = c64[3,5]{0,1} select(p, c, ci)
  w = c128[3,5]{1,0} convert(s)
  ch = c128[3,5]{1,0} convert(h)
  m = c128[3,5]{1,0} multiply(w, ch)
  n = c64[3,5]{1,0} convert(m)
  r = f32[3,5]{1,0} convert(n)
  d = f64[3,5]{1,0} convert(m)
  ROOT t = (c64[3,5]{1,0}, f32[3,5]{1,0}, f64[3,5]{1,0}) tuple(n, r, d)
}
";
    let module = crate::front::hlo_text::parse_module(hlo, "t.hlo")
        .unwrap()
        .module;
    let mut args = crate::runtime::tests::random_args(&module, 3);
    // Denormal real parts: complex() flushes them; a convert from complex keeps them (XLA:CPU
    // takes the real part without arithmetic), on both paths.
    if let Literal::Array(a) = &mut args[0]
        && let crate::ir::ArrayData::F32(v) = &mut a.data
    {
        v[0] = 1e-40;
        v[1] = -1e-41;
        v[2] = f32::NAN;
    }
    if let Literal::Array(a) = &mut args[3]
        && let crate::ir::ArrayData::S64(v) = &mut a.data
    {
        // Rounds once from the integer to f32.
        v[0] = (1 << 40) + 1;
        v[1] = i64::MIN;
    }
    let text = exact(hlo, &args);
    assert!(!text.contains("reference implementation"), "{text}");

    // A column-major predicate and operands (HLO's select takes a predicate of the same
    // dimensions).
    let hlo = "HloModule m
ENTRY main {
  p = pred[2,3]{0,1} parameter(0)
  a = c128[2,3]{0,1} parameter(1)
  b = c128[2,3]{1,0} parameter(2)
  ROOT s = c128[2,3]{1,0} select(p, a, b)
}
";
    let a = complex_literal(PrimitiveType::C128, &[2, 3], 1);
    let b = complex_literal(PrimitiveType::C128, &[2, 3], 5);
    let p = Literal::Array(ArrayLiteral::from_vec(
        &[2, 3],
        vec![true, false, false, true, true, false],
    ));
    exact(hlo, &[p, a, b]);
}

#[test]
fn converts_from_complex_to_every_real_type_match_the_interpreter() {
    // The real part, narrowed: integers saturate (huge and infinite parts) and NaN is 0,
    // pred is re != 0, f16/bf16 round from f32 (NaN to the quiet NaN of its sign, bf16
    // denormals flushed).
    for from in [PrimitiveType::C64, PrimitiveType::C128] {
        for to in [
            "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32",
            "f64",
        ] {
            let hlo = format!(
                "HloModule m
ENTRY main {{
  x = {from}[4,4]{{0,1}} parameter(0)
  ROOT r = {to}[4,4]{{1,0}} convert(x)
}}
"
            );
            let x = complex_literal(from, &[4, 4], 3);
            let text = exact(&hlo, &[x]);
            assert!(
                !text.contains("reference implementation"),
                "{from} -> {to}: {text}"
            );
        }
    }
}

#[test]
fn ops_the_routine_does_not_take_stay_on_the_reference_path() {
    // A complex reduction is not the routine's (it is the interpreter's, named so).
    let (_, exe) = build(
        "HloModule m
add {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT s = c64[] add(a, b)
}
ENTRY main {
  x = c64[3]{0} parameter(0)
  z = c64[] constant((0, 0))
  ROOT r = c64[] reduce(x, z), dimensions={0}, to_apply=add
}
",
    );
    let text = exe.thunk_sequence_text();
    assert!(text.contains("(reference implementation)"), "{text}");
    assert!(!super::supported(
        crate::ir::Opcode::Compare,
        Some(crate::ir::ComparisonDirection::Lt),
        &[PrimitiveType::C64, PrimitiveType::C64],
        PrimitiveType::Pred
    ));
    assert!(!super::supported(
        crate::ir::Opcode::Add,
        None,
        &[PrimitiveType::F32, PrimitiveType::F32],
        PrimitiveType::F32
    ));
}
