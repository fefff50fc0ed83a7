//! Pretty (custom) op syntax, read into the generic form: `stablehlo.add %0, %1 : T`,
//! `stablehlo.broadcast_in_dim %x, dims = [0] : (T) -> R`, `stablehlo.reduce(...) applies`,
//! `stablehlo.while(...) cond {...} do {...}`, `stablehlo.convolution(...) dim_numbers = ...`,
//! `stablehlo.custom_call @t(...)`, `func.call @f(...)`, `check.*`, `chlo.top_k(...)`, ...
//! Keywords of the pretty form are renamed to the generic attribute names
//! (`dims` of broadcast_in_dim becomes `broadcast_dimensions`) so conversion reads one form.
//! StableHLO: `stablehlo/dialect/AssemblyFormat.cpp`, `StablehloOps.td` (assembly formats).

use super::ast::{Block, Operation, Region, ValueRef};
use super::attributes::{Attr, parse_attr_typed, parse_conv_dims, parse_dict};
use super::lexer::{Cursor, Loc, PResult};
use super::location::parse_opt_loc;
use super::parser::{
    parse_function_type, parse_operand_list, parse_region, parse_type_list_parens, parse_value_ref,
};
use super::types::{ElemType, TensorType, Type, parse_type};

/// The trailing type signature of a pretty op.
enum Sig {
    /// `: T, U` (or `: T`).
    Plain(Vec<Type>),
    /// `: (T, U) -> R` or `: T -> R`.
    Func(Vec<Type>, Vec<Type>),
}

/// A new operation with only a name.
fn new_op(name: &str, loc: Loc) -> Operation {
    Operation {
        results: Vec::new(),
        name: name.to_string(),
        operands: Vec::new(),
        attributes: Vec::new(),
        regions: Vec::new(),
        operand_types: Vec::new(),
        result_types: Vec::new(),
        loc,
        location: Default::default(),
    }
}

/// A region `reduce ... applies stablehlo.add` implies has no locations written: MLIR
/// prints that short form only when its block arguments and ops have the reduce's own
/// location, so they get it here (after the op's trailing `loc(...)` was read), as the
/// bytecode of the same program says. A region read from text has one location per
/// block argument, so the implied one is the region with arguments but no locations.
pub fn locate_implied_region(op: &mut Operation) {
    if op.name != "stablehlo.reduce" {
        return;
    }
    for r in &mut op.regions {
        for b in &mut r.blocks {
            if b.argument_locations.is_empty() && !b.arguments.is_empty() {
                b.argument_locations = vec![op.location.clone(); b.arguments.len()];
                for inner in &mut b.operations {
                    inner.location = op.location.clone();
                }
            }
        }
    }
}

