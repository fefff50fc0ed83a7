//! Shapes and layouts in HLO text: reading `f32[2,<=3]{0,1}`, `(s32[], /*index=5*/pred[])`,
//! `token[]`, and writing them back (with or without layouts).
//! XLA: `HloParserImpl::ParseShape`/`ParseLayout` in `xla/hlo/parser/hlo_parser.cc`,
//! `ShapeUtil::PrintHumanString` in `xla/shape_util.cc`.

use std::fmt::Write;

use super::lexer::{Cursor, MAX_DEPTH, PResult};
use crate::ir::{ArrayShape, Layout, PrimitiveType, Shape};

/// True if the cursor is at the start of a shape: `(` (a tuple) or a type word followed by `[`.
pub(super) fn at_shape(cur: &mut Cursor<'_>) -> bool {
    match cur.peek() {
        Some(b'(') => true,
        Some(c) if c.is_ascii_alphabetic() => {
            let mut probe = cur.clone();
            let word = probe.ident().unwrap_or("");
            probe.peek_at(0) == Some(b'[') && is_type_word(word)
        }
        _ => false,
    }
}

/// Element types, plus `token` and `opaque`, which are shapes of their own.
fn is_type_word(word: &str) -> bool {
    word == "token" || word == "opaque" || word.parse::<PrimitiveType>().is_ok()
}

/// Reads a shape. Missing layouts are filled in row-major, as XLA's `fill_missing_layouts`.
pub(super) fn parse_shape(cur: &mut Cursor<'_>) -> PResult<Shape> {
    parse_shape_at_depth(cur, 0)
}

fn parse_shape_at_depth(cur: &mut Cursor<'_>, depth: usize) -> PResult<Shape> {
    if depth > MAX_DEPTH {
        return Err(cur.err("shape nests too deeply"));
    }
    if cur.eat("(") {
        let mut elements = Vec::new();
        if !cur.eat(")") {
            loop {
                elements.push(parse_shape_at_depth(cur, depth + 1)?);
                if cur.eat(")") {
                    break;
                }
                cur.expect(",")?;
            }
        }
        return Ok(Shape::Tuple(elements));
    }
    cur.skip_ws();
    let start = cur.pos;
    let word = cur.expect_ident("a shape")?;
    match word {
        "token" | "opaque" => {
            cur.expect("[")?;
            cur.expect("]")?;
            return Ok(if word == "token" {
                Shape::Token
            } else {
                Shape::Opaque
            });
        }
        _ => {}
    }
    let Ok(element_type) = word.parse::<PrimitiveType>() else {
        return Err(cur
            .src
            .error(start, format!("expected a shape, found `{word}`")));
    };
    cur.expect("[")?;
    let mut dims = Vec::new();
    let mut dynamic = Vec::new();
    if !cur.eat("]") {
        loop {
            if cur.eat("?") {
                dims.push(-1);
                dynamic.push(true);
            } else {
                let is_dynamic = cur.eat("<=");
                cur.skip_ws();
                let at = cur.pos;
                let d = cur.int()?;
                if d < 0 {
                    return Err(cur.src.error(at, format!("dimension size {d} is negative")));
                }
                dims.push(d);
                dynamic.push(is_dynamic);
            }
            if cur.eat("]") {
                break;
            }
            cur.expect(",")?;
        }
    }
    let dynamic_dims = if dynamic.iter().any(|&d| d) {
        dynamic
    } else {
        Vec::new()
    };
    let layout = if at_layout(cur) {
        parse_layout(cur, dims.len())?
    } else {
        Layout::row_major(dims.len())
    };
    let shape = ArrayShape {
        element_type,
        dims,
        dynamic_dims,
        layout,
    };
    // Sizes are checked where shapes are born, so no later stage multiplies a huge one
    // (an unknown `?` dimension counts as 0 here; the verifier rejects it later).
    let mut known = shape.clone();
    known.dims.iter_mut().for_each(|d| *d = (*d).max(0));
    crate::ir::size::check_array(&known).map_err(|e| cur.src.error(start, e.to_string()))?;
    Ok(Shape::Array(shape))
}

/// A `{` after a shape starts a layout only if an integer, `:` or `}` follows; otherwise it
/// is the body of a computation (`-> f32[] {`).
fn at_layout(cur: &mut Cursor<'_>) -> bool {
    if cur.peek() != Some(b'{') {
        return false;
    }
    let mut probe = cur.clone();
    probe.pos += 1;
    matches!(probe.peek(), Some(b'0'..=b'9' | b':' | b'}'))
}

