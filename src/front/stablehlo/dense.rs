//! `dense<...>` element literals: reading the text (splats, nested lists, hex bit
//! patterns, hex blobs, complex pairs, `true`/`false`) and turning it into a [`Literal`]
//! of the declared type, rounding decimals to the element type.
//! MLIR: `mlir/lib/AsmParser/AttributeParser.cpp` (`TensorLiteralParser`).

use crate::ir::Refusal;
use half::{bf16, f16};
use num_complex::Complex;

use super::lexer::{Cursor, PResult};
use super::types::Type;
use crate::front::hlo_text::minifloat::MiniFloat;
use crate::ir::{ArrayData, ArrayLiteral, ArrayShape, Literal, PrimitiveType};

/// One element as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Elem {
    /// A decimal integer (wider than 64 bits, so `ui64` and `i64` both fit).
    Int(i128),
    /// A hex number: the element's bit pattern (for floats) or its value (for integers).
    Hex(u128),
    /// A decimal float, as text (so `f32` rounds once, from the text).
    Float(String),
    /// `true` / `false`.
    Bool(bool),
    /// `(re, im)`.
    Complex(Box<Elem>, Box<Elem>),
}

/// The body of `dense<...>`.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseValue {
    /// `"0x..."`: raw little-endian bytes of every element.
    Blob(Vec<u8>),
    /// Elements in row-major order; `shape` is the list nesting (`None` for a bare splat
    /// element).
    Elems {
        /// The elements.
        elems: Vec<Elem>,
        /// Sizes of the nested lists, outermost first; `None` for `dense<1>`.
        shape: Option<Vec<i64>>,
    },
}

/// A nested list while parsing.
enum Node {
    Leaf(Elem),
    List(Vec<Node>),
}

/// Parses `<...>` after the `dense` keyword.
pub fn parse_dense_body(c: &mut Cursor<'_>) -> PResult<DenseValue> {
    c.expect("<")?;
    if c.eat(">") {
        return Ok(DenseValue::Elems {
            elems: Vec::new(),
            shape: Some(vec![0]),
        });
    }
    if c.peek() == Some(b'"') {
        let loc = c.loc();
        let s = c.string()?;
        let hex = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .ok_or_else(|| c.error_at(loc, "a dense string must be a hex blob \"0x...\""))?;
        if hex.len() % 2 != 0 {
            return Err(c.error_at(loc, "hex blob has an odd number of digits"));
        }
        // Digits are checked before pairing them: slicing a non-ASCII character in half
        // would panic.
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(c.error_at(loc, "hex blob has a non-hex digit"));
        }
        let bytes = hex
            .as_bytes()
            .chunks(2)
            .map(|pair| {
                let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
                digit(pair[0]) << 4 | digit(pair[1])
            })
            .collect::<Vec<u8>>();
        c.expect(">")?;
        return Ok(DenseValue::Blob(bytes));
    }
    let loc = c.loc();
    let node = parse_node(c, 0)?;
    c.expect(">")?;
    let mut elems = Vec::new();
    let shape = match node {
        Node::Leaf(e) => {
            elems.push(e);
            None
        }
        list => {
            let shape = node_shape(&list).ok_or_else(|| {
                c.error_at(
                    loc,
                    "nested lists of a dense literal have different lengths",
                )
            })?;
            flatten(list, &mut elems);
            Some(shape)
        }
    };
    Ok(DenseValue::Elems { elems, shape })
}

fn parse_node(c: &mut Cursor<'_>, depth: usize) -> PResult<Node> {
    if depth > 64 {
        return Err(c.err("dense literal nested too deeply"));
    }
    if c.eat("[") {
        let mut items = Vec::new();
        if !c.eat("]") {
            loop {
                items.push(parse_node(c, depth + 1)?);
                if c.eat("]") {
                    break;
                }
                if !c.eat(",") {
                    return Err(c.expected("',' or ']' in a dense literal"));
                }
            }
        }
        return Ok(Node::List(items));
    }
    parse_elem(c).map(Node::Leaf)
}

