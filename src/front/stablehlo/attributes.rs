//! MLIR attribute values as StableHLO writes them: integers and floats with optional
//! `: type`, strings, `@symbols`, `[...]` arrays, `array<i64: ...>`, `dense<...>`, dicts,
//! `#stablehlo<enum VALUE>`, `#stablehlo.gather<...>`-style structs, `#stablehlo.conv<...>`,
//! and anything else (`#sdy...`, `affine_map<...>`) kept as opaque text.
//! MLIR: `mlir/lib/AsmParser/AttributeParser.cpp`; StableHLO: `StablehloAttrs.td`.

use super::dense::{DenseValue, parse_dense_body};
use super::lexer::{Cursor, PResult};
use super::types::{Type, parse_type};
use crate::ir::ConvolutionDimensionNumbers;

/// A parsed attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// A unit attribute (a bare name in a dict).
    Unit,
    /// `true` / `false`.
    Bool(bool),
    /// An integer, with its type when written (`1 : i64`).
    Int(i128),
    /// A float (`0.1 : f64`).
    Float(f64),
    /// `"text"`.
    Str(String),
    /// `@name`.
    Symbol(String),
    /// `[a, b, ...]`.
    Array(Vec<Attr>),
    /// `array<i64: 1, 2>` (booleans as 0/1).
    Ints(Vec<i64>),
    /// `dense<...> : type`.
    Dense(Box<DenseAttr>),
    /// `{name = value, ...}` and its text as written (custom calls keep it verbatim).
    Dict(Vec<(String, Attr)>, String),
    /// `#stablehlo<precision DEFAULT>` (the value, `DEFAULT`), or a bare word in a pretty form.
    Enum(String),
    /// `#stablehlo.gather<offset_dims = [..], ...>`: the struct name and its fields.
    Struct(String, Vec<(String, Attr)>),
    /// `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`.
    Conv(ConvolutionDimensionNumbers),
    /// A type used as an attribute.
    Type(Type),
    /// Anything xlac does not look into, verbatim.
    Opaque(String),
}

/// `dense<...> : type`: the element text and the type that gives it meaning.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseAttr {
    /// The elements as written.
    pub value: DenseValue,
    /// The declared type.
    pub ty: Type,
}

impl Attr {
    /// The integer, if this is one (booleans count as 0/1).
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Attr::Int(v) => i64::try_from(*v).ok(),
            Attr::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    /// A list of integers from `array<i64: ...>`, `[1, 2]`, or an integer `dense<...>`.
    pub fn as_ints(&self) -> Option<Vec<i64>> {
        match self {
            Attr::Ints(v) => Some(v.clone()),
            Attr::Array(items) => {
                // Nested lists (`pad = [[1, 1], [2, 2]]`) flatten in row-major order.
                let mut out = Vec::new();
                for item in items {
                    match item {
                        Attr::Array(_) => out.extend(item.as_ints()?),
                        other => out.push(other.as_int()?),
                    }
                }
                Some(out)
            }
            Attr::Dense(d) => d.value.as_ints(&d.ty),
            _ => None,
        }
    }

    /// A float (integers convert).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Attr::Float(f) => Some(*f),
            Attr::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    /// A string, symbol or enum spelling.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attr::Str(s) | Attr::Symbol(s) | Attr::Enum(s) => Some(s),
            _ => None,
        }
    }

    /// A boolean (`true`, or a unit attribute).
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Attr::Bool(b) => Some(*b),
            Attr::Unit => Some(true),
            Attr::Int(i) => Some(*i != 0),
            _ => None,
        }
    }

    /// A field of a struct attribute.
    pub fn field(&self, name: &str) -> Option<&Attr> {
        match self {
            Attr::Struct(_, fields) | Attr::Dict(fields, _) => {
                fields.iter().find(|(n, _)| n == name).map(|(_, a)| a)
            }
            _ => None,
        }
    }
}

