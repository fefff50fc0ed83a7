//! The structure of an MLIR file: `module @name attributes {...} { ... }` or bare
//! `func.func`s, functions with argument and result attributes, regions and blocks, and
//! operations in generic form (`"dialect.op"(%a) <{props}> ({regions}) {attrs} : (T) -> R`).
//! Pretty op syntax is in `pretty.rs`. `loc(...)` is read into each op's, argument's and
//! block argument's location (`location.rs`, with the `#loc = loc(...)` aliases); other
//! `#alias = ...` lines are skipped.
//! MLIR: `mlir/lib/AsmParser/Parser.cpp` (`OperationParser`).

use super::ast::{Block, Function, MlirModule, Operation, Region, ResultGroup, ValueRef};
use super::attributes::{parse_attr, parse_dict};
use super::lexer::{Cursor, Loc, PResult};
use super::location::{parse_alias_definition, parse_opt_loc};
use super::pretty::parse_pretty_op;
use super::types::{Type, parse_type};

/// Regions nest at most this deep (a guard against stack overflow on hostile input).
const MAX_DEPTH: usize = 64;

/// Parses one module (a whole file or one `// -----` chunk).
pub fn parse_module_ast(c: &mut Cursor<'_>) -> PResult<MlirModule> {
    skip_aliases(c)?;
    let loc = c.loc();
    let mut module = MlirModule {
        name: None,
        attributes: Vec::new(),
        functions: Vec::new(),
        meshes: Vec::new(),
        loc,
    };
    if c.eat_word("module") {
        if let Some(name) = c.sigil_name(b'@')? {
            module.name = Some(name);
        }
        if c.eat_word("attributes") {
            module.attributes = parse_dict(c)?;
        }
        c.expect("{")?;
        parse_functions(c, &mut module, true)?;
        skip_loc(c)?;
    } else if c.looking_at("\"builtin.module\"") {
        return Err(c.err(
            "generic-form \"builtin.module\" is not supported; print the module in its pretty form",
        ).unsupported());
    } else {
        parse_functions(c, &mut module, false)?;
    }
    skip_aliases(c)?;
    if !c.at_end() {
        return Err(c.expected("end of input"));
    }
    if module.functions.is_empty() {
        return Err(c.error_at(loc, "no func.func in this module"));
    }
    Ok(module)
}

/// Skips `#name = ...` alias definitions (`#loc1 = loc(...)`, `#map = affine_map<...>`).
fn skip_aliases(c: &mut Cursor<'_>) -> PResult<()> {
    while c.peek() == Some(b'#') {
        let name = c
            .sigil_name(b'#')?
            .ok_or_else(|| c.expected("an alias name"))?;
        c.expect("=")?;
        if c.looking_at_word("loc") {
            parse_alias_definition(c, name)?;
        } else {
            parse_attr(c)?;
        }
    }
    Ok(())
}

/// Reads and drops an optional `loc(...)` (modules, functions and meshes have locations
/// that nothing uses; they are still checked).
pub fn skip_loc(c: &mut Cursor<'_>) -> PResult<()> {
    parse_opt_loc(c).map(drop)
}

/// Parses functions until `}` (inside a module) or the end of input.
fn parse_functions(c: &mut Cursor<'_>, module: &mut MlirModule, braced: bool) -> PResult<()> {
    loop {
        skip_aliases(c)?;
        if braced && c.eat("}") {
            return Ok(());
        }
        if c.at_end() {
            if braced {
                return Err(c.error_at(
                    module.loc,
                    "unbalanced braces: the module's '{' is never closed",
                ));
            }
            return Ok(());
        }
        if c.looking_at_word("func.func") {
            let f = parse_function(c)?;
            module.functions.push(f);
        } else if c.looking_at_word("sdy.mesh") {
            // `sdy.mesh @mesh = <["x"=4, "y"=2]> {stablehlo.mesh = ...}`
            c.eat_word("sdy.mesh");
            let name = c
                .sigil_name(b'@')?
                .ok_or_else(|| c.expected("a mesh name '@name'"))?;
            c.expect("=")?;
            if c.peek() != Some(b'<') {
                return Err(c.expected("'<' and the mesh axes"));
            }
            let text = c.balanced()?.to_string();
            if c.peek() == Some(b'{') {
                parse_dict(c)?;
            }
            skip_loc(c)?;
            if module.meshes.len() >= 64 {
                return Err(c.err("more than 64 meshes"));
            }
            module.meshes.push((name, text));
        } else {
            return Err(c.expected("func.func"));
        }
    }
}

