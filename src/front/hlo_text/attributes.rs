//! Attribute values of HLO text, each syntax read and written in one place: lists `{0,2}`,
//! windows `{size=3x3 pad=1_1x1_1}`, `dim_labels=b01f_01io->b01f`, `padding=0_0x1_2_1`,
//! `slice={[0:4:2]}`, `metadata={...}`, shape indices, aliasing tables and program shapes.
//! Each reader gets a cursor over exactly one attribute value.
//! XLA: `HloParserImpl::Parse{Window,ConvolutionDimensionNumbers,PaddingConfig,SliceRanges,
//! Metadata,...}` in `xla/hlo/parser/hlo_parser.cc`; `window_util::ToString`,
//! `ConvolutionDimensionNumbersToString`, `OpMetadataToString` for printing.

use std::fmt::Write;

use super::lexer::{Cursor, PResult};
use super::shapes::{parse_shape, write_shape};
use crate::ir::{
    BufferDonor, ConvolutionDimensionNumbers, InputOutputAlias, Metadata, OutputOperandAlias,
    PaddingDimension, Precision, ProgramShape, ShapeIndex, SliceDimension, Window, WindowDimension,
};

/// `{1,2,3}` (or `{}`) as integers.
pub(super) fn parse_int_list(cur: &mut Cursor<'_>) -> PResult<Vec<i64>> {
    cur.expect("{")?;
    let mut out = Vec::new();
    if cur.eat("}") {
        return Ok(out);
    }
    loop {
        out.push(cur.int()?);
        if cur.eat("}") {
            return Ok(out);
        }
        cur.expect(",")?;
    }
}

/// `{0,2}` as dimension numbers (non-negative).
pub(super) fn parse_index_list(cur: &mut Cursor<'_>) -> PResult<Vec<usize>> {
    cur.skip_ws();
    let at = cur.pos;
    parse_int_list(cur)?
        .into_iter()
        .map(|v| {
            usize::try_from(v).map_err(|_| {
                cur.src
                    .error(at, format!("expected a dimension number, found {v}"))
            })
        })
        .collect()
}

/// `true` or `false`.
pub(super) fn parse_bool(cur: &mut Cursor<'_>) -> PResult<bool> {
    match cur.ident() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(cur.expected("`true` or `false`")),
    }
}

/// `{1,2,3}` written back.
pub(super) fn list_string<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("{{{}}}", items.join(","))
}

/// `NxNxN`: one integer per dimension.
fn parse_x_list(cur: &mut Cursor<'_>) -> PResult<Vec<i64>> {
    let mut out = vec![cur.int()?];
    while cur.peek_at(0) == Some(b'x') {
        cur.pos += 1;
        out.push(cur.int()?);
    }
    Ok(out)
}

/// `lo_hi[_interior]xlo_hi...`: edge (and interior) padding per dimension.
fn parse_pad_list(cur: &mut Cursor<'_>, allow_interior: bool) -> PResult<Vec<PaddingDimension>> {
    let mut out = Vec::new();
    loop {
        let low = cur.int()?;
        if cur.peek_at(0) != Some(b'_') {
            return Err(cur.expected("`_` between low and high padding"));
        }
        cur.pos += 1;
        let high = cur.int()?;
        let mut interior = 0;
        if allow_interior && cur.peek_at(0) == Some(b'_') {
            cur.pos += 1;
            cur.skip_ws();
            let at = cur.pos;
            interior = cur.int()?;
            if interior < 0 {
                return Err(cur.src.error(at, "interior padding must not be negative"));
            }
        }
        out.push(PaddingDimension {
            low,
            high,
            interior,
        });
        if cur.peek_at(0) != Some(b'x') {
            return Ok(out);
        }
        cur.pos += 1;
    }
}

/// `padding=0_0x1_2_1` of a pad.
pub(super) fn parse_padding(cur: &mut Cursor<'_>) -> PResult<Vec<PaddingDimension>> {
    parse_pad_list(cur, true)
}