fn parse_elem(c: &mut Cursor<'_>) -> PResult<Elem> {
    let loc = c.loc();
    if c.eat("(") {
        let re = parse_elem(c)?;
        c.expect(",")?;
        let im = parse_elem(c)?;
        c.expect(")")?;
        return Ok(Elem::Complex(Box::new(re), Box::new(im)));
    }
    if c.eat_word("true") {
        return Ok(Elem::Bool(true));
    }
    if c.eat_word("false") {
        return Ok(Elem::Bool(false));
    }
    let Some(text) = c.number_text() else {
        return Err(c.expected("a dense element"));
    };
    let bad = || c.error_at(loc, format!("bad number '{text}'"));
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return u128::from_str_radix(hex, 16)
            .map(Elem::Hex)
            .map_err(|_| bad());
    }
    if text.contains(['.', 'e', 'E']) {
        return Ok(Elem::Float(text.to_string()));
    }
    text.parse::<i128>().map(Elem::Int).map_err(|_| bad())
}

fn node_shape(node: &Node) -> Option<Vec<i64>> {
    match node {
        Node::Leaf(_) => Some(Vec::new()),
        Node::List(items) => {
            let mut shape = vec![items.len() as i64];
            if let Some(first) = items.first() {
                let inner = node_shape(first)?;
                for item in &items[1..] {
                    if node_shape(item)? != inner {
                        return None;
                    }
                }
                shape.extend(inner);
            }
            Some(shape)
        }
    }
}

fn flatten(node: Node, out: &mut Vec<Elem>) {
    match node {
        Node::Leaf(e) => out.push(e),
        Node::List(items) => items.into_iter().for_each(|n| flatten(n, out)),
    }
}

impl DenseValue {
    /// The elements as integers, if the type is an integer tensor (for attributes such as
    /// `padding` and `replica_groups`).
    pub fn as_ints(&self, ty: &Type) -> Option<Vec<i64>> {
        let lit = to_literal(self, ty).ok()?;
        let arr = lit.as_array()?;
        match &arr.data {
            ArrayData::S64(v) => Some(v.clone()),
            ArrayData::S32(v) => Some(v.iter().map(|&x| x as i64).collect()),
            ArrayData::U64(v) => Some(v.iter().map(|&x| x as i64).collect()),
            ArrayData::Pred(v) => Some(v.iter().map(|&x| x as i64).collect()),
            _ => None,
        }
    }
}

/// Builds the literal of `ty` that `value` spells. The error says what is wrong
/// (wrong element count, an element that does not fit, ...).
pub fn to_literal(value: &DenseValue, ty: &Type) -> Result<Literal, Refusal> {
    let Type::Tensor(t) = ty else {
        return Err(format!("a dense literal must have a tensor type, not {ty}").into());
    };
    if matches!(t.elem, super::types::ElemType::Quant(_)) {
        return Err(Refusal::unsupported(
            "quantized dense literals are not supported",
        ));
    }
    let elem_ty = t.elem.storage();
    let shape = ArrayShape::new(elem_ty, &t.dims);
    crate::ir::size::check_array(&shape).map_err(|e| e.to_string())?;
    let count = shape
        .checked_element_count()
        .ok_or_else(|| format!("{ty} has too many elements"))?;
    let what = || format!("the constant {ty}");
    let data = match value {
        DenseValue::Blob(bytes) => blob_data(bytes, elem_ty, count, what)?,
        DenseValue::Elems {
            elems,
            shape: written,
        } => {
            match written {
                None => {}
                Some(w) if w == &t.dims => {}
                Some(w) if w == &[0] && count == 0 => {}
                Some(w) => {
                    return Err(format!(
                        "dense literal has shape [{}] ({} elements) but the type {ty} needs [{}] ({} elements)",
                        join(w),
                        w.iter().product::<i64>(),
                        join(&t.dims),
                        count
                    ).into());
                }
            }
            let mut data = ArrayData::zeros(elem_ty, 0);
            for e in elems {
                push_elem(&mut data, e, elem_ty)?;
            }
            if written.is_none() && count != 1 {
                // A splat fills the whole shape (zero elements included).
                data = if count == 0 {
                    ArrayData::zeros(elem_ty, 0)
                } else {
                    data.try_splat(count, what).map_err(|e| e.to_string())?
                };
            }
            data
        }
    };
    Ok(Literal::Array(ArrayLiteral { shape, data }))
}