/// Parses an attribute value. With `typed`, a number may be followed by `: type` (in
/// dicts); pretty op syntax passes false because there the `:` starts the op's types.
pub fn parse_attr_typed(c: &mut Cursor<'_>, typed: bool) -> PResult<Attr> {
    let loc = c.loc();
    match c.peek() {
        None => return Err(c.expected("an attribute value")),
        Some(b'"') => return Ok(Attr::Str(c.string()?)),
        Some(b'@') => {
            let name = c.sigil_name(b'@')?.unwrap_or_default();
            // Nested references `@a::@b` keep the last part.
            let mut name = name;
            while c.eat("::") {
                name = c.sigil_name(b'@')?.unwrap_or_default();
            }
            return Ok(Attr::Symbol(name));
        }
        Some(b'[') => {
            c.expect("[")?;
            let mut items = Vec::new();
            if !c.eat("]") {
                loop {
                    items.push(parse_attr_typed(c, typed)?);
                    if c.eat("]") {
                        break;
                    }
                    c.expect(",")?;
                }
            }
            return Ok(Attr::Array(items));
        }
        Some(b'{') => {
            let start = c.pos;
            let entries = parse_dict(c)?;
            return Ok(Attr::Dict(entries, c.slice_from(start).to_string()));
        }
        Some(b'#') => return parse_hash_attr(c),
        Some(b'!') => return Ok(Attr::Type(parse_type(c)?)),
        Some(b'<') => {
            // A struct body without a name (the pretty `algorithm = <...>` of dot_general).
            return Ok(Attr::Struct(String::new(), parse_struct_fields(c)?));
        }
        _ => {}
    }
    if let Some(text) = c.number_text() {
        let attr =
            number_attr(text).ok_or_else(|| c.error_at(loc, format!("bad number '{text}'")))?;
        if typed && c.eat(":") {
            let ty = parse_type(c)?;
            if let (Attr::Int(i), Some(t)) = (&attr, ty.as_tensor())
                && t.elem.storage().is_float()
            {
                return Ok(Attr::Float(*i as f64));
            }
        }
        return Ok(attr);
    }
    if c.eat_word("true") {
        return Ok(Attr::Bool(true));
    }
    if c.eat_word("false") {
        return Ok(Attr::Bool(false));
    }
    if c.eat_word("unit") {
        return Ok(Attr::Unit);
    }
    if c.looking_at_word("dense") {
        c.eat_word("dense");
        let value = parse_dense_body(c)?;
        c.expect(":")?;
        let ty = parse_type(c)?;
        return Ok(Attr::Dense(Box::new(DenseAttr { value, ty })));
    }
    if c.looking_at_word("dense_resource") {
        return Err(c
            .err("dense_resource attributes are not supported")
            .unsupported());
    }
    if c.looking_at_word("array") {
        c.eat_word("array");
        c.expect("<")?;
        let elem = c.expect_ident("an element type")?.to_string();
        let mut values = Vec::new();
        if c.eat(":") {
            loop {
                if c.eat_word("true") {
                    values.push(1);
                } else if c.eat_word("false") {
                    values.push(0);
                } else {
                    values.push(c.int()?);
                }
                if !c.eat(",") {
                    break;
                }
            }
        }
        c.expect(">")?;
        let _ = elem;
        return Ok(Attr::Ints(values));
    }
    if c.looking_at_word("tensor") || c.looking_at_word("tuple") || c.looking_at_word("complex") {
        return Ok(Attr::Type(parse_type(c)?));
    }
    if let Some(word) = c.ident() {
        // `affine_map<...>` and similar keyword attributes: keep verbatim.
        if c.looking_at("<") {
            let body = c.balanced()?;
            return Ok(Attr::Opaque(format!("{word}{body}")));
        }
        return Ok(Attr::Enum(word.to_string()));
    }
    Err(c.expected("an attribute value"))
}

/// Parses an attribute value inside a dict (numbers may carry `: type`).
pub fn parse_attr(c: &mut Cursor<'_>) -> PResult<Attr> {
    parse_attr_typed(c, true)
}

/// Reads a number token as an integer (decimal or hex) or a float.
fn number_attr(text: &str) -> Option<Attr> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let v = i128::from_str_radix(hex, 16).ok()?;
        return Some(Attr::Int(if neg { -v } else { v }));
    }
    if body.contains(['.', 'e', 'E']) {
        return text.parse::<f64>().ok().map(Attr::Float);
    }
    text.parse::<i128>().ok().map(Attr::Int)
}