/// `padding=` written back; interior parts only when one is non-zero, as XLA does.
pub(super) fn padding_string(padding: &[PaddingDimension]) -> String {
    let interior = padding.iter().any(|p| p.interior != 0);
    let part = |p: &PaddingDimension| match interior {
        true => format!("{}_{}_{}", p.low, p.high, p.interior),
        false => format!("{}_{}", p.low, p.high),
    };
    padding.iter().map(part).collect::<Vec<_>>().join("x")
}

/// `window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x1}`.
/// Keys in any order, separated by spaces; only `size` is required.
pub(super) fn parse_window(cur: &mut Cursor<'_>) -> PResult<Window> {
    cur.expect("{")?;
    let mut size = None;
    let (mut stride, mut pad, mut lhs, mut rhs, mut rev) = (None, None, None, None, None);
    while !cur.eat("}") {
        cur.skip_ws();
        let at = cur.pos;
        let key = cur.expect_ident("a window field")?;
        cur.expect("=")?;
        let slot = match key {
            "size" => &mut size,
            "stride" => &mut stride,
            "lhs_dilate" => &mut lhs,
            "rhs_dilate" => &mut rhs,
            "rhs_reversal" => &mut rev,
            "pad" => {
                pad = Some(parse_pad_list(cur, false)?);
                cur.eat(",");
                continue;
            }
            _ => return Err(cur.src.error(at, format!("unknown window field `{key}`"))),
        };
        *slot = Some(parse_x_list(cur)?);
        cur.eat(",");
    }
    let Some(size) = size else {
        // `window={}`: a window of no dimensions.
        if stride.is_none() && pad.is_none() && lhs.is_none() && rhs.is_none() && rev.is_none() {
            return Ok(Window::default());
        }
        return Err(cur.err("window needs `size=`"));
    };
    let n = size.len();
    let check = |name: &str, len: usize| -> PResult<()> {
        if len == n {
            Ok(())
        } else {
            Err(cur.src.error(
                cur.pos,
                format!("window `{name}` has {len} dimensions but `size` has {n}"),
            ))
        }
    };
    let mut dims: Vec<WindowDimension> =
        size.iter().map(|&s| WindowDimension::of_size(s)).collect();
    if let Some(v) = stride {
        check("stride", v.len())?;
        dims.iter_mut().zip(v).for_each(|(d, v)| d.stride = v);
    }
    if let Some(v) = pad {
        check("pad", v.len())?;
        dims.iter_mut()
            .zip(v)
            .for_each(|(d, p)| (d.padding_low, d.padding_high) = (p.low, p.high));
    }
    if let Some(v) = lhs {
        check("lhs_dilate", v.len())?;
        dims.iter_mut()
            .zip(v)
            .for_each(|(d, v)| d.base_dilation = v);
    }
    if let Some(v) = rhs {
        check("rhs_dilate", v.len())?;
        dims.iter_mut()
            .zip(v)
            .for_each(|(d, v)| d.window_dilation = v);
    }
    if let Some(v) = rev {
        check("rhs_reversal", v.len())?;
        dims.iter_mut()
            .zip(v)
            .for_each(|(d, v)| d.window_reversal = v != 0);
    }
    Ok(Window { dimensions: dims })
}

/// `{size=... }` written back, printing each field only when some dimension is not default.
pub(super) fn window_string(window: &Window) -> String {
    let dims = &window.dimensions;
    let join =
        |f: &dyn Fn(&WindowDimension) -> String| dims.iter().map(f).collect::<Vec<_>>().join("x");
    let mut parts = Vec::new();
    if !dims.is_empty() {
        parts.push(format!("size={}", join(&|d| d.size.to_string())));
    }
    if dims.iter().any(|d| d.stride != 1) {
        parts.push(format!("stride={}", join(&|d| d.stride.to_string())));
    }
    if dims
        .iter()
        .any(|d| d.padding_low != 0 || d.padding_high != 0)
    {
        parts.push(format!(
            "pad={}",
            join(&|d| format!("{}_{}", d.padding_low, d.padding_high))
        ));
    }
    if dims.iter().any(|d| d.base_dilation != 1) {
        parts.push(format!(
            "lhs_dilate={}",
            join(&|d| d.base_dilation.to_string())
        ));
    }
    if dims.iter().any(|d| d.window_dilation != 1) {
        parts.push(format!(
            "rhs_dilate={}",
            join(&|d| d.window_dilation.to_string())
        ));
    }
    if dims.iter().any(|d| d.window_reversal) {
        parts.push(format!(
            "rhs_reversal={}",
            join(&|d| u8::from(d.window_reversal).to_string())
        ));
    }
    format!("{{{}}}", parts.join(" "))
}

