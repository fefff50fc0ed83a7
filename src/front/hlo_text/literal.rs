//! Literals in HLO text: reading `constant(...)` values of every element type, and writing
//! them back the way XLA does (one line in HLO, `Literal::ToString` for `Display`).
//! Literal text is in logical (row-major) order; a constant whose shape has another layout is
//! stored in physical order.
//! XLA: `HloParserImpl::ParseLiteral`/`ParseDenseLiteral` in `xla/hlo/parser/hlo_parser.cc`,
//! `LiteralBase::Print*` in `xla/literal.cc`, `RoundTripFpToString` in `xla/util.cc`.

use half::{bf16, f16};
use num_complex::Complex;

use super::ParseWarning;
use super::lexer::{Cursor, MAX_DEPTH, PResult};
use super::minifloat::MiniFloat;
use crate::ir::{ArrayData, ArrayLiteral, ArrayShape, Layout, Literal, PrimitiveType, Shape};

/// One element as written, before it is converted to the element type.
#[derive(Clone, Debug)]
enum Value<'a> {
    /// `true` / `false`.
    Bool(bool),
    /// A number; `is_int` when written without `.` or exponent.
    Number { text: &'a str, is_int: bool },
    /// `inf` / `-inf`.
    Inf { negative: bool },
    /// `nan`, `-nan`, `nan(0x7)`.
    Nan {
        negative: bool,
        payload: Option<u64>,
    },
    /// `(re, im)`.
    Complex(Box<Value<'a>>, Box<Value<'a>>),
}

/// Reads the literal of a `constant(...)` of the given shape. `{...}` (an elided constant)
/// becomes zeros plus a warning.
pub(super) fn parse_literal(
    cur: &mut Cursor<'_>,
    shape: &Shape,
    warnings: &mut Vec<ParseWarning>,
) -> PResult<Literal> {
    parse_literal_at_depth(cur, shape, warnings, 0)
}

fn parse_literal_at_depth(
    cur: &mut Cursor<'_>,
    shape: &Shape,
    warnings: &mut Vec<ParseWarning>,
    depth: usize,
) -> PResult<Literal> {
    if depth > MAX_DEPTH {
        return Err(cur.err("literal nests too deeply"));
    }
    match shape {
        Shape::Tuple(elements) => {
            cur.expect("(")?;
            let mut out = Vec::with_capacity(elements.len());
            for (i, element) in elements.iter().enumerate() {
                if i > 0 {
                    cur.expect(",")?;
                }
                out.push(parse_literal_at_depth(cur, element, warnings, depth + 1)?);
            }
            cur.expect(")")?;
            Ok(Literal::Tuple(out))
        }
        Shape::Token | Shape::Opaque => {
            // XLA prints token constants as `token`; accept that or nothing.
            cur.eat("token");
            Ok(Literal::Token)
        }
        Shape::Array(array) => parse_array(cur, array, warnings).map(Literal::Array),
    }
}

/// Reads a dense array literal in logical order and stores it in the shape's layout.
fn parse_array(
    cur: &mut Cursor<'_>,
    shape: &ArrayShape,
    warnings: &mut Vec<ParseWarning>,
) -> PResult<ArrayLiteral> {
    let mut logical = shape.clone();
    logical.layout = Layout::row_major(shape.rank());
    cur.skip_ws();
    let start = cur.pos;
    if shape.rank() > MAX_DEPTH {
        return Err(cur
            .src
            .error(
                start,
                format!("constants of rank {} are not supported", shape.rank()),
            )
            .unsupported());
    }
    // The text must hold every element, so a shape far larger than the text is an error
    // (and never an overflow or a huge allocation).
    let count = element_count(cur, shape, start)?;
    if cur.eat("{...}") || (cur.looking_at("{") && is_elided(cur)) {
        if count > MAX_ELIDED_ELEMENTS {
            return Err(cur
                .src
                .error(start, "elided constant is too large to fill with zeros"));
        }
        warnings.push(
            cur.src
                .error(start, "elided constant `{...}` filled with zeros"),
        );
        return Ok(ArrayLiteral::zeros(shape.clone()));
    }
    let mut data = ArrayData::zeros(shape.element_type, 0);
    reserve(&mut data, count);
    if shape.rank() == 0 {
        // XLA also accepts a scalar wrapped in braces in a few old files; allow `{x}`.
        let braced = cur.eat("{");
        let at = cur.pos;
        let value = parse_value(cur, 0)?;
        push_value(cur, &mut data, shape.element_type, value, at)?;
        if braced {
            cur.expect("}")?;
        }
    } else {
        parse_nested(cur, shape, 0, &mut data)?;
    }
    let literal = ArrayLiteral {
        shape: logical,
        data,
    };
    Ok(literal.with_layout(&shape.layout))
}

