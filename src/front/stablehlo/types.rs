//! MLIR types as StableHLO uses them: `tensor<2x3xf32>`, `!stablehlo.token`,
//! `tuple<...>`, element types (`i1`, `ui8`, `bf16`, `f8E4M3FN`, `complex<f64>`, `index`)
//! and quantized element types (`!quant.uniform<i8:f32, 0.1:-30>`), and their HLO shapes.
//! What it is not: dynamic shapes (`?` is an error) or MLIR's other builtin types.
//! MLIR: `mlir/lib/AsmParser/TypeParser.cpp`, `mlir/lib/Dialect/Quant/IR/TypeParser.cpp`.

use std::fmt;

use super::lexer::{Cursor, PResult};
use crate::ir::{PrimitiveType, Shape};

/// A quantized element type `!quant.uniform<storage<min:max>:expressed[:axis], scales>`.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantType {
    /// The integer type values are stored in (`i8`, `i32`).
    pub storage: PrimitiveType,
    /// Smallest storage value (the type's minimum unless `i8<-127:127>` says otherwise).
    pub storage_min: i64,
    /// Largest storage value.
    pub storage_max: i64,
    /// The float type the values stand for.
    pub expressed: PrimitiveType,
    /// The quantized dimension for per-axis quantization.
    pub axis: Option<usize>,
    /// One scale (per tensor) or one per index of `axis`.
    pub scales: Vec<f64>,
    /// Zero points, paired with `scales`.
    pub zero_points: Vec<i64>,
}

/// The element type of a tensor.
#[derive(Clone, Debug, PartialEq)]
pub enum ElemType {
    /// A plain type.
    Prim(PrimitiveType),
    /// A quantized type.
    Quant(Box<QuantType>),
}

impl ElemType {
    /// The type HLO stores elements in (the storage type for quantized types).
    pub fn storage(&self) -> PrimitiveType {
        match self {
            ElemType::Prim(p) => *p,
            ElemType::Quant(q) => q.storage,
        }
    }
}

/// A ranked, static tensor type.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorType {
    /// Dimension sizes.
    pub dims: Vec<i64>,
    /// Element type.
    pub elem: ElemType,
}

/// An MLIR type that a StableHLO value can have.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// `tensor<...>`.
    Tensor(TensorType),
    /// `!stablehlo.token`.
    Token,
    /// `tuple<...>`.
    Tuple(Vec<Type>),
}

impl Type {
    /// The HLO shape of a value of this type (row-major; quantized types as their storage).
    pub fn to_shape(&self) -> Shape {
        match self {
            Type::Tensor(t) => Shape::array(t.elem.storage(), &t.dims),
            Type::Token => Shape::Token,
            Type::Tuple(ts) => Shape::Tuple(ts.iter().map(Type::to_shape).collect()),
        }
    }

    /// The tensor type, if this is one.
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// The quantized element type, if this is a tensor of one.
    pub fn quant(&self) -> Option<&QuantType> {
        match self {
            Type::Tensor(TensorType {
                elem: ElemType::Quant(q),
                ..
            }) => Some(q),
            _ => None,
        }
    }
}

/// MLIR's spelling of an element type.
pub fn mlir_name(ty: PrimitiveType) -> String {
    use PrimitiveType::*;
    match ty {
        Pred => "i1".into(),
        C64 => "complex<f32>".into(),
        C128 => "complex<f64>".into(),
        F8E5M2 => "f8E5M2".into(),
        F8E4M3 => "f8E4M3".into(),
        F8E4M3FN => "f8E4M3FN".into(),
        F8E4M3B11FNUZ => "f8E4M3B11FNUZ".into(),
        F8E3M4 => "f8E3M4".into(),
        F8E5M2FNUZ => "f8E5M2FNUZ".into(),
        F8E4M3FNUZ => "f8E4M3FNUZ".into(),
        F8E8M0FNU => "f8E8M0FNU".into(),
        F6E3M2FN => "f6E3M2FN".into(),
        F6E2M3FN => "f6E2M3FN".into(),
        F4E2M1FN => "f4E2M1FN".into(),
        t if t.is_signed_integral() => format!("i{}", t.bit_width()),
        t if t.is_unsigned_integral() => format!("ui{}", t.bit_width()),
        t => t.name().into(),
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Token => f.write_str("!stablehlo.token"),
            Type::Tuple(ts) => {
                f.write_str("tuple<")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(">")
            }
            Type::Tensor(t) => {
                f.write_str("tensor<")?;
                for d in &t.dims {
                    write!(f, "{d}x")?;
                }
                match &t.elem {
                    ElemType::Prim(p) => f.write_str(&mlir_name(*p))?,
                    ElemType::Quant(q) => write!(f, "{q}")?,
                }
                f.write_str(">")
            }
        }
    }
}