/// `slice={[0:4], [1:9:2]}`.
pub(super) fn parse_slice(cur: &mut Cursor<'_>) -> PResult<Vec<SliceDimension>> {
    cur.expect("{")?;
    let mut out = Vec::new();
    if cur.eat("}") {
        return Ok(out);
    }
    loop {
        cur.expect("[")?;
        let start = cur.int()?;
        cur.expect(":")?;
        let limit = cur.int()?;
        let stride = if cur.eat(":") { cur.int()? } else { 1 };
        cur.expect("]")?;
        out.push(SliceDimension {
            start,
            limit,
            stride,
        });
        if cur.eat("}") {
            return Ok(out);
        }
        cur.expect(",")?;
    }
}

/// `slice=` written back; strides only when one is not 1, as XLA does.
pub(super) fn slice_string(slice: &[SliceDimension]) -> String {
    let strided = slice.iter().any(|s| s.stride != 1);
    let part = |s: &SliceDimension| match strided {
        true => format!("[{}:{}:{}]", s.start, s.limit, s.stride),
        false => format!("[{}:{}]", s.start, s.limit),
    };
    format!(
        "{{{}}}",
        slice.iter().map(part).collect::<Vec<_>>().join(", ")
    )
}

/// `dim_labels=b01f_01io->b01f`: `b`/`f` batch and feature, `i`/`o` kernel input/output
/// feature, digits the spatial dimensions in order.
pub(super) fn parse_dim_labels(cur: &mut Cursor<'_>) -> PResult<ConvolutionDimensionNumbers> {
    cur.skip_ws();
    let at = cur.pos;
    let text = cur.slice(cur.pos, cur.end).trim();
    cur.pos = cur.end;
    let bad = |why: &str| cur.src.error(at, format!("bad dim_labels `{text}`: {why}"));
    let (lhs_rhs, out) = text.split_once("->").ok_or_else(|| bad("missing `->`"))?;
    let (lhs, rhs) = lhs_rhs.split_once('_').ok_or_else(|| bad("missing `_`"))?;
    let rank = lhs.len();
    if rank < 2 || rhs.len() != rank || out.len() != rank {
        return Err(bad(
            "the three parts must have the same length (at least 2)",
        ));
    }
    // Each part: one position per dimension; the letters and the spatial digits 0..rank-2.
    let read = |part: &str, letters: [char; 2]| -> PResult<(usize, usize, Vec<usize>)> {
        let mut found = [None, None];
        let mut spatial = vec![None; rank - 2];
        for (pos, c) in part.chars().enumerate() {
            if let Some(k) = letters.iter().position(|&l| l == c) {
                if found[k].replace(pos).is_some() {
                    return Err(bad(&format!("`{c}` appears twice")));
                }
            } else if let Some(d) = c.to_digit(10) {
                let slot = spatial
                    .get_mut(d as usize)
                    .ok_or_else(|| bad(&format!("spatial dimension {d} out of range")))?;
                if slot.replace(pos).is_some() {
                    return Err(bad(&format!("`{c}` appears twice")));
                }
            } else if c != '?' {
                return Err(bad(&format!("unexpected `{c}`")));
            }
        }
        let [Some(a), Some(b)] = found else {
            return Err(bad(&format!(
                "`{part}` needs `{}` and `{}`",
                letters[0], letters[1]
            )));
        };
        let spatial = spatial
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| bad("a spatial dimension is missing"))?;
        Ok((a, b, spatial))
    };
    let (input_batch_dimension, input_feature_dimension, input_spatial_dimensions) =
        read(lhs, ['b', 'f'])?;
    let (
        kernel_input_feature_dimension,
        kernel_output_feature_dimension,
        kernel_spatial_dimensions,
    ) = read(rhs, ['i', 'o'])?;
    let (output_batch_dimension, output_feature_dimension, output_spatial_dimensions) =
        read(out, ['b', 'f'])?;
    Ok(ConvolutionDimensionNumbers {
        input_batch_dimension,
        input_feature_dimension,
        input_spatial_dimensions,
        kernel_input_feature_dimension,
        kernel_output_feature_dimension,
        kernel_spatial_dimensions,
        output_batch_dimension,
        output_feature_dimension,
        output_spatial_dimensions,
    })
}