/// The largest elided constant filled with zeros (1 GiB of f32).
const MAX_ELIDED_ELEMENTS: usize = 1 << 28;

/// The number of elements of a constant's shape, or an error if it does not fit in memory.
fn element_count(cur: &Cursor<'_>, shape: &ArrayShape, at: usize) -> PResult<usize> {
    shape
        .dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
        .filter(|&n| n <= isize::MAX as usize / 16)
        .ok_or_else(|| cur.src.error(at, "constant has too many elements"))
}

/// True for `{ ... }` with only dots inside (elided, with spaces).
fn is_elided(cur: &mut Cursor<'_>) -> bool {
    let mut probe = cur.clone();
    probe.eat("{") && probe.eat("...") && probe.eat("}") && {
        cur.pos = probe.pos;
        true
    }
}

/// Reads `{...}` for dimension `dim` and the dimensions inside it.
fn parse_nested(
    cur: &mut Cursor<'_>,
    shape: &ArrayShape,
    dim: usize,
    data: &mut ArrayData,
) -> PResult<()> {
    cur.skip_ws();
    let open = cur.pos;
    cur.expect("{")?;
    let want = shape.dims[dim];
    let mut n: i64 = 0;
    loop {
        if cur.eat("}") {
            break;
        }
        if n > 0 {
            cur.expect(",")?;
            // XLA tolerates a trailing comma before the closing brace.
            if cur.eat("}") {
                break;
            }
        }
        if n >= want {
            return Err(cur.src.error(
                open,
                format!("too many elements in dimension {dim}: the shape has {want}"),
            ));
        }
        if dim + 1 < shape.rank() {
            parse_nested(cur, shape, dim + 1, data)?;
        } else {
            cur.skip_ws();
            let at = cur.pos;
            let value = parse_value(cur, 0)?;
            push_value(cur, data, shape.element_type, value, at)?;
        }
        n += 1;
    }
    if n != want {
        return Err(cur.src.error(
            open,
            format!("expected {want} elements in dimension {dim}, found {n}"),
        ));
    }
    Ok(())
}

fn reserve(data: &mut ArrayData, count: usize) {
    // Cap the reservation: a shape may claim far more elements than the text holds.
    let count = count.min(1 << 20);
    crate::with_array_data!(data, v => v.reserve(count));
}

