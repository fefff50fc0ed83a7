//! Prints the parsed form (`ast.rs`) back as MLIR text: `module @name attributes {...}`,
//! `func.func` in its pretty form and every op in MLIR's generic form
//! (`%0 = "stablehlo.add"(%a, %b) <{...}> ({regions}) {...} : (T, T) -> T`). The text
//! parses back to the same op tree; it is how `xlac convert --to mlir` and the dump show
//! a portable artifact. Inherent attributes go in `<{...}>`, dotted (discardable) names
//! in `{...}`; integers are printed `: i64` unless the attribute is known to be `i32`.
//! MLIR: `mlir/lib/IR/AsmPrinter.cpp` (`printGenericOp`).

use std::fmt::Write as _;

use super::ast::{Block, MlirModule, Operation, Region};
use super::attributes::Attr;
use super::dense::{DenseValue, Elem};
use crate::ir::ConvolutionDimensionNumbers;

/// The module as MLIR text.
pub fn print_module(m: &MlirModule) -> String {
    let mut out = String::from("module");
    if let Some(n) = &m.name {
        let _ = write!(out, " @{}", symbol(n));
    }
    if !m.attributes.is_empty() {
        let _ = write!(out, " attributes {}", dict(&m.attributes));
    }
    out.push_str(" {\n");
    for (name, mesh) in &m.meshes {
        let _ = writeln!(out, "  sdy.mesh @{} = {mesh}", symbol(name));
    }
    // `T {attrs}` for an argument or result with attributes.
    let with_attrs = |t: String, attrs: Option<&Vec<(String, Attr)>>| match attrs {
        Some(a) if !a.is_empty() => format!("{t} {}", dict(a)),
        _ => t,
    };
    for f in &m.functions {
        let args: Vec<String> = f
            .arguments
            .iter()
            .enumerate()
            .map(|(i, (n, t))| {
                with_attrs(format!("%{}: {t}", value(n)), f.argument_attributes.get(i))
            })
            .collect();
        let results: Vec<String> = f
            .results
            .iter()
            .enumerate()
            .map(|(i, t)| with_attrs(t.to_string(), f.result_attributes.get(i)))
            .collect();
        let _ = write!(out, "  func.func @{}({})", symbol(&f.name), args.join(", "));
        if !results.is_empty() {
            let _ = write!(out, " -> ({})", results.join(", "));
        }
        out.push_str(" {\n");
        for b in &f.body.blocks {
            for op in &b.operations {
                print_op(op, &mut out, 2);
            }
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// A symbol name, quoted when it is not a bare identifier.
fn symbol(n: &str) -> String {
    if !n.is_empty()
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_$.-".contains(c))
        && !n.starts_with(|c: char| c.is_ascii_digit())
    {
        n.to_string()
    } else {
        quote(n)
    }
}

/// A value name (valid suffix identifier characters only).
fn value(n: &str) -> String {
    n.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_$.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn print_op(op: &Operation, out: &mut String, depth: usize) {
    let pad = "  ".repeat(depth);
    out.push_str(&pad);
    if !op.results.is_empty() {
        let rs: Vec<String> = op
            .results
            .iter()
            .map(|r| {
                if r.count == 1 {
                    format!("%{}", value(&r.name))
                } else {
                    format!("%{}:{}", value(&r.name), r.count)
                }
            })
            .collect();
        let _ = write!(out, "{} = ", rs.join(", "));
    }
    let operands: Vec<String> = op
        .operands
        .iter()
        .map(|v| {
            if v.index == 0 {
                format!("%{}", value(&v.name))
            } else {
                format!("%{}#{}", value(&v.name), v.index)
            }
        })
        .collect();
    let _ = write!(out, "{}({})", quote(&op.name), operands.join(", "));
    let (inherent, discardable): (Vec<_>, Vec<_>) = op
        .attributes
        .iter()
        .cloned()
        .partition(|(k, _)| !k.contains('.'));
    if !inherent.is_empty() {
        let _ = write!(out, " <{}>", dict(&inherent));
    }
    if !op.regions.is_empty() {
        out.push_str(" (");
        for (i, r) in op.regions.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            print_region(r, out, depth + 1);
        }
        out.push(')');
    }
    if !discardable.is_empty() {
        let _ = write!(out, " {}", dict(&discardable));
    }
    let ins: Vec<String> = op.operand_types.iter().map(|t| t.to_string()).collect();
    let outs: Vec<String> = op.result_types.iter().map(|t| t.to_string()).collect();
    let _ = writeln!(out, " : ({}) -> ({})", ins.join(", "), outs.join(", "));
}

fn print_region(r: &Region, out: &mut String, depth: usize) {
    out.push_str("{\n");
    for b in &r.blocks {
        print_block(b, out, depth);
    }
    out.push_str(&"  ".repeat(depth.saturating_sub(1)));
    out.push('}');
}

fn print_block(b: &Block, out: &mut String, depth: usize) {
    if !b.arguments.is_empty() {
        let args: Vec<String> = b
            .arguments
            .iter()
            .map(|(n, t)| format!("%{}: {t}", value(n)))
            .collect();
        let _ = writeln!(
            out,
            "{}^bb0({}):",
            "  ".repeat(depth.saturating_sub(1)),
            args.join(", ")
        );
    }
    for op in &b.operations {
        print_op(op, out, depth);
    }
}

/// `{name = value, ...}`.
fn dict(entries: &[(String, Attr)]) -> String {
    let parts: Vec<String> = entries
        .iter()
        .map(|(k, v)| {
            let key = if k
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.$".contains(c))
                && k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            {
                k.clone()
            } else {
                quote(k)
            };
            match v {
                Attr::Unit => key,
                v => format!("{key} = {}", attr(k, v)),
            }
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// The `#stablehlo<KIND VALUE>` keyword of an enum attribute, by attribute name.
fn enum_kind(name: &str) -> Option<&'static str> {
    Some(match name {
        "comparison_direction" => "comparison_direction",
        "compare_type" => "comparison_type",
        "precision_config" | "operand_precision" => "precision",
        "fft_type" => "fft_type",
        "rng_algorithm" => "rng_algorithm",
        "rng_distribution" => "rng_distribution",
        "transpose_a" => "transpose",
        "mode" => "result_accuracy_mode",
        _ => return None,
    })
}

/// The integer type of an integer attribute, by attribute name.
fn int_type(name: &str) -> &'static str {
    match name {
        "mhlo.num_partitions" | "mhlo.num_replicas" | "api_version" | "version" => "i32",
        _ => "i64",
    }
}

fn attr(name: &str, a: &Attr) -> String {
    match a {
        Attr::Unit => "unit".into(),
        Attr::Bool(b) => b.to_string(),
        Attr::Int(v) => format!("{v} : {}", int_type(name)),
        Attr::Float(f) => {
            let ty = if name == "epsilon" { "f32" } else { "f64" };
            format!("{} : {ty}", float(*f))
        }
        Attr::Str(s) => quote(s),
        Attr::Symbol(s) => format!("@{}", symbol(s)),
        Attr::Array(items) => {
            let items: Vec<String> = items.iter().map(|i| attr(name, i)).collect();
            format!("[{}]", items.join(", "))
        }
        Attr::Ints(v) => {
            let elem = if name == "window_reversal" {
                "i1"
            } else {
                "i64"
            };
            if v.is_empty() {
                format!("array<{elem}>")
            } else if elem == "i1" {
                let items: Vec<String> = v.iter().map(|&x| (x != 0).to_string()).collect();
                format!("array<i1: {}>", items.join(", "))
            } else {
                let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                format!("array<i64: {}>", items.join(", "))
            }
        }
        Attr::Dense(d) => format!("dense<{}> : {}", dense(&d.value), d.ty),
        // The text as read (MLIR's spelling, with integer types) when there is one.
        Attr::Dict(_, text) if !text.is_empty() => text.clone(),
        Attr::Dict(entries, _) => dict(entries),
        Attr::Enum(v) => match enum_kind(name) {
            Some(kind) => format!("#stablehlo<{kind} {v}>"),
            None => v.clone(),
        },
        Attr::Struct(n, fields) => {
            let n = match n.as_str() {
                "" => "stablehlo.dot_algorithm",
                n => n,
            };
            let f: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{k} = {}", field(k, v)))
                .collect();
            format!("#{n}<{}>", f.join(", "))
        }
        Attr::Conv(d) => format!("#stablehlo.conv<{}>", conv(d)),
        Attr::Type(t) => t.to_string(),
        Attr::Opaque(s) => s.clone(),
    }
}

/// A field of a `#stablehlo.*<...>` struct: lists and integers without types.
fn field(name: &str, a: &Attr) -> String {
    match a {
        Attr::Int(v) => v.to_string(),
        Attr::Ints(v) => format!(
            "[{}]",
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Attr::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| field(name, i))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Attr::Float(f) => float(*f),
        Attr::Struct(n, fields) if n == "pair" => {
            let get = |k: &str| {
                fields
                    .iter()
                    .find(|(f, _)| f == k)
                    .map(|(_, v)| field(name, v))
                    .unwrap_or_default()
            };
            format!("{} x {}", get("lhs"), get("rhs"))
        }
        other => attr(name, other),
    }
}

/// MLIR's convolution labels `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
fn conv(d: &ConvolutionDimensionNumbers) -> String {
    let labels = |batch: usize, feature: usize, spatial: &[usize], names: (&str, &str)| {
        let n = spatial.len() + 2;
        let mut l = vec![String::from("?"); n];
        if batch < n {
            l[batch] = names.0.into();
        }
        if feature < n {
            l[feature] = names.1.into();
        }
        for (i, &s) in spatial.iter().enumerate() {
            if s < n {
                l[s] = i.to_string();
            }
        }
        format!("[{}]", l.join(", "))
    };
    format!(
        "{}x{}->{}",
        labels(
            d.input_batch_dimension,
            d.input_feature_dimension,
            &d.input_spatial_dimensions,
            ("b", "f")
        ),
        labels(
            d.kernel_output_feature_dimension,
            d.kernel_input_feature_dimension,
            &d.kernel_spatial_dimensions,
            ("o", "i")
        ),
        labels(
            d.output_batch_dimension,
            d.output_feature_dimension,
            &d.output_spatial_dimensions,
            ("b", "f")
        ),
    )
}

fn dense(v: &DenseValue) -> String {
    match v {
        DenseValue::Blob(bytes) => {
            let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
            format!("\"0x{hex}\"")
        }
        DenseValue::Elems { elems, shape } => match shape {
            None => elems.first().map(elem).unwrap_or_default(),
            Some(dims) => {
                let mut it = elems.iter();
                nest(dims, &mut it)
            }
        },
    }
}

fn nest<'a>(dims: &[i64], it: &mut impl Iterator<Item = &'a Elem>) -> String {
    let Some((&first, rest)) = dims.split_first() else {
        return it.next().map(elem).unwrap_or_default();
    };
    let items: Vec<String> = (0..first.max(0)).map(|_| nest(rest, it)).collect();
    format!("[{}]", items.join(", "))
}

fn elem(e: &Elem) -> String {
    match e {
        Elem::Int(v) => v.to_string(),
        Elem::Hex(v) => format!("0x{v:X}"),
        Elem::Float(s) => s.clone(),
        Elem::Bool(b) => b.to_string(),
        Elem::Complex(re, im) => format!("({}, {})", elem(re), elem(im)),
    }
}

/// A float that reads back exactly.
fn float(v: f64) -> String {
    if v.is_finite() {
        let s = format!("{v:e}");
        if s.contains('.') {
            s
        } else {
            s.replacen('e', ".0e", 1)
        }
    } else {
        format!("0x{:016X}", v.to_bits())
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:02X}");
            }
        }
    }
    out.push('"');
    out
}