/// `b01f_01io->b01f` written back.
pub(super) fn dim_labels_string(d: &ConvolutionDimensionNumbers) -> String {
    let part = |rank: usize, a: (usize, char), b: (usize, char), spatial: &[usize]| -> String {
        let mut chars = vec!['?'; rank];
        let mut put = |pos: usize, c: char| {
            if let Some(slot) = chars.get_mut(pos) {
                *slot = c;
            }
        };
        put(a.0, a.1);
        put(b.0, b.1);
        for (i, &pos) in spatial.iter().enumerate() {
            put(pos, char::from_digit(i as u32 % 10, 10).unwrap_or('?'));
        }
        chars.into_iter().collect()
    };
    let rank = d.input_spatial_dimensions.len() + 2;
    format!(
        "{}_{}->{}",
        part(
            rank,
            (d.input_batch_dimension, 'b'),
            (d.input_feature_dimension, 'f'),
            &d.input_spatial_dimensions
        ),
        part(
            rank,
            (d.kernel_input_feature_dimension, 'i'),
            (d.kernel_output_feature_dimension, 'o'),
            &d.kernel_spatial_dimensions
        ),
        part(
            rank,
            (d.output_batch_dimension, 'b'),
            (d.output_feature_dimension, 'f'),
            &d.output_spatial_dimensions
        ),
    )
}

/// `{default,highest}`.
pub(super) fn parse_precision_list(cur: &mut Cursor<'_>) -> PResult<Vec<Precision>> {
    cur.expect("{")?;
    let mut out = Vec::new();
    while !cur.eat("}") {
        if !out.is_empty() {
            cur.expect(",")?;
        }
        cur.skip_ws();
        let at = cur.pos;
        let word = cur.expect_ident("a precision")?;
        out.push(
            word.parse()
                .map_err(|_| cur.src.error(at, format!("unknown precision `{word}`")))?,
        );
    }
    Ok(out)
}

/// `metadata={op_type="..." op_name="..." source_file="..." source_line=3 stack_frame_id=1}`;
/// keys xlac does not model are kept verbatim in `other`.
pub(super) fn parse_metadata(cur: &mut Cursor<'_>) -> PResult<Metadata> {
    cur.expect("{")?;
    let mut m = Metadata::default();
    while !cur.eat("}") {
        cur.eat(",");
        let key = cur.expect_ident("a metadata field")?;
        cur.expect("=")?;
        let int_slot = match key {
            "source_line" => Some(&mut m.source_line),
            "source_end_line" => Some(&mut m.source_end_line),
            "source_column" => Some(&mut m.source_column),
            "source_end_column" => Some(&mut m.source_end_column),
            "stack_frame_id" => Some(&mut m.stack_frame_id),
            _ => None,
        };
        if let Some(slot) = int_slot {
            *slot = Some(cur.int()?);
            continue;
        }
        let str_slot = match key {
            "op_type" => Some(&mut m.op_type),
            "op_name" => Some(&mut m.op_name),
            "source_file" => Some(&mut m.source_file),
            _ => None,
        };
        if let Some(slot) = str_slot {
            *slot = Some(cur.string()?);
            continue;
        }
        // Unknown key: keep the value text (a string, a bool, a number, a group).
        cur.skip_ws();
        let start = cur.pos;
        match cur.peek() {
            Some(b'"' | b'\'') => {
                cur.string()?;
            }
            Some(b'{' | b'(' | b'[') => {
                cur.balanced()?;
            }
            _ => {
                while let Some(c) = cur.peek_at(0) {
                    if c.is_ascii_whitespace() || c == b'}' {
                        break;
                    }
                    cur.pos += 1;
                }
            }
        }
        if cur.pos == start {
            return Err(cur.expected("a metadata value"));
        }
        m.other
            .push((key.to_string(), cur.slice(start, cur.pos).to_string()));
    }
    Ok(m)
}