impl fmt::Display for QuantType {
    /// `!quant.uniform<i8<-127:127>:f32:1, {0.1:-30, 0.2}>`, as the parser reads it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = self.storage.bit_width() as u32;
        let signed = self.storage.is_signed_integral();
        let (lo, hi) = if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (
                0,
                if bits >= 63 {
                    i64::MAX
                } else {
                    (1i64 << bits) - 1
                },
            )
        };
        write!(f, "!quant.uniform<{}{bits}", if signed { "i" } else { "u" })?;
        if (self.storage_min, self.storage_max) != (lo, hi) {
            write!(f, "<{}:{}>", self.storage_min, self.storage_max)?;
        }
        write!(f, ":{}", mlir_name(self.expressed))?;
        if let Some(a) = self.axis {
            write!(f, ":{a}")?;
        }
        let scale = |s: f64| {
            let t = format!("{s:?}");
            if t.contains(['.', 'e', 'E']) || !s.is_finite() {
                t
            } else {
                format!("{t}.0")
            }
        };
        let pairs: Vec<String> = self
            .scales
            .iter()
            .zip(&self.zero_points)
            .map(|(s, z)| format!("{}:{z}", scale(*s)))
            .collect();
        if self.axis.is_some() {
            write!(f, ", {{{}}}>", pairs.join(", "))
        } else {
            write!(f, ", {}>", pairs.join(", "))
        }
    }
}

/// Parses a builtin element-type spelling (`i32`, `ui8`, `bf16`, `f8E4M3FN`, `index`).
pub fn prim_from_mlir(name: &str) -> Option<PrimitiveType> {
    use PrimitiveType::*;
    Some(match name {
        "i1" => Pred,
        "i2" | "si2" => S2,
        "i4" | "si4" => S4,
        "i8" | "si8" => S8,
        "i16" | "si16" => S16,
        "i32" | "si32" => S32,
        "i64" | "si64" | "index" => S64,
        "ui1" => U1,
        "ui2" => U2,
        "ui4" => U4,
        "ui8" => U8,
        "ui16" => U16,
        "ui32" => U32,
        "ui64" => U64,
        "f16" => F16,
        "bf16" => BF16,
        "f32" => F32,
        "f64" => F64,
        _ => {
            let lower = name.to_ascii_lowercase();
            if !lower.starts_with("f8") && !lower.starts_with("f6") && !lower.starts_with("f4") {
                return None;
            }
            return lower.parse().ok();
        }
    })
}

/// Reads plain decimal digits (no sign, no hex): dimension sizes.
fn digits(c: &mut Cursor<'_>) -> Option<i64> {
    c.skip_ws();
    let start = c.pos;
    while c.peek_raw(0).is_some_and(|b| b.is_ascii_digit()) {
        c.pos += 1;
    }
    if c.pos == start {
        return None;
    }
    c.slice_from(start).parse().ok()
}