/// Parses a pretty op after its name. `n_results` is the count the left-hand side declares.
pub fn parse_pretty_op(
    c: &mut Cursor<'_>,
    name: &str,
    n_results: usize,
    loc: Loc,
    depth: usize,
) -> PResult<Operation> {
    let mut op = new_op(name, loc);
    match name {
        "stablehlo.reduce" => return parse_reduce(c, op, depth),
        "stablehlo.while" => return parse_while(c, op, depth),
        "chlo.scan" => return parse_scan(c, op, depth),
        "stablehlo.custom_call" | "func.call" => {
            let target = c.sigil_name(b'@')?.ok_or_else(|| c.expected("'@name'"))?;
            let key = if name == "func.call" {
                "callee"
            } else {
                "call_target_name"
            };
            op.attributes.push((key.into(), Attr::Symbol(target)));
            op.operands = parse_operand_list(c)?;
            attr_dict(c, &mut op)?;
            c.expect(":")?;
            let (ins, outs) = parse_function_type(c)?;
            op.operand_types = ins;
            op.result_types = outs;
            attr_dict(c, &mut op)?;
            return Ok(op);
        }
        "stablehlo.convolution" => {
            op.operands = parse_operand_list(c)?;
        }
        // `sdy.sharding_constraint %x <@mesh, [{"x"}, {}]> : T`
        "sdy.sharding_constraint" => {
            op.operands.push(parse_value_ref(c)?);
            if c.peek() != Some(b'<') {
                return Err(c.expected("a sharding '<@mesh, [...]>'"));
            }
            let text = c.balanced()?.to_string();
            op.attributes.push(("sharding".into(), Attr::Opaque(text)));
            attr_dict(c, &mut op)?;
            c.expect(":")?;
            let t = parse_type(c)?;
            op.operand_types = vec![t.clone()];
            op.result_types = vec![t];
            return Ok(op);
        }
        // `sdy.manual_computation(%x) in_shardings=[...] out_shardings=[...]
        //  manual_axes={"d"} (%a: T) { ... sdy.return ... } : (T) -> (R, ...)`
        "sdy.manual_computation" => {
            op.operands = parse_operand_list(c)?;
            for key in ["in_shardings", "out_shardings", "manual_axes"] {
                if !c.eat_word(key) {
                    return Err(c.expected(key));
                }
                c.expect("=")?;
                let text = c.balanced()?.to_string();
                op.attributes.push((key.into(), Attr::Opaque(text)));
            }
            c.expect("(")?;
            let mut arguments = Vec::new();
            if !c.eat(")") {
                loop {
                    let n = c
                        .sigil_name(b'%')?
                        .ok_or_else(|| c.expected("a block argument '%name'"))?;
                    c.expect(":")?;
                    arguments.push((n, parse_type(c)?));
                    if c.eat(")") {
                        break;
                    }
                    c.expect(",")?;
                }
            }
            let mut region = parse_region(c, depth + 1)?;
            if let Some(b) = region.blocks.first_mut() {
                b.arguments = arguments;
            }
            op.regions.push(region);
            attr_dict(c, &mut op)?;
            c.expect(":")?;
            let (ins, outs) = parse_function_type(c)?;
            op.operand_types = ins;
            op.result_types = outs;
            return Ok(op);
        }
        "chlo.top_k" => {
            c.expect("(")?;
            op.operands.push(parse_value_ref(c)?);
            c.expect(",")?;
            c.expect("k")?;
            c.expect("=")?;
            let k = c.int()?;
            op.attributes.push(("k".into(), Attr::Int(k as i128)));
            c.expect(")")?;
        }
        "stablehlo.composite" => {
            let n = c.string()?;
            op.attributes.push(("name".into(), Attr::Str(n)));
        }
        _ => {}
    }
    // Operands, positional words and `key = value` clauses, comma separated.
    let mut positional: Vec<Attr> = Vec::new();
    let mut dense_type: Option<Type> = None;
    loop {
        match c.peek() {
            Some(b'%') => {
                let v = parse_value_ref(c)?;
                op.operands.push(v);
                if name == "stablehlo.get_tuple_element" && c.eat("[") {
                    let i = c.int()?;
                    c.expect("]")?;
                    op.attributes.push(("index".into(), Attr::Int(i as i128)));
                }
                if name == "stablehlo.slice" && c.looking_at("[") {
                    parse_slice_ranges(c, &mut op)?;
                }
            }
            Some(b) if b.is_ascii_alphabetic() => {
                let save = c.pos;
                let word = c.ident().unwrap_or_default().to_string();
                if c.looking_at("=") && !c.looking_at("==") {
                    c.expect("=")?;
                    let value = parse_clause_value(c, &word)?;
                    op.attributes.push((word, value));
                } else if word == "dense" {
                    c.pos = save;
                    let value = parse_attr_typed(c, true)?;
                    if let Attr::Dense(d) = &value {
                        dense_type = Some(d.ty.clone());
                    }
                    positional.push(value);
                } else {
                    positional.push(Attr::Enum(word));
                }
            }
            _ => break,
        }
        if !c.eat(",") {
            break;
        }
    }
    attr_dict(c, &mut op)?;
    let sig = if c.eat(":") {
        let sig = parse_sig(c)?;
        attr_dict(c, &mut op)?;
        Some(sig)
    } else {
        dense_type.clone().map(|t| Sig::Plain(vec![t]))
    };
    let Some(sig) = sig else {
        if op.operands.is_empty() && n_results == 0 {
            // `func.return` / `stablehlo.return` with nothing.
            normalize(c, &mut op, positional, loc)?;
            return Ok(op);
        }
        return Err(c.expected("':' and the op's types"));
    };
    resolve_types(c, &mut op, sig, n_results, dense_type.is_some(), loc)?;
    normalize(c, &mut op, positional, loc)?;
    Ok(op)
}