/// `{op_type="..." op_name="..." ...}` written back in XLA's field order.
pub(super) fn metadata_string(m: &Metadata) -> String {
    let mut parts = Vec::new();
    let mut string = |key: &str, v: &Option<String>| {
        if let Some(v) = v {
            parts.push(format!("{key}={}", quote(v)));
        }
    };
    string("op_type", &m.op_type);
    string("op_name", &m.op_name);
    string("source_file", &m.source_file);
    let ints = [
        ("source_line", m.source_line),
        ("source_end_line", m.source_end_line),
        ("source_column", m.source_column),
        ("source_end_column", m.source_end_column),
    ];
    for (key, v) in ints {
        if let Some(v) = v {
            parts.push(format!("{key}={v}"));
        }
    }
    for (key, v) in &m.other {
        parts.push(format!("{key}={v}"));
    }
    if let Some(v) = m.stack_frame_id {
        parts.push(format!("stack_frame_id={v}"));
    }
    format!("{{{}}}", parts.join(" "))
}

/// A string in double quotes with C escapes (XLA's `CEscape`).
pub(super) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A shape index `{}`, `{1}`, `{1,0}`.
pub(super) fn parse_shape_index(cur: &mut Cursor<'_>) -> PResult<ShapeIndex> {
    parse_index_list(cur)
}

/// `{ {0}: (1, {}, may-alias), {1}: (0, {2}) }` of the module header.
pub(super) fn parse_input_output_alias(cur: &mut Cursor<'_>) -> PResult<Vec<InputOutputAlias>> {
    parse_braced_list(cur, |cur| {
        let output_index = parse_shape_index(cur)?;
        cur.expect(":")?;
        let (parameter, parameter_index) = parse_number_and_index(cur)?;
        let mut must_alias = false;
        if cur.eat(",") {
            cur.skip_ws();
            let at = cur.pos;
            must_alias = match cur.ident() {
                Some("must-alias") => true,
                Some("may-alias") => false,
                _ => return Err(cur.src.error(at, "expected `may-alias` or `must-alias`")),
            };
        }
        cur.expect(")")?;
        Ok(InputOutputAlias {
            output_index,
            parameter,
            parameter_index,
            must_alias,
        })
    })
}

/// `input_output_alias=` written back (XLA's `ToShortString` inside `{ ... }`).
pub(super) fn input_output_alias_string(aliases: &[InputOutputAlias]) -> String {
    let parts: Vec<String> = aliases
        .iter()
        .map(|a| {
            let kind = if a.must_alias {
                "must-alias"
            } else {
                "may-alias"
            };
            format!(
                "{}: ({}, {}, {kind})",
                list_string(&a.output_index),
                a.parameter,
                list_string(&a.parameter_index)
            )
        })
        .collect();
    format!("{{ {} }}", parts.join(", "))
}

/// `{ (0, {}), (1, {}) }` of the module header's `buffer_donor=`.
pub(super) fn parse_buffer_donor(cur: &mut Cursor<'_>) -> PResult<Vec<BufferDonor>> {
    parse_braced_list(cur, |cur| {
        let (parameter, parameter_index) = parse_number_and_index(cur)?;
        cur.expect(")")?;
        Ok(BufferDonor {
            parameter,
            parameter_index,
        })
    })
}