/// Reads `{minor_to_major[:suffixes]}`; the suffixes are kept verbatim.
fn parse_layout(cur: &mut Cursor<'_>, rank: usize) -> PResult<Layout> {
    cur.skip_ws();
    let start = cur.pos;
    cur.expect("{")?;
    let mut minor_to_major = Vec::new();
    while matches!(cur.peek(), Some(b'0'..=b'9')) {
        minor_to_major.push(cur.index()?);
        if !cur.eat(",") {
            break;
        }
    }
    let mut extra = None;
    if cur.eat(":") {
        cur.skip_ws();
        let from = cur.pos;
        // The suffixes hold balanced groups such as `T(8,128)` or `P(f32[2]{0})`.
        loop {
            match cur.peek() {
                Some(b'}') | None => break,
                Some(b'(' | b'{' | b'[') => {
                    cur.balanced()?;
                }
                Some(_) => cur.pos += 1,
            }
        }
        extra = Some(cur.slice(from, cur.pos).trim().to_string());
    }
    cur.expect("}")?;
    let mut seen = vec![false; rank];
    let valid = minor_to_major.len() == rank
        && minor_to_major
            .iter()
            .all(|&d| d < rank && !std::mem::replace(&mut seen[d], true));
    // XLA accepts an empty `{}` for any rank in a few places (sparse, buffer shapes); only
    // a full permutation is a usable layout.
    let suffix_only = minor_to_major.is_empty() && extra.is_some();
    if !(valid || suffix_only) {
        return Err(cur.src.error(
            start,
            format!(
                "layout {{{}}} is not a permutation of the {rank} dimensions",
                join(&minor_to_major)
            ),
        ));
    }
    Ok(Layout {
        minor_to_major,
        extra,
    })
}

fn join(v: &[usize]) -> String {
    v.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Writes a shape as XLA does: `f32[2,3]{1,0}` with layouts, `f32[2,3]` without; long tuples
/// get `/*index=5*/` markers every five elements.
pub(super) fn write_shape(out: &mut String, shape: &Shape, with_layout: bool) {
    match shape {
        Shape::Array(a) => {
            let _ = write!(out, "{}[", a.element_type);
            for (i, &d) in a.dims.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let dynamic = a.dynamic_dims.get(i).copied().unwrap_or(false);
                if dynamic && d < 0 {
                    out.push('?');
                } else {
                    if dynamic {
                        out.push_str("<=");
                    }
                    let _ = write!(out, "{d}");
                }
            }
            out.push(']');
            if with_layout && (a.rank() > 0 || a.layout.extra.is_some()) {
                out.push('{');
                out.push_str(&join(&a.layout.minor_to_major));
                if let Some(extra) = &a.layout.extra {
                    out.push(':');
                    out.push_str(extra);
                }
                out.push('}');
            }
        }
        Shape::Tuple(elements) => {
            out.push('(');
            for (i, e) in elements.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                    if i % 5 == 0 {
                        let _ = write!(out, "/*index={i}*/");
                    }
                }
                write_shape(out, e, with_layout);
            }
            out.push(')');
        }
        Shape::Token => out.push_str("token[]"),
        Shape::Opaque => out.push_str("opaque[]"),
    }
}

/// A shape as a string (see [`write_shape`]).
pub(super) fn shape_string(shape: &Shape, with_layout: bool) -> String {
    let mut s = String::new();
    write_shape(&mut s, shape, with_layout);
    s
}

#[cfg(test)]
mod tests {
    use super::super::lexer::Source;
    use super::*;

    fn parse(text: &str) -> Result<Shape, String> {
        let src = Source::new(text, "s");
        let mut cur = Cursor::new(&src);
        let shape = parse_shape(&mut cur).map_err(|e| e.to_string())?;
        assert!(cur.at_end(), "trailing text in {text}");
        Ok(shape)
    }

    #[test]
    fn missing_layout_is_row_major_and_explicit_layout_is_kept() {
        let s = parse("f32[2,3]").unwrap();
        assert_eq!(s.as_array().unwrap().layout.minor_to_major, vec![1, 0]);
        let s = parse("f32[2,3,4]{1,2,0}").unwrap();
        assert_eq!(s.as_array().unwrap().layout.minor_to_major, vec![1, 2, 0]);
        assert_eq!(shape_string(&s, true), "f32[2,3,4]{1,2,0}");
        assert_eq!(shape_string(&s, false), "f32[2,3,4]");
    }

    #[test]
    fn tuples_with_index_comments() {
        let text = "(pred[10]{0}, f32[], f32[], f32[], f32[], /*index=5*/s32[], (), token[])";
        let s = parse(text).unwrap();
        assert_eq!(s.tuple_elements().unwrap().len(), 8);
        assert_eq!(shape_string(&s, true), text);
    }

    #[test]
    fn dynamic_dimensions_and_layout_suffixes() {
        let s = parse("f32[<=10,?]{1,0:T(8,128)S(1)}").unwrap();
        assert_eq!(shape_string(&s, true), "f32[<=10,?]{1,0:T(8,128)S(1)}");
    }

    #[test]
    fn bad_layout_is_an_error() {
        let e = parse("f32[2,3]{0,0}").unwrap_err();
        assert_eq!(
            e,
            "s:1:9: layout {0,0} is not a permutation of the 2 dimensions"
        );
        let e = parse("f33[2]").unwrap_err();
        assert_eq!(e, "s:1:1: expected a shape, found `f33`");
    }
}