/// An optional `{...}` attribute dict (`attributes {...}` too).
fn attr_dict(c: &mut Cursor<'_>, op: &mut Operation) -> PResult<()> {
    c.eat_word("attributes");
    if c.peek() == Some(b'{') {
        op.attributes.extend(parse_dict(c)?);
    }
    Ok(())
}

/// Parses the value of a `key = value` clause.
fn parse_clause_value(c: &mut Cursor<'_>, key: &str) -> PResult<Attr> {
    if key == "dim_numbers" {
        return parse_conv_dims(c).map(Attr::Conv);
    }
    let value = parse_attr_typed(c, false)?;
    if c.looking_at_word("x") {
        // `contracting_dims = [1] x [0]`.
        c.eat_word("x");
        let rhs = parse_attr_typed(c, false)?;
        return Ok(Attr::Struct(
            "pair".into(),
            vec![("lhs".into(), value), ("rhs".into(), rhs)],
        ));
    }
    Ok(value)
}

/// `[0:2, 0:4:2]` of a pretty slice.
fn parse_slice_ranges(c: &mut Cursor<'_>, op: &mut Operation) -> PResult<()> {
    c.expect("[")?;
    let (mut start, mut limit, mut stride) = (Vec::new(), Vec::new(), Vec::new());
    if !c.eat("]") {
        loop {
            start.push(c.int()?);
            c.expect(":")?;
            limit.push(c.int()?);
            stride.push(if c.eat(":") { c.int()? } else { 1 });
            if c.eat("]") {
                break;
            }
            c.expect(",")?;
        }
    }
    op.attributes
        .push(("start_indices".into(), Attr::Ints(start)));
    op.attributes
        .push(("limit_indices".into(), Attr::Ints(limit)));
    op.attributes.push(("strides".into(), Attr::Ints(stride)));
    Ok(())
}

/// True if a type starts here.
fn at_type(c: &mut Cursor<'_>) -> bool {
    c.looking_at_word("tensor")
        || c.looking_at_word("tuple")
        || c.looking_at("!")
        || c.looking_at_word("complex")
}

/// Parses the types after `:`.
fn parse_sig(c: &mut Cursor<'_>) -> PResult<Sig> {
    if c.peek() == Some(b'(') {
        let (ins, outs) = parse_function_type(c)?;
        return Ok(Sig::Func(ins, outs));
    }
    let mut types = vec![parse_type(c)?];
    loop {
        let save = c.pos;
        if c.eat(",") {
            if at_type(c) {
                types.push(parse_type(c)?);
                continue;
            }
            c.pos = save;
        }
        break;
    }
    if c.eat("->") {
        let outs = if c.peek() == Some(b'(') {
            parse_type_list_parens(c)?
        } else {
            vec![parse_type(c)?]
        };
        return Ok(Sig::Func(types, outs));
    }
    Ok(Sig::Plain(types))
}

/// Fills operand and result types from the signature.
fn resolve_types(
    c: &mut Cursor<'_>,
    op: &mut Operation,
    sig: Sig,
    n_results: usize,
    dense_sig: bool,
    loc: Loc,
) -> PResult<()> {
    let n = op.operands.len();
    let (ins, outs) = match sig {
        Sig::Func(ins, outs) => (ins, outs),
        Sig::Plain(ts) => {
            let ins = if op.name == "stablehlo.select" && ts.len() == 2 && n == 3 {
                vec![ts[0].clone(), ts[1].clone(), ts[1].clone()]
            } else if op.name == "stablehlo.tuple" && ts.len() == 1 {
                match &ts[0] {
                    Type::Tuple(elems) => elems.clone(),
                    other => vec![other.clone(); n],
                }
            } else if op.name == "stablehlo.complex" && ts.len() == 1 {
                // `stablehlo.complex %re, %im : tensor<2xcomplex<f32>>`: the operands are
                // the real parts.
                vec![real_part(&ts[0]); n]
            } else if op.name == "stablehlo.after_all" {
                vec![Type::Token; n]
            } else if ts.len() == n {
                ts.clone()
            } else if ts.len() == 1 {
                vec![ts[0].clone(); n]
            } else {
                return Err(c.error_at(
                    loc,
                    format!(
                        "'{}' has {n} operands but its type lists {}",
                        op.name,
                        ts.len()
                    ),
                ));
            };
            let outs = if n_results == 0 {
                Vec::new()
            } else if ts.len() == n_results {
                ts.clone()
            } else {
                vec![ts[ts.len() - 1].clone(); n_results]
            };
            (ins, outs)
        }
    };
    // `check.expect_eq_const %x, dense<...> : T`: the dense's type is the operand's.
    let _ = dense_sig;
    op.operand_types = ins;
    op.result_types = outs;
    Ok(())
}