/// Parses `func.func [visibility] @name(args) [-> results] [attributes {...}] { body }`.
fn parse_function(c: &mut Cursor<'_>) -> PResult<Function> {
    let loc = c.loc();
    c.eat_word("func.func");
    for vis in ["public", "private", "nested"] {
        if c.eat_word(vis) {
            break;
        }
    }
    let name = c
        .sigil_name(b'@')?
        .ok_or_else(|| c.expected("a function name '@name'"))?;
    c.expect("(")?;
    let mut arguments = Vec::new();
    let mut argument_attributes = Vec::new();
    let mut argument_locations = Vec::new();
    let mut result_attributes = Vec::new();
    if !c.eat(")") {
        loop {
            let arg = c
                .sigil_name(b'%')?
                .ok_or_else(|| c.expected("an argument '%name'"))?;
            c.expect(":")?;
            let ty = parse_type(c)?;
            argument_attributes.push(if c.peek() == Some(b'{') {
                parse_dict(c)?
            } else {
                Vec::new()
            });
            argument_locations.push(parse_opt_loc(c)?);
            arguments.push((arg, ty));
            if c.eat(")") {
                break;
            }
            c.expect(",")?;
        }
    }
    let mut results = Vec::new();
    if c.eat("->") {
        if c.eat("(") {
            if !c.eat(")") {
                loop {
                    results.push(parse_type(c)?);
                    result_attributes.push(if c.peek() == Some(b'{') {
                        parse_dict(c)?
                    } else {
                        Vec::new()
                    });
                    if c.eat(")") {
                        break;
                    }
                    c.expect(",")?;
                }
            }
        } else {
            results.push(parse_type(c)?);
            result_attributes.push(Vec::new());
        }
    }
    if c.eat_word("attributes") {
        parse_dict(c)?;
    }
    let body = parse_region(c, 0)?;
    skip_loc(c)?;
    Ok(Function {
        name,
        arguments,
        results,
        argument_attributes,
        argument_locations,
        result_attributes,
        body,
        loc,
    })
}

/// Parses `{ [^bb0(%a: T, ...):] ops... }`.
pub fn parse_region(c: &mut Cursor<'_>, depth: usize) -> PResult<Region> {
    if depth > MAX_DEPTH {
        return Err(c.err("regions nested too deeply"));
    }
    let loc = c.loc();
    c.expect("{")?;
    let mut block = Block::default();
    if c.peek() == Some(b'^') {
        c.sigil_name(b'^')?;
        if c.eat("(") && !c.eat(")") {
            loop {
                let name = c
                    .sigil_name(b'%')?
                    .ok_or_else(|| c.expected("a block argument '%name'"))?;
                c.expect(":")?;
                let ty = parse_type(c)?;
                block.argument_locations.push(parse_opt_loc(c)?);
                block.arguments.push((name, ty));
                if c.eat(")") {
                    break;
                }
                c.expect(",")?;
            }
        }
        c.expect(":")?;
    }
    parse_block_ops(c, &mut block, loc, depth)?;
    Ok(Region {
        blocks: vec![block],
        loc,
    })
}

/// Parses operations until the region's closing `}`.
fn parse_block_ops(c: &mut Cursor<'_>, block: &mut Block, open: Loc, depth: usize) -> PResult<()> {
    loop {
        if c.eat("}") {
            return Ok(());
        }
        if c.at_end() {
            return Err(c.error_at(open, "unbalanced braces: this '{' is never closed"));
        }
        if c.peek() == Some(b'^') {
            return Err(c
                .err("regions with several blocks are not supported")
                .unsupported());
        }
        let op = parse_operation(c, depth)?;
        block.operations.push(op);
    }
}