/// Parses a type: `tensor<...>`, `!stablehlo.token`, `tuple<...>`, or a bare element type
/// (which stands for a rank-0 tensor, as in `1 : i64` attributes).
pub fn parse_type(c: &mut Cursor<'_>) -> PResult<Type> {
    let loc = c.loc();
    if c.eat("!stablehlo.token") {
        return Ok(Type::Token);
    }
    if c.eat_word("tuple") {
        c.expect("<")?;
        let mut elems = Vec::new();
        if !c.eat(">") {
            loop {
                elems.push(parse_type(c)?);
                if c.eat(">") {
                    break;
                }
                c.expect(",")?;
            }
        }
        return Ok(Type::Tuple(elems));
    }
    if c.eat_word("tensor") {
        c.expect("<")?;
        let mut dims = Vec::new();
        loop {
            c.skip_ws();
            if c.peek_raw(0) == Some(b'?') {
                return Err(c
                    .err("dynamic dimensions ('?') are not supported; xlac needs static shapes")
                    .unsupported());
            }
            if c.peek_raw(0) == Some(b'*') {
                return Err(c.err("unranked tensors are not supported").unsupported());
            }
            match digits(c) {
                Some(d) => {
                    dims.push(d);
                    if !c.eat("x") {
                        return Err(c.expected("'x' after a dimension size"));
                    }
                }
                None => break,
            }
        }
        let elem = parse_elem_type(c)?;
        if c.eat(",") {
            // An encoding attribute; xlac ignores it.
            super::attributes::parse_attr(c)?;
        }
        c.expect(">")?;
        // Sizes are checked where shapes are born, so no later stage multiplies a huge one.
        let shape = crate::ir::ArrayShape::new(elem.storage(), &dims);
        if let Err(e) = crate::ir::size::check_array(&shape) {
            return Err(c.err(format!("tensor type: {e}")));
        }
        return Ok(Type::Tensor(TensorType { dims, elem }));
    }
    match parse_elem_type(c) {
        Ok(elem) => Ok(Type::Tensor(TensorType {
            dims: Vec::new(),
            elem,
        })),
        Err(_) => {
            let found = c.describe_here();
            Err(c.error_at(loc, format!("expected a type, found {found}")))
        }
    }
}

/// Parses an element type, quantized types included.
pub fn parse_elem_type(c: &mut Cursor<'_>) -> PResult<ElemType> {
    let loc = c.loc();
    if c.eat("!quant.uniform") {
        return Ok(ElemType::Quant(Box::new(parse_quant(c)?)));
    }
    if c.eat_word("complex") {
        c.expect("<")?;
        let inner = c.expect_ident("an element type")?;
        c.expect(">")?;
        return match inner {
            "f32" => Ok(ElemType::Prim(PrimitiveType::C64)),
            "f64" => Ok(ElemType::Prim(PrimitiveType::C128)),
            _ => Err(c
                .error_at(
                    loc,
                    format!(
                        "complex<{inner}> is not supported (only complex<f32> and complex<f64>)"
                    ),
                )
                .unsupported()),
        };
    }
    let name = c.expect_ident("an element type")?;
    prim_from_mlir(name)
        .map(ElemType::Prim)
        .ok_or_else(|| c.error_at(loc, format!("unknown element type '{name}'")))
}