fn join(dims: &[i64]) -> String {
    dims.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Decodes a hex blob: little-endian elements, or one element for a splat.
fn blob_data(
    bytes: &[u8],
    ty: PrimitiveType,
    count: usize,
    what: impl FnOnce() -> String,
) -> Result<ArrayData, Refusal> {
    let size = if ty == PrimitiveType::Pred {
        1
    } else {
        ty.byte_size()
    };
    let n = bytes.len() / size.max(1);
    if !bytes.len().is_multiple_of(size) || (n != count && n != 1) {
        return Err(format!(
            "hex blob holds {} bytes, but {count} elements of {} need {}",
            bytes.len(),
            super::types::mlir_name(ty),
            count.saturating_mul(size)
        )
        .into());
    }
    let mut data = ArrayData::zeros(ty, 0);
    for chunk in bytes.chunks(size) {
        let mut bits = 0u128;
        for (i, &b) in chunk.iter().enumerate() {
            bits |= (b as u128) << (8 * i);
        }
        push_bits(&mut data, bits, ty)?;
    }
    if n == 1 && count != 1 {
        data = data.try_splat(count, what).map_err(|e| e.to_string())?;
    }
    Ok(data)
}

/// Appends an element given as a bit pattern.
fn push_bits(data: &mut ArrayData, bits: u128, ty: PrimitiveType) -> Result<(), Refusal> {
    let width = if ty == PrimitiveType::Pred {
        8
    } else {
        ty.bit_width()
    };
    if width < 128 && bits >> width != 0 {
        return Err(format!(
            "hex value 0x{bits:X} does not fit in {}",
            super::types::mlir_name(ty)
        )
        .into());
    }
    match data {
        ArrayData::Pred(v) => v.push(bits != 0),
        ArrayData::S8(v) => v.push(bits as u8 as i8),
        ArrayData::S16(v) => v.push(bits as u16 as i16),
        ArrayData::S32(v) => v.push(bits as u32 as i32),
        ArrayData::S64(v) => v.push(bits as u64 as i64),
        ArrayData::U8(v) => v.push(bits as u8),
        ArrayData::U16(v) => v.push(bits as u16),
        ArrayData::U32(v) => v.push(bits as u32),
        ArrayData::U64(v) => v.push(bits as u64),
        ArrayData::F16(v) => v.push(f16::from_bits(bits as u16)),
        ArrayData::BF16(v) => v.push(bf16::from_bits(bits as u16)),
        ArrayData::F32(v) => v.push(f32::from_bits(bits as u32)),
        ArrayData::F64(v) => v.push(f64::from_bits(bits as u64)),
        ArrayData::C64(v) => v.push(Complex::new(
            f32::from_bits(bits as u32),
            f32::from_bits((bits >> 32) as u32),
        )),
        ArrayData::C128(v) => v.push(Complex::new(
            f64::from_bits(bits as u64),
            f64::from_bits((bits >> 64) as u64),
        )),
        ArrayData::Raw(v) => v.push(bits as u8),
    }
    Ok(())
}

/// An element as an integer of `ty` (range-checked), as i128.
fn int_value(e: &Elem, ty: PrimitiveType) -> Result<i128, Refusal> {
    let name = super::types::mlir_name(ty);
    let bits = ty.bit_width() as u32;
    let (lo, hi) = if ty.is_signed_integral() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    match e {
        Elem::Int(v) if *v >= lo && *v <= hi => Ok(*v),
        Elem::Int(v) => Err(format!("{v} is out of range for {name}").into()),
        Elem::Hex(h) if *h >> bits == 0 => {
            // A hex integer is the value's bit pattern.
            let v = *h as i128;
            Ok(if ty.is_signed_integral() && v > hi {
                v - (1i128 << bits)
            } else {
                v
            })
        }
        Elem::Hex(h) => Err(format!("0x{h:X} is out of range for {name}").into()),
        Elem::Bool(b) => Ok(*b as i128),
        other => Err(format!("{} is not a valid {name} value", describe(other)).into()),
    }
}

fn describe(e: &Elem) -> String {
    match e {
        Elem::Int(v) => v.to_string(),
        Elem::Hex(h) => format!("0x{h:X}"),
        Elem::Float(t) => t.clone(),
        Elem::Bool(b) => b.to_string(),
        Elem::Complex(..) => "a complex pair".into(),
    }
}

/// A float element as f64 (decimal) or its bits (hex).
enum FloatElem {
    Value(f64),
    Bits(u128),
}

fn float_value(e: &Elem, ty: PrimitiveType) -> Result<FloatElem, Refusal> {
    match e {
        Elem::Float(t) => t
            .parse::<f64>()
            .map(FloatElem::Value)
            .map_err(|_| format!("bad float '{t}'").into()),
        Elem::Int(v) => Ok(FloatElem::Value(*v as f64)),
        Elem::Hex(h) => Ok(FloatElem::Bits(*h)),
        other => Err(format!(
            "{} is not a valid {} value",
            describe(other),
            super::types::mlir_name(ty)
        )
        .into()),
    }
}

/// Appends one element, converted to `ty`.
fn push_elem(data: &mut ArrayData, e: &Elem, ty: PrimitiveType) -> Result<(), Refusal> {
    use PrimitiveType as P;
    if ty == P::Pred {
        let v = match e {
            Elem::Bool(b) => *b,
            Elem::Int(0) | Elem::Hex(0) => false,
            Elem::Int(1) | Elem::Hex(1) => true,
            other => return Err(format!("{} is not a valid i1 value", describe(other)).into()),
        };
        if let ArrayData::Pred(d) = data {
            d.push(v);
        }
        return Ok(());
    }
    if ty.is_integral() {
        let v = int_value(e, ty)?;
        let mask = if ty.bit_width() >= 128 {
            u128::MAX
        } else {
            (1u128 << ty.bit_width()) - 1
        };
        return push_bits(data, (v as u128) & mask, ty);
    }
    if ty.is_complex() {
        let Elem::Complex(re, im) = e else {
            return Err(format!("{} is not a complex pair (re, im)", describe(e)).into());
        };
        let part = if ty == P::C64 { P::F32 } else { P::F64 };
        let mut tmp = ArrayData::zeros(part, 0);
        push_elem(&mut tmp, re, part)?;
        push_elem(&mut tmp, im, part)?;
        match (data, tmp) {
            (ArrayData::C64(d), ArrayData::F32(p)) => d.push(Complex::new(p[0], p[1])),
            (ArrayData::C128(d), ArrayData::F64(p)) => d.push(Complex::new(p[0], p[1])),
            _ => return Err("internal: complex parts".into()),
        }
        return Ok(());
    }
    match float_value(e, ty)? {
        FloatElem::Bits(b) => push_bits(data, b, ty),
        FloatElem::Value(v) => {
            match data {
                ArrayData::F16(d) => d.push(f16::from_f64(v)),
                ArrayData::BF16(d) => d.push(bf16::from_f64(v)),
                ArrayData::F32(d) => {
                    // Round once, from the text, when there is text.
                    let x = match e {
                        Elem::Float(t) => t.parse::<f32>().unwrap_or(v as f32),
                        _ => v as f32,
                    };
                    d.push(x)
                }
                ArrayData::F64(d) => d.push(v),
                ArrayData::Raw(d) => {
                    let format = MiniFloat::of(ty).ok_or_else(|| {
                        Refusal::unsupported(format!("constants of type {ty} are not supported"))
                    })?;
                    let code = format.encode(v).ok_or_else(|| {
                        format!(
                            "{} does not fit in {}",
                            describe(e),
                            super::types::mlir_name(ty)
                        )
                    })?;
                    d.push(code)
                }
                _ => {
                    return Err(format!(
                        "{} is not a valid {} value",
                        describe(e),
                        super::types::mlir_name(ty)
                    )
                    .into());
                }
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::stablehlo::types::parse_type;

    fn lit(body: &str, ty: &str) -> Result<Literal, Refusal> {
        let mut c = Cursor::new(body, "t", 0);
        let v = parse_dense_body(&mut c).map_err(|e| e.message)?;
        let t = parse_type(&mut Cursor::new(ty, "t", 0)).map_err(|e| e.message)?;
        to_literal(&v, &t)
    }

    fn arr(l: Literal) -> ArrayLiteral {
        l.as_array().unwrap().clone()
    }

    #[test]
    fn lists_splats_and_empty() {
        assert_eq!(
            arr(lit("<[[1, 2], [3, 4]]>", "tensor<2x2xi64>").unwrap()),
            ArrayLiteral::from_vec(&[2, 2], vec![1i64, 2, 3, 4])
        );
        assert_eq!(
            arr(lit("<1>", "tensor<3xi32>").unwrap()),
            ArrayLiteral::from_vec(&[3], vec![1i32, 1, 1])
        );
        assert_eq!(arr(lit("<2>", "tensor<2x0x3xi8>").unwrap()).data.len(), 0);
        assert_eq!(arr(lit("<>", "tensor<0x2xi8>").unwrap()).data.len(), 0);
        let err = lit("<[1, 2]>", "tensor<3xi32>").unwrap_err();
        assert!(err.message.contains("needs [3]"), "{err}");
    }

    #[test]
    fn integers_full_range_and_hex() {
        assert_eq!(
            arr(lit("<18446744073709551615>", "tensor<ui64>").unwrap())
                .values::<u64>()
                .unwrap(),
            &[u64::MAX]
        );
        assert_eq!(
            arr(lit("<-9223372036854775808>", "tensor<i64>").unwrap())
                .values::<i64>()
                .unwrap(),
            &[i64::MIN]
        );
        assert_eq!(
            arr(lit("<0x0123456789ABCDEF>", "tensor<i64>").unwrap())
                .values::<i64>()
                .unwrap(),
            &[0x0123456789ABCDEF]
        );
        assert!(lit("<128>", "tensor<i8>").is_err());
        assert_eq!(
            arr(lit("<[-8, 7]>", "tensor<2xi4>").unwrap()).data,
            ArrayData::Raw(vec![0x8, 0x7])
        );
        assert_eq!(
            arr(lit("<[[0], [1]]>", "tensor<2x1xi1>").unwrap())
                .values::<bool>()
                .unwrap(),
            &[false, true]
        );
    }

    #[test]
    fn floats_hex_and_complex() {
        let v = arr(lit("<[0x7FC00000, 1.5, -0.0]>", "tensor<3xf32>").unwrap());
        let f = v.values::<f32>().unwrap();
        assert!(f[0].is_nan() && f[1] == 1.5 && f[2].is_sign_negative());
        assert_eq!(
            arr(lit("<0x0001>", "tensor<bf16>").unwrap())
                .values::<bf16>()
                .unwrap()[0]
                .to_bits(),
            1
        );
        let c = arr(lit("<(1.5, 2.5)>", "tensor<2xcomplex<f64>>").unwrap());
        assert_eq!(
            c.values::<Complex<f64>>().unwrap(),
            &[Complex::new(1.5, 2.5); 2]
        );
        // 0.1 as f8E4M3FN is 0.1015625 = code 0x1D (exponent 3, mantissa 5 -> 2^-4 * 1.625).
        assert_eq!(
            arr(lit("<0.1>", "tensor<f8E4M3FN>").unwrap()).data,
            ArrayData::Raw(vec![0x1D])
        );
    }

    #[test]
    fn blobs() {
        let v = arr(lit("<\"0x0000803F00000040\">", "tensor<2xf32>").unwrap());
        assert_eq!(v.values::<f32>().unwrap(), &[1.0, 2.0]);
        assert!(
            lit("<\"0x0000803F\">", "tensor<3x2xf32>").is_ok(),
            "one element is a splat"
        );
        assert!(lit("<\"0x0000803F0000\">", "tensor<2xf32>").is_err());
    }
}