/// Reads one element: a number, `true`/`false`, `inf`, `nan(0x..)`, or `(re, im)`.
fn parse_value<'a>(cur: &mut Cursor<'a>, depth: usize) -> PResult<Value<'a>> {
    cur.skip_ws();
    if cur.eat("(") {
        if depth > 0 {
            return Err(cur.err("complex parts cannot be complex"));
        }
        let re = parse_value(cur, depth + 1)?;
        cur.expect(",")?;
        let im = parse_value(cur, depth + 1)?;
        cur.expect(")")?;
        return Ok(Value::Complex(Box::new(re), Box::new(im)));
    }
    let negative = cur.looking_at("-");
    let mut probe = cur.clone();
    if negative {
        probe.pos += 1;
    }
    match probe.ident() {
        Some("true") if !negative => {
            cur.pos = probe.pos;
            return Ok(Value::Bool(true));
        }
        Some("false") if !negative => {
            cur.pos = probe.pos;
            return Ok(Value::Bool(false));
        }
        Some("inf") => {
            cur.pos = probe.pos;
            return Ok(Value::Inf { negative });
        }
        Some("nan") => {
            cur.pos = probe.pos;
            let mut payload = None;
            if cur.peek_at(0) == Some(b'(') {
                cur.pos += 1;
                cur.expect("0x")?;
                let start = cur.pos;
                let digits = cur
                    .slice(start, cur.end)
                    .bytes()
                    .take_while(u8::is_ascii_hexdigit)
                    .count();
                let hex = cur.slice(start, start + digits);
                payload = Some(
                    u64::from_str_radix(hex, 16)
                        .map_err(|_| cur.src.error(start, "bad NaN payload"))?,
                );
                cur.pos += digits;
                cur.expect(")")?;
            }
            return Ok(Value::Nan { negative, payload });
        }
        _ => {}
    }
    // A decimal number: -?digits[.digits][e[+-]digits]
    let start = cur.pos;
    let bytes = cur.slice(start, cur.end).as_bytes();
    let mut i = usize::from(negative);
    let int_digits = bytes[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut is_int = true;
    let mut frac_digits = 0;
    if bytes.get(i) == Some(&b'.') {
        is_int = false;
        i += 1;
        frac_digits = bytes[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return Err(cur.expected("a literal value"));
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(bytes.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_digits = bytes[j.min(bytes.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if exp_digits > 0 {
            is_int = false;
            i = j + exp_digits;
        }
    }
    cur.pos = start + i;
    Ok(Value::Number {
        text: cur.slice(start, start + i),
        is_int,
    })
}

/// Converts one element to the element type, checking its range, and appends it.
fn push_value(
    cur: &Cursor<'_>,
    data: &mut ArrayData,
    ty: PrimitiveType,
    value: Value<'_>,
    at: usize,
) -> PResult<()> {
    let err = |msg: String| cur.src.error(at, msg);
    let bad = |what: &str| err(format!("{what} is not a valid {ty} value"));
    macro_rules! int {
        ($v:expr, $t:ty) => {{
            let Value::Number { text, is_int: true } = value else {
                return Err(bad(&describe(&value)));
            };
            let n: i128 = text
                .parse()
                .map_err(|_| err(format!("integer {text} is out of range for {ty}")))?;
            $v.push(
                <$t>::try_from(n)
                    .map_err(|_| err(format!("integer {text} is out of range for {ty}")))?,
            );
        }};
    }
    match data {
        ArrayData::Pred(v) => match value {
            Value::Bool(b) => v.push(b),
            Value::Number { text: "0", .. } => v.push(false),
            Value::Number { text: "1", .. } => v.push(true),
            other => return Err(bad(&describe(&other))),
        },
        ArrayData::S8(v) => int!(v, i8),
        ArrayData::S16(v) => int!(v, i16),
        ArrayData::S32(v) => int!(v, i32),
        ArrayData::S64(v) => int!(v, i64),
        ArrayData::U8(v) => int!(v, u8),
        ArrayData::U16(v) => int!(v, u16),
        ArrayData::U32(v) => int!(v, u32),
        ArrayData::U64(v) => int!(v, u64),
        ArrayData::F16(v) => v.push(f16::from_bits(
            float_bits(&value, FloatFormat::F16, ty, &err)? as u16,
        )),
        ArrayData::BF16(v) => {
            v.push(bf16::from_bits(
                float_bits(&value, FloatFormat::BF16, ty, &err)? as u16,
            ))
        }
        ArrayData::F32(v) => v.push(f32::from_bits(
            float_bits(&value, FloatFormat::F32, ty, &err)? as u32,
        )),
        ArrayData::F64(v) => v.push(f64::from_bits(float_bits(
            &value,
            FloatFormat::F64,
            ty,
            &err,
        )?)),
        ArrayData::C64(v) => {
            let (re, im) = complex_parts(value);
            let re = f32::from_bits(float_bits(&re, FloatFormat::F32, ty, &err)? as u32);
            let im = f32::from_bits(float_bits(&im, FloatFormat::F32, ty, &err)? as u32);
            v.push(Complex::new(re, im));
        }
        ArrayData::C128(v) => {
            let (re, im) = complex_parts(value);
            let re = f64::from_bits(float_bits(&re, FloatFormat::F64, ty, &err)?);
            let im = f64::from_bits(float_bits(&im, FloatFormat::F64, ty, &err)?);
            v.push(Complex::new(re, im));
        }
        ArrayData::Raw(v) => v.push(raw_value(&value, ty, &err)?),
    }
    Ok(())
}

/// A real number is accepted for a complex element as `(x, 0)`.
fn complex_parts(value: Value<'_>) -> (Value<'_>, Value<'_>) {
    match value {
        Value::Complex(re, im) => (*re, *im),
        other => (
            other,
            Value::Number {
                text: "0",
                is_int: true,
            },
        ),
    }
}

fn describe(value: &Value<'_>) -> String {
    match value {
        Value::Bool(b) => format!("`{b}`"),
        Value::Number { text, .. } => format!("`{text}`"),
        Value::Inf { negative } => format!("`{}inf`", if *negative { "-" } else { "" }),
        Value::Nan { .. } => "`nan`".to_string(),
        Value::Complex(..) => "a complex number".to_string(),
    }
}

/// The IEEE binary formats xlac stores natively.
#[derive(Copy, Clone)]
enum FloatFormat {
    F16,
    BF16,
    F32,
    F64,
}

impl FloatFormat {
    /// (exponent bits, mantissa bits).
    fn bits(self) -> (u32, u32) {
        match self {
            FloatFormat::F16 => (5, 10),
            FloatFormat::BF16 => (8, 7),
            FloatFormat::F32 => (8, 23),
            FloatFormat::F64 => (11, 52),
        }
    }
}

/// The bit pattern of a float element; finite values out of range are errors, as in XLA.
fn float_bits(
    value: &Value<'_>,
    format: FloatFormat,
    ty: PrimitiveType,
    err: &dyn Fn(String) -> super::ParseError,
) -> PResult<u64> {
    let (e, m) = format.bits();
    let sign_bit = 1u64 << (e + m);
    let exp_all = ((1u64 << e) - 1) << m;
    match value {
        Value::Inf { negative } => Ok(exp_all | if *negative { sign_bit } else { 0 }),
        Value::Nan { negative, payload } => {
            let payload = payload.unwrap_or(1 << (m - 1));
            if payload == 0 || payload >= 1 << m {
                return Err(err(format!("NaN payload {payload:#x} does not fit {ty}")));
            }
            Ok(exp_all | payload | if *negative { sign_bit } else { 0 })
        }
        Value::Number { text, .. } => {
            let out_of_range = || err(format!("{text} is out of range for {ty}"));
            let bits = match format {
                FloatFormat::F32 => {
                    let v: f32 = text.parse().map_err(|_| out_of_range())?;
                    if v.is_infinite() {
                        return Err(out_of_range());
                    }
                    u64::from(v.to_bits())
                }
                FloatFormat::F64 => {
                    let v: f64 = text.parse().map_err(|_| out_of_range())?;
                    if v.is_infinite() {
                        return Err(out_of_range());
                    }
                    v.to_bits()
                }
                FloatFormat::F16 | FloatFormat::BF16 => {
                    let v: f64 = text.parse().map_err(|_| out_of_range())?;
                    let bits = match format {
                        FloatFormat::F16 => f16::from_f64(v).to_bits(),
                        _ => bf16::from_f64(v).to_bits(),
                    };
                    if v.is_infinite() || u64::from(bits) & exp_all == exp_all {
                        return Err(out_of_range());
                    }
                    u64::from(bits)
                }
            };
            Ok(bits)
        }
        other => Err(err(format!(
            "{} is not a valid {ty} value",
            describe(other)
        ))),
    }
}

/// One element of a type xlac stores as raw bits (s1..s4, u1..u4, f8/f6/f4 formats).
fn raw_value(
    value: &Value<'_>,
    ty: PrimitiveType,
    err: &dyn Fn(String) -> super::ParseError,
) -> PResult<u8> {
    let bits = ty.bit_width() as u32;
    if ty.is_integral() {
        let Value::Number { text, is_int: true } = value else {
            return Err(err(format!(
                "{} is not a valid {ty} value",
                describe(value)
            )));
        };
        let n: i128 = text
            .parse()
            .map_err(|_| err(format!("integer {text} is out of range for {ty}")))?;
        let (lo, hi) = if ty.is_signed_integral() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if n < lo || n > hi {
            return Err(err(format!("integer {text} is out of range for {ty}")));
        }
        return Ok((n as u8) & ((1u16 << bits) - 1) as u8);
    }
    let Some(format) = MiniFloat::of(ty) else {
        return Err(err(format!("constants of type {ty} are not supported")).unsupported());
    };
    let v = match value {
        Value::Inf { negative } => {
            if *negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        Value::Nan { negative, .. } => {
            if *negative {
                -f64::NAN
            } else {
                f64::NAN
            }
        }
        Value::Number { text, .. } => text
            .parse()
            .map_err(|_| err(format!("bad number {text}")))?,
        other => {
            return Err(err(format!(
                "{} is not a valid {ty} value",
                describe(other)
            )));
        }
    };
    format
        .encode(v)
        .ok_or_else(|| err(format!("{v} is out of range for {ty}")))
}

// ---------------------------------------------------------------------------------------
// Printing

/// Formats like C's `%.{precision}g`: shortest of fixed and scientific, trailing zeros cut.
pub(super) fn format_g(v: f64, precision: usize) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let p = precision.max(1);
    let sci = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mantissa = strip_fraction_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_fraction_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

fn strip_fraction_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `inf`, `-inf`, `nan`, `-nan`, with `(0x..)` when the NaN is not the plain quiet NaN.
fn non_finite(negative: bool, is_nan: bool, payload: u64, quiet: u64) -> String {
    let sign = if negative { "-" } else { "" };
    if !is_nan {
        return format!("{sign}inf");
    }
    if payload == quiet {
        format!("{sign}nan")
    } else {
        format!("{sign}nan({payload:#x})")
    }
}

/// An f32 as XLA prints it: 6 significant digits if they round-trip, else 9.
pub(super) fn format_f32(v: f32) -> String {
    if !v.is_finite() {
        let bits = v.to_bits();
        return non_finite(
            v.is_sign_negative(),
            v.is_nan(),
            u64::from(bits & 0x7f_ffff),
            1 << 22,
        );
    }
    let short = format_g(f64::from(v), 6);
    if short.parse::<f32>() == Ok(v) {
        short
    } else {
        format_g(f64::from(v), 9)
    }
}

/// An f64 as XLA prints it: 15 significant digits if they round-trip, else 17.
pub(super) fn format_f64(v: f64) -> String {
    if !v.is_finite() {
        let bits = v.to_bits();
        return non_finite(
            v.is_sign_negative(),
            v.is_nan(),
            bits & ((1 << 52) - 1),
            1 << 51,
        );
    }
    let short = format_g(v, 15);
    if short.parse::<f64>() == Ok(v) {
        short
    } else {
        format_g(v, 17)
    }
}

/// A 16-bit float with `max_digits10` digits (4 for bf16, 5 for f16), which round-trips.
fn format_half(value: f64, bits: u16, mantissa_bits: u32, digits: usize) -> String {
    if !value.is_finite() {
        let mask = (1u16 << mantissa_bits) - 1;
        return non_finite(
            bits >> 15 == 1,
            value.is_nan(),
            u64::from(bits & mask),
            1 << (mantissa_bits - 1),
        );
    }
    format_g(value, digits)
}

/// Element `i` (in storage order) as XLA's `GetAsString` writes it.
pub(super) fn element_string(data: &ArrayData, ty: PrimitiveType, i: usize) -> String {
    match data {
        ArrayData::Pred(v) => v[i].to_string(),
        ArrayData::S8(v) => v[i].to_string(),
        ArrayData::S16(v) => v[i].to_string(),
        ArrayData::S32(v) => v[i].to_string(),
        ArrayData::S64(v) => v[i].to_string(),
        ArrayData::U8(v) => v[i].to_string(),
        ArrayData::U16(v) => v[i].to_string(),
        ArrayData::U32(v) => v[i].to_string(),
        ArrayData::U64(v) => v[i].to_string(),
        ArrayData::F16(v) => format_half(v[i].to_f64(), v[i].to_bits(), 10, 5),
        ArrayData::BF16(v) => format_half(v[i].to_f64(), v[i].to_bits(), 7, 4),
        ArrayData::F32(v) => format_f32(v[i]),
        ArrayData::F64(v) => format_f64(v[i]),
        ArrayData::C64(v) => format!("({}, {})", format_f32(v[i].re), format_f32(v[i].im)),
        ArrayData::C128(v) => format!("({}, {})", format_f64(v[i].re), format_f64(v[i].im)),
        ArrayData::Raw(v) => raw_string(v[i], ty),
    }
}

fn raw_string(byte: u8, ty: PrimitiveType) -> String {
    let bits = ty.bit_width() as u32;
    if ty.is_signed_integral() {
        let shift = 8 - bits;
        return (((byte << shift) as i8) >> shift).to_string();
    }
    if ty.is_integral() {
        return byte.to_string();
    }
    match MiniFloat::of(ty) {
        Some(format) => format.to_string(byte),
        None => byte.to_string(),
    }
}

/// Writes a literal. `print_shape` puts `f32[2,3] ` before arrays; `oneline` is the HLO
/// constant form, otherwise XLA's multi-line `ToString` form. Pred arrays print `0`/`1`.
pub(super) fn write_literal(out: &mut String, literal: &Literal, print_shape: bool, oneline: bool) {
    match literal {
        Literal::Tuple(elements) => {
            out.push_str(if oneline { "( " } else { "(\n" });
            for (i, e) in elements.iter().enumerate() {
                if i > 0 {
                    out.push_str(if oneline { ", " } else { ",\n" });
                }
                write_literal(out, e, print_shape, oneline);
            }
            out.push_str(if oneline { " )" } else { "\n)" });
        }
        Literal::Token => out.push_str("token"),
        Literal::Array(array) => write_array(out, array, print_shape, oneline),
    }
}

fn write_array(out: &mut String, array: &ArrayLiteral, print_shape: bool, oneline: bool) {
    let logical = array.to_row_major();
    let shape = &logical.shape;
    if print_shape {
        super::shapes::write_shape(out, &Shape::Array(shape.clone()), false);
        out.push(' ');
    }
    let mut writer = DenseWriter {
        out,
        data: &logical.data,
        ty: shape.element_type,
        rank: shape.rank(),
        linebreak: if oneline { " " } else { "\n" },
        oneline,
        next: 0,
    };
    if shape.rank() == 0 {
        if !logical.data.is_empty() {
            let s = element_string(&logical.data, shape.element_type, 0);
            writer.out.push_str(&s);
        }
        return;
    }
    let mut indices = Vec::new();
    writer.write(&shape.dims, &mut indices);
}

/// XLA's `DenseArrayPrintHelper`: nested braces, `/*iN=k*/` markers above rank 3.
struct DenseWriter<'o, 'd> {
    out: &'o mut String,
    data: &'d ArrayData,
    ty: PrimitiveType,
    rank: usize,
    linebreak: &'static str,
    oneline: bool,
    next: usize,
}

impl DenseWriter<'_, '_> {
    fn open(&mut self, dims: &[i64], indices: &[i64]) {
        if self.rank == 1 {
            self.out.push('{');
        } else if dims.len() == 1 {
            self.out.push_str(if self.oneline { "" } else { "  " });
            self.out.push('{');
            if dims[0] > 1 {
                self.out.push(' ');
            }
        } else if self.rank > 3 && !indices.is_empty() && indices.len() < self.rank {
            let (index, value) = (indices.len() - 1, indices[indices.len() - 1]);
            self.out.push_str(&format!("{{ /*i{index}={value}*/"));
            if dims[0] > 0 {
                self.out.push_str(self.linebreak);
            }
        } else {
            self.out.push('{');
            self.out.push_str(self.linebreak);
        }
    }

    fn close(&mut self, dims: &[i64]) {
        if self.rank == 1 {
            self.out.push('}');
        } else if dims.len() == 1 {
            if dims[0] > 1 {
                self.out.push(' ');
            }
            self.out.push('}');
        } else {
            self.out.push_str(self.linebreak);
            self.out.push('}');
        }
    }

    fn write(&mut self, dims: &[i64], indices: &mut Vec<i64>) {
        let Some((&size, inner)) = dims.split_first() else {
            let s = match self.data {
                ArrayData::Pred(v) => if v[self.next] { "1" } else { "0" }.to_string(),
                data => element_string(data, self.ty, self.next),
            };
            self.out.push_str(&s);
            self.next += 1;
            return;
        };
        self.open(dims, indices);
        for i in 0..size {
            indices.push(i);
            self.write(inner, indices);
            indices.pop();
            if i < size - 1 {
                self.out.push(',');
                self.out
                    .push_str(if dims.len() > 1 { self.linebreak } else { " " });
            }
        }
        self.close(dims);
    }
}

#[cfg(test)]
#[path = "literal_tests.rs"]
mod tests;