/// Parses one operation, with its results.
pub fn parse_operation(c: &mut Cursor<'_>, depth: usize) -> PResult<Operation> {
    let loc = c.loc();
    let mut results = Vec::new();
    if c.peek() == Some(b'%') {
        loop {
            let name = c
                .sigil_name(b'%')?
                .ok_or_else(|| c.expected("a result name"))?;
            let count = if c.peek_raw(0) == Some(b':')
                && c.peek_raw(1).is_some_and(|b| b.is_ascii_digit())
            {
                c.pos += 1;
                let n = c.int()?;
                if !(1..=1 << 20).contains(&n) {
                    return Err(c.error_at(loc, format!("bad result count {n}")));
                }
                n as usize
            } else {
                1
            };
            results.push(ResultGroup { name, count });
            if !c.eat(",") {
                break;
            }
        }
        c.expect("=")?;
    }
    let mut op = if c.peek() == Some(b'"') {
        parse_generic_op(c, depth)?
    } else {
        let name_loc = c.loc();
        let name = c.expect_ident("an operation name")?;
        let name = match name {
            "return" => "func.return",
            "call" => "func.call",
            "sdy.return" => "stablehlo.return",
            n => n,
        };
        parse_pretty_op(
            c,
            name,
            results.iter().map(|r| r.count).sum(),
            name_loc,
            depth,
        )?
    };
    op.location = parse_opt_loc(c)?;
    super::pretty::locate_implied_region(&mut op);
    op.results = results;
    op.loc = loc;
    if op.result_types.len() != op.result_count() {
        return Err(c.error_at(
            loc,
            format!(
                "'{}' defines {} results but its type lists {}",
                op.name,
                op.result_count(),
                op.result_types.len()
            ),
        ));
    }
    if op.operand_types.len() != op.operands.len() {
        return Err(c.error_at(
            loc,
            format!(
                "'{}' has {} operands but its type lists {}",
                op.name,
                op.operands.len(),
                op.operand_types.len()
            ),
        ));
    }
    Ok(op)
}

/// Parses a value use `%name` or `%name#index`.
pub fn parse_value_ref(c: &mut Cursor<'_>) -> PResult<ValueRef> {
    let loc = c.loc();
    let name = c
        .sigil_name(b'%')?
        .ok_or_else(|| c.expected("a value '%name'"))?;
    let mut index = 0;
    if c.peek_raw(0) == Some(b'#') {
        c.pos += 1;
        let i = c.int()?;
        index = usize::try_from(i).map_err(|_| c.error_at(loc, "bad result index"))?;
    }
    Ok(ValueRef { name, index, loc })
}

/// Parses `(%a, %b#1, ...)` (the parentheses included).
pub fn parse_operand_list(c: &mut Cursor<'_>) -> PResult<Vec<ValueRef>> {
    parse_parenthesized(c, parse_value_ref)
}

/// Parses `(item, item, ...)` (the parentheses included, the list may be empty).
fn parse_parenthesized<T>(
    c: &mut Cursor<'_>,
    mut item: impl FnMut(&mut Cursor<'_>) -> PResult<T>,
) -> PResult<Vec<T>> {
    c.expect("(")?;
    let mut items = Vec::new();
    if c.eat(")") {
        return Ok(items);
    }
    loop {
        items.push(item(c)?);
        if c.eat(")") {
            return Ok(items);
        }
        c.expect(",")?;
    }
}

/// Parses the generic form after the results.
fn parse_generic_op(c: &mut Cursor<'_>, depth: usize) -> PResult<Operation> {
    let loc = c.loc();
    let name = c.string()?;
    let operands = parse_operand_list(c)?;
    let mut attributes = Vec::new();
    if c.eat("<") {
        attributes.extend(parse_dict(c)?);
        c.expect(">")?;
    }
    let mut regions = Vec::new();
    if c.looking_at("(") {
        c.expect("(")?;
        loop {
            regions.push(parse_region(c, depth + 1)?);
            if c.eat(")") {
                break;
            }
            c.expect(",")?;
        }
    }
    if c.peek() == Some(b'{') {
        attributes.extend(parse_dict(c)?);
    }
    c.expect(":")?;
    let (operand_types, result_types) = parse_function_type(c)?;
    Ok(Operation {
        results: Vec::new(),
        name,
        operands,
        attributes,
        regions,
        operand_types,
        result_types,
        loc,
        location: Default::default(),
    })
}

/// Parses `(T, U) -> R` or `(T) -> (R, S)`.
pub fn parse_function_type(c: &mut Cursor<'_>) -> PResult<(Vec<Type>, Vec<Type>)> {
    let inputs = parse_type_list_parens(c)?;
    c.expect("->")?;
    let outputs = if c.peek() == Some(b'(') {
        parse_type_list_parens(c)?
    } else {
        vec![parse_type(c)?]
    };
    Ok((inputs, outputs))
}

/// Parses `(T, U, ...)`.
pub fn parse_type_list_parens(c: &mut Cursor<'_>) -> PResult<Vec<Type>> {
    parse_parenthesized(c, parse_type)
}