/// Renames pretty keywords to generic attribute names and places positional words.
fn normalize(
    c: &mut Cursor<'_>,
    op: &mut Operation,
    positional: Vec<Attr>,
    loc: Loc,
) -> PResult<()> {
    let rename = |op: &mut Operation, from: &str, to: &str| {
        for (k, _) in op.attributes.iter_mut() {
            if k == from {
                *k = to.to_string();
            }
        }
    };
    let short = op
        .name
        .split_once('.')
        .map(|(_, s)| s.to_string())
        .unwrap_or_default();
    match short.as_str() {
        "broadcast_in_dim" => rename(op, "dims", "broadcast_dimensions"),
        "transpose" => rename(op, "dims", "permutation"),
        "reverse" => rename(op, "dims", "dimensions"),
        "concatenate" | "get_dimension_size" => rename(op, "dim", "dimension"),
        "iota" | "dynamic_iota" => rename(op, "dim", "iota_dimension"),
        "dynamic_slice" => rename(op, "sizes", "slice_sizes"),
        "pad" | "dynamic_pad" => {
            rename(op, "low", "edge_padding_low");
            rename(op, "high", "edge_padding_high");
            rename(op, "interior", "interior_padding");
        }
        "fft" => {
            rename(op, "type", "fft_type");
            rename(op, "length", "fft_length");
        }
        "rng_bit_generator" => rename(op, "algorithm", "rng_algorithm"),
        "rng" => rename(op, "distribution", "rng_distribution"),
        "dot_general" | "dot" => {
            rename(op, "precision", "precision_config");
            let mut fields = Vec::new();
            for (key, lhs, rhs) in [
                (
                    "batching_dims",
                    "lhs_batching_dimensions",
                    "rhs_batching_dimensions",
                ),
                (
                    "contracting_dims",
                    "lhs_contracting_dimensions",
                    "rhs_contracting_dimensions",
                ),
            ] {
                if let Some(pos) = op.attributes.iter().position(|(k, _)| k == key) {
                    let (_, v) = op.attributes.remove(pos);
                    if let (Some(l), Some(r)) = (v.field("lhs"), v.field("rhs")) {
                        fields.push((lhs.to_string(), l.clone()));
                        fields.push((rhs.to_string(), r.clone()));
                    } else {
                        return Err(c.error_at(loc, format!("{key} must be written '[..] x [..]'")));
                    }
                }
            }
            op.attributes.push((
                "dot_dimension_numbers".into(),
                Attr::Struct("stablehlo.dot".into(), fields),
            ));
        }
        "reduce_precision" => {
            if let Some(pos) = op.attributes.iter().position(|(k, _)| k == "format") {
                let (_, v) = op.attributes.remove(pos);
                let text = v.as_str().unwrap_or_default().to_string();
                let parsed = text
                    .strip_prefix('e')
                    .and_then(|r| r.split_once('m'))
                    .and_then(|(e, m)| Some((e.parse::<i128>().ok()?, m.parse::<i128>().ok()?)));
                let Some((e, m)) = parsed else {
                    return Err(c.error_at(
                        loc,
                        format!("bad reduce_precision format '{text}' (expected eXmY)"),
                    ));
                };
                op.attributes.push(("exponent_bits".into(), Attr::Int(e)));
                op.attributes.push(("mantissa_bits".into(), Attr::Int(m)));
            }
        }
        "convolution" => {
            rename(op, "dim_numbers", "dimension_numbers");
            if let Some(pos) = op.attributes.iter().position(|(k, _)| k == "window") {
                let (_, w) = op.attributes.remove(pos);
                if let Attr::Dict(entries, _) = w {
                    for (k, v) in entries {
                        let key = match k.as_str() {
                            "stride" => "window_strides",
                            "pad" => "padding",
                            "lhs_dilate" => "lhs_dilation",
                            "rhs_dilate" => "rhs_dilation",
                            "reverse" => "window_reversal",
                            other => other,
                        };
                        op.attributes.push((key.to_string(), v));
                    }
                }
            }
        }
        _ => {}
    }
    let mut positional = positional.into_iter();
    if short == "compare" {
        if let Some(d) = positional.next() {
            op.attributes.push(("comparison_direction".into(), d));
        }
        if let Some(t) = positional.next() {
            op.attributes.push(("compare_type".into(), t));
        }
    } else if let Some(first) = positional.next() {
        // `check.expect_eq_const %x, dense<...>`: the literal is the `value`.
        op.attributes.push(("value".into(), first));
    }
    if let Some(extra) = positional.next() {
        return Err(c.error_at(loc, format!("unexpected {extra:?} in '{}'", op.name)));
    }
    Ok(())
}