/// Parses `{name = value, bare_name, ...}` (also used for `<{...}>` properties).
pub fn parse_dict(c: &mut Cursor<'_>) -> PResult<Vec<(String, Attr)>> {
    c.expect("{")?;
    let mut entries = Vec::new();
    if c.eat("}") {
        return Ok(entries);
    }
    loop {
        let name = if c.peek() == Some(b'"') {
            c.string()?
        } else {
            c.expect_ident("an attribute name")?.to_string()
        };
        let value = if c.eat("=") {
            parse_attr(c)?
        } else {
            Attr::Unit
        };
        entries.push((name, value));
        if c.eat("}") {
            return Ok(entries);
        }
        if !c.eat(",") {
            return Err(c.expected("',' or '}' in an attribute dictionary"));
        }
    }
}

/// Parses `<name = value, ...>` fields of a struct attribute. Field values may be bare
/// words (`tf32`) and `[..]` lists; `dim = [1] x [2]` pairs are not used here.
fn parse_struct_fields(c: &mut Cursor<'_>) -> PResult<Vec<(String, Attr)>> {
    c.expect("<")?;
    let mut fields = Vec::new();
    if c.eat(">") {
        return Ok(fields);
    }
    loop {
        let name = c.expect_ident("a field name")?.to_string();
        c.expect("=")?;
        let value = parse_attr_typed(c, false)?;
        fields.push((name, value));
        if c.eat(">") {
            return Ok(fields);
        }
        if !c.eat(",") {
            return Err(c.expected("',' or '>'"));
        }
    }
}

/// Parses an attribute starting with `#`.
fn parse_hash_attr(c: &mut Cursor<'_>) -> PResult<Attr> {
    let start = {
        c.skip_ws();
        c.pos
    };
    let name = c.sigil_name(b'#')?.unwrap_or_default();
    let is_ours = name.starts_with("stablehlo") || name.starts_with("chlo");
    if !is_ours {
        // `#sdy.sharding<...>`, `#loc3`, aliases: opaque.
        if c.peek_raw(0) == Some(b'<') {
            c.balanced()?;
        }
        return Ok(Attr::Opaque(c.slice_from(start).to_string()));
    }
    if name == "stablehlo" || name == "chlo" {
        // `#stablehlo<precision DEFAULT>`: a kind and a value.
        c.expect("<")?;
        let _kind = c.expect_ident("an enum kind")?;
        let value = c.expect_ident("an enum value")?.to_string();
        c.expect(">")?;
        return Ok(Attr::Enum(value));
    }
    if name.ends_with(".conv") {
        c.expect("<")?;
        let dims = parse_conv_dims(c)?;
        c.expect(">")?;
        return Ok(Attr::Conv(dims));
    }
    if c.peek_raw(0) != Some(b'<') {
        return Ok(Attr::Struct(name, Vec::new()));
    }
    let fields = parse_struct_fields(c)?;
    Ok(Attr::Struct(name, fields))
}

