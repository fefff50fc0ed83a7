//! MLIR's text spelling of VHLO types and attributes, for what the op tree keeps as text
//! (opaque and unregistered attributes) and for error messages.

use std::fmt::Write as _;
use std::rc::Rc;

use crate::front::stablehlo::bytecode::attr_table::{A, EnumKind, T};
use crate::front::stablehlo::bytecode::vhlo::{enum_keyword, enum_name};
use crate::front::stablehlo::types;

/// MLIR's spelling of a type.
pub fn type_text(t: &T) -> String {
    match t {
        T::Int(1, _) | T::Bool => "i1".into(),
        T::Int(w, None) => format!("i{w}"),
        T::Int(w, Some(true)) => format!("si{w}"),
        T::Int(w, Some(false)) => format!("ui{w}"),
        T::Index => "index".into(),
        T::Float(p) => types::mlir_name(*p),
        T::Complex(e) => format!("complex<{}>", type_text(e)),
        T::Tensor(dims, e, enc) => {
            let mut s = String::from("tensor<");
            for d in dims {
                if *d < 0 {
                    s.push_str("?x");
                } else {
                    let _ = write!(s, "{d}x");
                }
            }
            s.push_str(&type_text(e));
            if let Some(enc) = enc {
                let _ = write!(s, ", {}", attr_text(enc));
            }
            s.push('>');
            s
        }
        T::Unranked(e) => format!("tensor<*x{}>", type_text(e)),
        T::Tuple(ts) => format!(
            "tuple<{}>",
            ts.iter()
                .map(|t| type_text(t))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        T::Token => "!stablehlo.token".into(),
        T::Function(i, o) => {
            let l = |v: &[Rc<T>]| {
                v.iter()
                    .map(|t| type_text(t))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if o.len() == 1 && !matches!(*o[0], T::Function(..)) {
                format!("({}) -> {}", l(i), l(o))
            } else {
                format!("({}) -> ({})", l(i), l(o))
            }
        }
        T::Quant {
            storage,
            expressed,
            axis,
            scales,
            zero_points,
            ..
        } => {
            let sc: Vec<String> = scales
                .iter()
                .zip(zero_points)
                .map(|(s, z)| format!("{}:{z}", float_text(*s)))
                .collect();
            match axis {
                None => format!(
                    "!quant.uniform<{}:{}, {}>",
                    type_text(storage),
                    type_text(expressed),
                    sc.join(",")
                ),
                Some(a) => format!(
                    "!quant.uniform<{}:{}:{a}, {{{}}}>",
                    type_text(storage),
                    type_text(expressed),
                    sc.join(",")
                ),
            }
        }
        T::None => "none".into(),
        T::Other(s) => (*s).into(),
        T::Text(s) => s.clone(),
    }
}

/// MLIR's short float form (`1.000000e+00`), or the shortest exact decimal.
pub fn float_text(v: f64) -> String {
    if v.is_nan() {
        return "0x7FF8000000000000".into();
    }
    if v.is_infinite() {
        return if v > 0.0 {
            "0x7FF0000000000000".into()
        } else {
            "0xFFF0000000000000".into()
        };
    }
    let s = format!("{v:.6e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let short = format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    if short.parse::<f64>().ok() == Some(v) {
        return short;
    }
    let s = format!("{v:?}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

/// MLIR's spelling of an attribute (dictionaries keep it for `backend_config`).
pub fn attr_text(a: &A) -> String {
    match a {
        A::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| attr_text(i))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        A::Dict(entries) => {
            let parts: Vec<String> = entries
                .iter()
                .map(|(k, v)| {
                    let key = if k
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
                        && k.chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    {
                        k.clone()
                    } else {
                        quote(k)
                    };
                    if matches!(&**v, A::Unit) {
                        key
                    } else {
                        format!("{key} = {}", attr_text(v))
                    }
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        A::Str(s) => quote(s),
        A::Symbol(s) => format!("@{s}"),
        A::Type(t) => type_text(t),
        A::Unit => "unit".into(),
        A::Bool(b) => b.to_string(),
        A::Int(t, v) => {
            if t.bit_width() == Some(1) {
                (*v != 0).to_string()
            } else {
                format!("{v} : {}", type_text(t))
            }
        }
        A::Float(t, v) => format!("{} : {}", float_text(*v), type_text(t)),
        A::DenseArray(t, v) => {
            if v.is_empty() {
                format!("array<{}>", type_text(t))
            } else {
                let items: Vec<String> = if t.bit_width() == Some(1) {
                    v.iter().map(|&x| (x != 0).to_string()).collect()
                } else {
                    v.iter().map(|x| x.to_string()).collect()
                };
                format!("array<{}: {}>", type_text(t), items.join(", "))
            }
        }
        A::Tensor(t, data) => {
            let hex: String = data.iter().map(|b| format!("{b:02X}")).collect();
            format!("dense<\"0x{hex}\"> : {}", type_text(t))
        }
        A::Enum(k, v) => {
            if *k == EnumKind::CustomCallApiVersion {
                format!("{v} : i32")
            } else {
                format!(
                    "#stablehlo<{} {}>",
                    enum_keyword(*k),
                    enum_name(*k, *v).unwrap_or("?")
                )
            }
        }
        A::TypeExtensions(b) => format!(
            "#stablehlo.bounds<{}>",
            b.iter()
                .map(|x| if *x < 0 {
                    "?".to_string()
                } else {
                    x.to_string()
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        A::OutputOperandAlias {
            output,
            operand,
            operand_tuple,
        } => format!(
            "#stablehlo.output_operand_alias<output_tuple_indices = {output:?}, operand_index = {operand}, operand_tuple_indices = {operand_tuple:?}>"
        ),
        A::ResultAccuracy {
            atol,
            rtol,
            ulps,
            mode,
        } => format!(
            "#stablehlo.result_accuracy<atol = {}, rtol = {}, ulps = {ulps}, mode = {}>",
            float_text(*atol),
            float_text(*rtol),
            attr_text(mode)
        ),
        A::Loc(_) => "loc(unknown)".into(),
        A::Sdy(s) => s.text(),
        A::Text(s) => s.clone(),
    }
}

/// A string in MLIR's quoting.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:02X}");
            }
        }
    }
    out.push('"');
    out
}