/// The rank-0 tensor type with the element type of `t` (reducer block arguments).
fn scalar_of(t: &Type) -> Type {
    match t {
        Type::Tensor(tt) => Type::Tensor(TensorType {
            dims: Vec::new(),
            elem: tt.elem.clone(),
        }),
        other => other.clone(),
    }
}

/// `stablehlo.reduce(%a init: %i), ... applies OP across dimensions = [..] : sig` or
/// `... across dimensions = [..] : sig reducer(%x: T, %y: T) (...) { body }`.
fn parse_reduce(c: &mut Cursor<'_>, mut op: Operation, depth: usize) -> PResult<Operation> {
    let mut inputs = Vec::new();
    let mut inits = Vec::new();
    loop {
        c.expect("(")?;
        inputs.push(parse_value_ref(c)?);
        c.expect("init")?;
        c.expect(":")?;
        inits.push(parse_value_ref(c)?);
        c.expect(")")?;
        if !c.eat(",") {
            break;
        }
    }
    let n = inputs.len();
    op.operands = inputs.into_iter().chain(inits).collect();
    let applies = if c.eat_word("applies") {
        let l = c.loc();
        Some((c.expect_ident("a reducer op")?.to_string(), l))
    } else {
        None
    };
    if !c.eat_word("across") {
        return Err(c.expected("'across'"));
    }
    c.expect("dimensions")?;
    c.expect("=")?;
    let dims = parse_attr_typed(c, false)?;
    op.attributes.push(("dimensions".into(), dims));
    attr_dict(c, &mut op)?;
    c.expect(":")?;
    let (ins, outs) = parse_function_type(c)?;
    op.operand_types = ins;
    op.result_types = outs;
    let region = if let Some((body_op, l)) = applies {
        // The implied body: `op(acc, x)` on rank-0 tensors.
        let Some(init_ty) = op.operand_types.get(n).map(scalar_of) else {
            return Err(c.error_at(l, "reduce has no init value"));
        };
        let mut inner = new_op(&body_op, l);
        inner.results = vec![super::ast::ResultGroup {
            name: "0".into(),
            count: 1,
        }];
        inner.operands = vec![
            ValueRef {
                name: "lhs".into(),
                index: 0,
                loc: l,
            },
            ValueRef {
                name: "rhs".into(),
                index: 0,
                loc: l,
            },
        ];
        inner.operand_types = vec![init_ty.clone(), init_ty.clone()];
        inner.result_types = vec![init_ty.clone()];
        let mut ret = new_op("stablehlo.return", l);
        ret.operands = vec![ValueRef {
            name: "0".into(),
            index: 0,
            loc: l,
        }];
        ret.operand_types = vec![init_ty.clone()];
        Region {
            blocks: vec![Block {
                arguments: vec![("lhs".into(), init_ty.clone()), ("rhs".into(), init_ty)],
                argument_locations: Vec::new(),
                operations: vec![inner, ret],
            }],
            loc: l,
        }
    } else {
        c.expect("reducer")?;
        let mut firsts = Vec::new();
        let mut seconds = Vec::new();
        for _ in 0..n {
            c.expect("(")?;
            let a = c.sigil_name(b'%')?.ok_or_else(|| c.expected("'%name'"))?;
            c.expect(":")?;
            let at = parse_type(c)?;
            let a_loc = parse_opt_loc(c)?;
            c.expect(",")?;
            let b = c.sigil_name(b'%')?.ok_or_else(|| c.expected("'%name'"))?;
            c.expect(":")?;
            let bt = parse_type(c)?;
            let b_loc = parse_opt_loc(c)?;
            c.expect(")")?;
            firsts.push(((a, at), a_loc));
            seconds.push(((b, bt), b_loc));
        }
        let mut region = parse_region(c, depth + 1)?;
        if let Some(block) = region.blocks.first_mut() {
            let (args, locs) = firsts.into_iter().chain(seconds).unzip();
            block.arguments = args;
            block.argument_locations = locs;
        }
        region
    };
    op.regions.push(region);
    Ok(op)
}