/// Parses `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` (MLIR's convolution dimension labels).
pub fn parse_conv_dims(c: &mut Cursor<'_>) -> PResult<ConvolutionDimensionNumbers> {
    let loc = c.loc();
    let lhs = conv_labels(c)?;
    if !c.eat("x") {
        return Err(c.expected("'x' between convolution dimension labels"));
    }
    let rhs = conv_labels(c)?;
    c.expect("->")?;
    let out = conv_labels(c)?;
    let bad = |what: &str| c.error_at(loc, format!("bad convolution dimension labels: {what}"));
    let find = |labels: &[String], l: &str| labels.iter().position(|x| x == l);
    let spatial = |labels: &[String]| -> Option<Vec<usize>> {
        let n = labels.iter().filter(|x| x.parse::<usize>().is_ok()).count();
        (0..n)
            .map(|k| {
                labels
                    .iter()
                    .position(|x| x.parse::<usize>().ok() == Some(k))
            })
            .collect()
    };
    Ok(ConvolutionDimensionNumbers {
        input_batch_dimension: find(&lhs, "b").ok_or_else(|| bad("no 'b' in the input"))?,
        input_feature_dimension: find(&lhs, "f").ok_or_else(|| bad("no 'f' in the input"))?,
        input_spatial_dimensions: spatial(&lhs).ok_or_else(|| bad("input spatial dimensions"))?,
        kernel_input_feature_dimension: find(&rhs, "i")
            .ok_or_else(|| bad("no 'i' in the kernel"))?,
        kernel_output_feature_dimension: find(&rhs, "o")
            .ok_or_else(|| bad("no 'o' in the kernel"))?,
        kernel_spatial_dimensions: spatial(&rhs).ok_or_else(|| bad("kernel spatial dimensions"))?,
        output_batch_dimension: find(&out, "b").ok_or_else(|| bad("no 'b' in the output"))?,
        output_feature_dimension: find(&out, "f").ok_or_else(|| bad("no 'f' in the output"))?,
        output_spatial_dimensions: spatial(&out).ok_or_else(|| bad("output spatial dimensions"))?,
    })
}

/// One `[b, 0, 1, f]` list.
fn conv_labels(c: &mut Cursor<'_>) -> PResult<Vec<String>> {
    c.expect("[")?;
    let mut labels = Vec::new();
    if c.eat("]") {
        return Ok(labels);
    }
    loop {
        c.skip_ws();
        let start = c.pos;
        while c.peek_raw(0).is_some_and(|b| b.is_ascii_alphanumeric()) {
            c.pos += 1;
        }
        if c.pos == start {
            return Err(c.expected("a dimension label"));
        }
        labels.push(c.slice_from(start).to_string());
        if c.eat("]") {
            return Ok(labels);
        }
        c.expect(",")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(s: &str) -> Attr {
        parse_attr(&mut Cursor::new(s, "t", 0)).unwrap()
    }

    #[test]
    fn scalars_and_lists() {
        assert_eq!(attr("1 : i64"), Attr::Int(1));
        assert_eq!(attr("0.1 : f64"), Attr::Float(0.1));
        assert_eq!(attr("array<i64: 1,0,2>").as_ints(), Some(vec![1, 0, 2]));
        assert_eq!(attr("array<i1: false, true>"), Attr::Ints(vec![0, 1]));
        assert_eq!(attr("array<i64>"), Attr::Ints(vec![]));
        assert_eq!(
            attr("[[@f], [@g]]"),
            Attr::Array(vec![
                Attr::Array(vec![Attr::Symbol("f".into())]),
                Attr::Array(vec![Attr::Symbol("g".into())])
            ])
        );
        assert_eq!(
            attr("#stablehlo<precision DEFAULT>"),
            Attr::Enum("DEFAULT".into())
        );
        assert_eq!(
            attr("dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>").as_ints(),
            Some(vec![2, 1, 0, 0])
        );
    }

    #[test]
    fn structs_and_opaque() {
        let g = attr(
            "#stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], index_vector_dim = 2>",
        );
        assert_eq!(
            g.field("offset_dims").and_then(Attr::as_ints),
            Some(vec![2, 3])
        );
        assert_eq!(g.field("index_vector_dim").and_then(Attr::as_int), Some(2));
        let d = attr("{n = 2 : i64, flag, s = \"x\"}");
        assert_eq!(d.field("flag"), Some(&Attr::Unit));
        assert!(matches!(
            attr("#sdy.op_sharding_rule<([i, j])->([k, l], []) {i=6}, custom>"),
            Attr::Opaque(_)
        ));
    }

    #[test]
    fn convolution_labels() {
        let Attr::Conv(d) = attr("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>") else {
            panic!()
        };
        assert_eq!((d.input_batch_dimension, d.input_feature_dimension), (0, 3));
        assert_eq!(d.input_spatial_dimensions, vec![1, 2]);
        assert_eq!(
            (
                d.kernel_input_feature_dimension,
                d.kernel_output_feature_dimension
            ),
            (2, 3)
        );
        assert_eq!(d.kernel_spatial_dimensions, vec![0, 1]);
    }
}