/// `buffer_donor=` written back (XLA's `HloBufferDonorConfig::ToShortString` in `{ ... }`).
pub(super) fn buffer_donor_string(donors: &[BufferDonor]) -> String {
    let parts: Vec<String> = donors
        .iter()
        .map(|d| format!("({}, {})", d.parameter, list_string(&d.parameter_index)))
        .collect();
    format!("{{ {} }}", parts.join(", "))
}

/// `output_to_operand_aliasing={{0}: (0, {}), {1}: (2, {1})}` of a custom-call.
pub(super) fn parse_output_operand_aliasing(
    cur: &mut Cursor<'_>,
) -> PResult<Vec<OutputOperandAlias>> {
    parse_braced_list(cur, |cur| {
        let output = parse_shape_index(cur)?;
        cur.expect(":")?;
        let (operand, operand_index) = parse_number_and_index(cur)?;
        cur.expect(")")?;
        Ok(OutputOperandAlias {
            output,
            operand,
            operand_index,
        })
    })
}

/// `{ item, item, ... }`, each item read by `item`.
fn parse_braced_list<'a, T>(
    cur: &mut Cursor<'a>,
    mut item: impl FnMut(&mut Cursor<'a>) -> PResult<T>,
) -> PResult<Vec<T>> {
    cur.expect("{")?;
    let mut out = Vec::new();
    while !cur.eat("}") {
        if !out.is_empty() {
            cur.expect(",")?;
        }
        out.push(item(cur)?);
    }
    Ok(out)
}

/// `(number, {shape index}`: an aliasing entry's parameter or operand, up to its `)`.
fn parse_number_and_index(cur: &mut Cursor<'_>) -> PResult<(usize, ShapeIndex)> {
    cur.expect("(")?;
    let number = cur.index()?;
    cur.expect(",")?;
    Ok((number, parse_shape_index(cur)?))
}

/// `output_to_operand_aliasing=` written back.
pub(super) fn output_operand_aliasing_string(aliases: &[OutputOperandAlias]) -> String {
    let parts: Vec<String> = aliases
        .iter()
        .map(|a| {
            format!(
                "{}: ({}, {})",
                list_string(&a.output),
                a.operand,
                list_string(&a.operand_index)
            )
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// `{(f32[2]{0}, s32[])->f32[2]{0}}` of `entry_computation_layout`.
pub(super) fn parse_program_shape(cur: &mut Cursor<'_>) -> PResult<ProgramShape> {
    cur.expect("{")?;
    cur.expect("(")?;
    let mut parameters = Vec::new();
    while !cur.eat(")") {
        if !parameters.is_empty() {
            cur.expect(",")?;
        }
        parameters.push(parse_shape(cur)?);
    }
    cur.expect("->")?;
    let result = parse_shape(cur)?;
    cur.expect("}")?;
    Ok(ProgramShape { parameters, result })
}

/// `{(...)->...}` written back with layouts.
pub(super) fn program_shape_string(p: &ProgramShape) -> String {
    let mut out = String::from("{(");
    for (i, s) in p.parameters.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
            if i % 5 == 0 {
                let _ = write!(out, "/*index={i}*/");
            }
        }
        write_shape(&mut out, s, true);
    }
    out.push_str(")->");
    write_shape(&mut out, &p.result, true);
    out.push('}');
    out
}

/// `{f32[5,5]{0,1}, s32[]}` of `operand_layout_constraints`.
pub(super) fn parse_shape_list(cur: &mut Cursor<'_>) -> PResult<Vec<crate::ir::Shape>> {
    cur.expect("{")?;
    let mut out = Vec::new();
    while !cur.eat("}") {
        if !out.is_empty() {
            cur.expect(",")?;
        }
        out.push(parse_shape(cur)?);
    }
    Ok(out)
}

#[cfg(test)]
#[path = "attributes_tests.rs"]
mod tests;