/// Parses the `<...>` of `!quant.uniform`.
fn parse_quant(c: &mut Cursor<'_>) -> PResult<QuantType> {
    c.expect("<")?;
    let loc = c.loc();
    let storage_name = c.expect_ident("a storage type")?;
    let storage = match storage_name {
        "u8" => Some(PrimitiveType::U8),
        "u16" => Some(PrimitiveType::U16),
        "u32" => Some(PrimitiveType::U32),
        n => prim_from_mlir(n),
    }
    .filter(|t| t.is_integral())
    .ok_or_else(|| c.error_at(loc, format!("bad quantized storage type '{storage_name}'")))?;
    let bits = storage.bit_width() as u32;
    let (mut storage_min, mut storage_max) = if storage.is_signed_integral() {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (
            0,
            if bits >= 63 {
                i64::MAX
            } else {
                (1i64 << bits) - 1
            },
        )
    };
    if c.eat("<") {
        storage_min = c.int()?;
        c.expect(":")?;
        storage_max = c.int()?;
        c.expect(">")?;
    }
    c.expect(":")?;
    let eloc = c.loc();
    let expressed_name = c.expect_ident("an expressed type")?;
    let expressed = prim_from_mlir(expressed_name)
        .filter(|t| t.is_float())
        .ok_or_else(|| {
            c.error_at(
                eloc,
                format!("bad quantized expressed type '{expressed_name}'"),
            )
        })?;
    let mut axis = None;
    if c.eat(":") {
        axis = Some(c.int()? as usize);
    }
    c.expect(",")?;
    let mut scales = Vec::new();
    let mut zero_points = Vec::new();
    let mut one = |c: &mut Cursor<'_>| -> PResult<()> {
        let loc = c.loc();
        let t = c.number_text().ok_or_else(|| c.expected("a scale"))?;
        scales.push(
            t.parse::<f64>()
                .map_err(|_| c.error_at(loc, format!("bad scale '{t}'")))?,
        );
        zero_points.push(if c.eat(":") { c.int()? } else { 0 });
        Ok(())
    };
    if c.eat("{") {
        loop {
            one(c)?;
            if c.eat("}") {
                break;
            }
            c.expect(",")?;
        }
    } else {
        one(c)?;
    }
    c.expect(">")?;
    Ok(QuantType {
        storage,
        storage_min,
        storage_max,
        expressed,
        axis,
        scales,
        zero_points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> PResult<Type> {
        parse_type(&mut Cursor::new(s, "t", 0))
    }

    #[test]
    fn tensors() {
        assert_eq!(
            ty("tensor<2x0x3xi4>").unwrap().to_shape(),
            Shape::array(PrimitiveType::S4, &[2, 0, 3])
        );
        assert_eq!(
            ty("tensor<f32>").unwrap().to_shape(),
            Shape::scalar(PrimitiveType::F32)
        );
        assert_eq!(
            ty("tensor<4xcomplex<f64>>").unwrap().to_shape(),
            Shape::array(PrimitiveType::C128, &[4])
        );
        assert_eq!(
            ty("tensor<2xf8E4M3FNUZ>").unwrap().to_shape(),
            Shape::array(PrimitiveType::F8E4M3FNUZ, &[2])
        );
        assert_eq!(ty("tensor<2xui64>").unwrap().to_string(), "tensor<2xui64>");
        assert!(
            ty("tensor<2x?xf32>")
                .unwrap_err()
                .message
                .contains("dynamic")
        );
        assert!(ty("tensor<2xq7>").is_err());
    }

    #[test]
    fn tokens_and_tuples() {
        assert_eq!(
            ty("tuple<tensor<2xf64>, tuple<tensor<i64>>, !stablehlo.token>")
                .unwrap()
                .to_shape(),
            Shape::Tuple(vec![
                Shape::array(PrimitiveType::F64, &[2]),
                Shape::Tuple(vec![Shape::scalar(PrimitiveType::S64)]),
                Shape::Token
            ])
        );
    }

    #[test]
    fn quantized() {
        let t = ty("tensor<2x!quant.uniform<i8:f32, 0.1:-30>>").unwrap();
        let q = t.quant().unwrap();
        assert_eq!(
            (
                q.storage,
                q.expressed,
                q.scales.clone(),
                q.zero_points.clone()
            ),
            (PrimitiveType::S8, PrimitiveType::F32, vec![0.1], vec![-30])
        );
        assert_eq!((q.storage_min, q.storage_max), (-128, 127));
        let t = ty("tensor<2x!quant.uniform<i8<-127:127>:f32:0, {0.1:-30,0.5:-20}>>").unwrap();
        let q = t.quant().unwrap();
        assert_eq!(
            (q.axis, q.storage_min, q.zero_points.clone()),
            (Some(0), -127, vec![-30, -20])
        );
        let t = ty("tensor<!quant.uniform<i8:f32, 7.843137254901961E-9>>").unwrap();
        assert_eq!(t.quant().unwrap().zero_points, vec![0]);
    }
}