/// `stablehlo.while(%a = %init, ...) : T, U cond { ... } do { ... }`.
fn parse_while(c: &mut Cursor<'_>, mut op: Operation, depth: usize) -> PResult<Operation> {
    c.expect("(")?;
    let mut names = Vec::new();
    if !c.eat(")") {
        loop {
            let name = c.sigil_name(b'%')?.ok_or_else(|| c.expected("'%name'"))?;
            c.expect("=")?;
            op.operands.push(parse_value_ref(c)?);
            names.push(name);
            if c.eat(")") {
                break;
            }
            c.expect(",")?;
        }
    }
    let mut types = Vec::new();
    if c.eat(":") {
        loop {
            types.push(parse_type(c)?);
            if !c.eat(",") {
                break;
            }
        }
    }
    attr_dict(c, &mut op)?;
    if types.len() != names.len() {
        return Err(c.err(format!(
            "while has {} loop values but {} types",
            names.len(),
            types.len()
        )));
    }
    let args: Vec<(String, Type)> = names.into_iter().zip(types.iter().cloned()).collect();
    if !c.eat_word("cond") {
        return Err(c.expected("'cond'"));
    }
    let mut cond = parse_region(c, depth + 1)?;
    if !c.eat_word("do") {
        return Err(c.expected("'do'"));
    }
    let mut body = parse_region(c, depth + 1)?;
    for r in [&mut cond, &mut body] {
        if let Some(b) = r.blocks.first_mut() {
            b.arguments = args.clone();
        }
    }
    op.operand_types = types.clone();
    op.result_types = types;
    op.regions = vec![cond, body];
    Ok(op)
}

/// `chlo.scan(%in...) inits(%init...) dimension=0 [attributes {...}] { body } : sig`.
fn parse_scan(c: &mut Cursor<'_>, mut op: Operation, depth: usize) -> PResult<Operation> {
    let inputs = parse_operand_list(c)?;
    let n_inputs = inputs.len();
    c.expect("inits")?;
    let inits = parse_operand_list(c)?;
    op.attributes
        .push(("num_inputs".into(), Attr::Int(n_inputs as i128)));
    op.operands = inputs.into_iter().chain(inits).collect();
    c.expect("dimension")?;
    c.expect("=")?;
    let d = c.int()?;
    op.attributes
        .push(("dimension".into(), Attr::Int(d as i128)));
    if c.eat_word("attributes") {
        op.attributes.extend(parse_dict(c)?);
    }
    op.regions.push(parse_region(c, depth + 1)?);
    c.expect(":")?;
    let (ins, outs) = parse_function_type(c)?;
    op.operand_types = ins;
    op.result_types = outs;
    Ok(op)
}

/// The real type of the parts of a complex tensor type.
fn real_part(t: &Type) -> Type {
    use crate::ir::PrimitiveType as P;
    match t {
        Type::Tensor(TensorType {
            dims,
            elem: ElemType::Prim(p),
        }) => {
            let part = match p {
                P::C64 => P::F32,
                P::C128 => P::F64,
                other => *other,
            };
            Type::Tensor(TensorType {
                dims: dims.clone(),
                elem: ElemType::Prim(part),
            })
        }
        other => other.clone(),
    }
}
