//! VHLO to StableHLO: the raw op tree becomes the generic op tree the text parser builds
//! (`ast.rs`), so one conversion to HLO serves text and bytecode. Op names lose their
//! version (`add_v1` → `stablehlo.add`); `func_v1`/`call_v1`/`return_v1` become `func.*`;
//! flattened dimension numbers are reassembled (`#stablehlo.gather<...>`, `.scatter`,
//! `.dot`, `.conv`), `channel_id` becomes `channel_handle`, i64 tensors become dense
//! arrays where StableHLO has them, and attributes at their default value are dropped, as
//! upstream's legalization does (older op versions need no upgrade: their missing
//! attributes are exactly the defaults).
//!
//! This file walks the op tree (functions, regions, blocks, value scopes); an op's own
//! attributes are `op_attributes.rs`'s, context-free attributes `generic.rs`'s, types
//! `types.rs`'s, and MLIR's text spelling of both `text.rs`'s.
//!
//! StableHLO: `stablehlo/transforms/VhloLegalizeToStablehlo.cpp`, `VhloToVersion.cpp`.

use std::collections::HashMap;
use std::rc::Rc;

use super::attr_table::{A, Location, T};
use super::encoding::{BResult, Cursor};
use super::ir::{Props, RawBlock, RawOp, RawRegion};
use super::ops;
use super::sdy::Sdy;
use crate::front::stablehlo::ast::{
    Block, Function, MlirModule, Operation, Region, ResultGroup, ValueRef,
};
use crate::front::stablehlo::attributes::Attr;
use crate::front::stablehlo::lexer::Loc;
use crate::front::stablehlo::types::Type;

mod generic;
mod op_attributes;
mod text;
mod types;

pub use generic::generic;
use op_attributes::inherent;
pub use text::{attr_text, type_text};
use types::ty;

/// Converts the top-level ops (one `builtin.module`) into a module.
pub fn module(top: &[RawOp]) -> BResult<MlirModule> {
    let [m] = top else {
        return Err(Cursor::err_at(
            top.get(1).map(|o| o.offset).unwrap_or(0),
            format!(
                "expected one top-level builtin.module, found {} ops",
                top.len()
            ),
        ));
    };
    if m.name != "builtin.module" {
        return Err(Cursor::err_at(
            m.offset,
            format!("expected builtin.module, found '{}'", m.name),
        ));
    }
    let mut name = None;
    if let Props::Named(p) = &m.props {
        for (k, v) in p {
            if *k == "sym_name"
                && let A::Str(s) = &**v
            {
                name = Some(s.clone());
            }
        }
    }
    let mut attrs = Vec::new();
    for (k, v) in &m.attrs {
        attrs.push((k.clone(), generic(v, m.offset)?));
    }
    let mut functions = Vec::new();
    let mut meshes = Vec::new();
    let body = m.regions.first().and_then(|r| r.blocks.first());
    let mut cx = Legalizer { scopes: Vec::new() };
    for op in body.map(|b| b.ops.as_slice()).unwrap_or_default() {
        // Shardy meshes name the device axes the `sdy.sharding` attributes use; kept
        // as the text parser keeps them (the name and the `<[...]>` text).
        if op.name == "sdy.mesh" {
            let name = match Legalizer::prop(op, "sym_name").map(|a| &**a) {
                Some(A::Str(s)) => s.clone(),
                _ => return Err(err(op, "a mesh needs a string sym_name")),
            };
            let text = match Legalizer::prop(op, "mesh").map(|a| &**a) {
                Some(A::Sdy(m)) if matches!(**m, Sdy::Mesh { .. }) => m.body(),
                _ => return Err(err(op, "a mesh needs a Shardy mesh attribute")),
            };
            if meshes.len() >= 64 {
                return Err(err(op, "more than 64 meshes"));
            }
            meshes.push((name, text));
            continue;
        }
        if op.name != "vhlo.func_v1" {
            return Err(Cursor::err_at(
                op.offset,
                format!("expected func.func, found '{}'", op.name),
            ));
        }
        functions.push(cx.function(op)?);
    }
    if functions.is_empty() {
        return Err(Cursor::err_at(m.offset, "no func.func in this module"));
    }
    let loc = functions.first().map(|f| f.loc).unwrap_or_default();
    Ok(MlirModule {
        name,
        attributes: attrs,
        functions,
        meshes,
        loc,
    })
}

/// The text position of a bytecode op: none. (Its source location is the op's
/// `location`; errors name it as `file:line:col`.)
fn loc_of(_: &Location) -> Loc {
    Loc::default()
}

struct Legalizer {
    /// The values of each open region, innermost last.
    scopes: Vec<RegionValues>,
}

/// The values one region defines. Sibling regions (a while's cond and body) number their
/// values from the same base, so a name means something else in the next region: nothing
/// a region records outlives it.
#[derive(Default)]
struct RegionValues {
    /// Value types by name.
    types: HashMap<String, Type>,
    /// `builtin.unrealized_conversion_cast` results (VHLO ↔ builtin types around the Shardy
    /// ops of a mixed artifact) and the values they stand for.
    casts: HashMap<String, String>,
}

fn err(op: &RawOp, msg: impl Into<String>) -> BytecodeErrorAt {
    Cursor::err_at(op.offset, format!("'{}': {}", op.name, msg.into()))
}

type BytecodeErrorAt = super::encoding::BytecodeError;

impl Legalizer {
    fn prop<'o>(op: &'o RawOp, name: &str) -> Option<&'o Rc<A>> {
        match &op.props {
            Props::Named(p) => p.iter().find(|(k, _)| *k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    fn function(&mut self, op: &RawOp) -> BResult<Function> {
        let name = match Self::prop(op, "sym_name").map(|a| &**a) {
            Some(A::Str(s)) => s.clone(),
            _ => return Err(err(op, "a function needs a string sym_name")),
        };
        let results = match Self::prop(op, "function_type").map(|a| &**a) {
            Some(A::Type(t)) => match &**t {
                T::Function(_, outs) => outs
                    .iter()
                    .map(|t| ty(t, op))
                    .collect::<BResult<Vec<_>>>()?,
                _ => return Err(err(op, "function_type is not a function type")),
            },
            _ => return Err(err(op, "a function needs a function_type")),
        };
        let [region] = op.regions.as_slice() else {
            return Err(err(op, "a function has one region"));
        };
        let body = self.region(region, op, true)?;
        let arguments = body
            .blocks
            .first()
            .map(|b| b.arguments.clone())
            .unwrap_or_default();
        let argument_locations = body
            .blocks
            .first()
            .map(|b| b.argument_locations.clone())
            .unwrap_or_default();
        // Argument and result attributes: shardings (`sdy.sharding`, `mhlo.sharding`),
        // donation (`tf.aliasing_output`, `jax.buffer_donor`), `jax.result_info`...
        let argument_attributes = arg_attrs(op, Self::prop(op, "arg_attrs"))?;
        let result_attributes = arg_attrs(op, Self::prop(op, "res_attrs"))?;
        Ok(Function {
            name,
            arguments,
            argument_attributes,
            argument_locations,
            result_attributes,
            results,
            body,
            loc: loc_of(&op.loc),
        })
    }

    fn region(&mut self, r: &RawRegion, parent: &RawOp, in_function: bool) -> BResult<Region> {
        self.scopes.push(RegionValues::default());
        let mut blocks = Vec::new();
        for b in &r.blocks {
            blocks.push(self.block(b, parent, in_function)?);
        }
        self.scopes.pop();
        Ok(Region {
            blocks,
            loc: loc_of(&parent.loc),
        })
    }

    fn block(&mut self, b: &RawBlock, parent: &RawOp, in_function: bool) -> BResult<Block> {
        let mut arguments = Vec::new();
        for (n, t) in &b.args {
            let t = ty(t, parent)?;
            self.define(n, t.clone());
            arguments.push((n.clone(), t));
        }
        let mut operations = Vec::new();
        for op in &b.ops {
            // Mixed serialization casts values between VHLO and builtin tensor types at
            // the Shardy ops; the text has no such op: each cast is its operand.
            if op.name == "builtin.unrealized_conversion_cast"
                && let ([o], [(r, _)]) = (op.operands.as_slice(), op.results.as_slice())
            {
                let source = self.resolve(o).to_string();
                if self.lookup(&source).is_none() {
                    return Err(err(op, format!("value {o} is used before it is defined")));
                }
                if let Some(s) = self.scopes.last_mut() {
                    s.casts.insert(r.clone(), source);
                }
                continue;
            }
            operations.push(self.op(op, in_function)?);
        }
        Ok(Block {
            arguments,
            argument_locations: b.arg_locs.clone(),
            operations,
        })
    }

    fn define(&mut self, name: &str, t: Type) {
        if let Some(s) = self.scopes.last_mut() {
            s.types.insert(name.to_string(), t);
        }
    }

    /// The value a name stands for (through conversion casts).
    fn resolve<'n>(&'n self, name: &'n str) -> &'n str {
        // One step: a cast's source was resolved when it was recorded.
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.casts.get(name))
            .map_or(name, String::as_str)
    }

    fn lookup(&self, name: &str) -> Option<&Type> {
        self.scopes.iter().rev().find_map(|s| s.types.get(name))
    }

    fn op(&mut self, op: &RawOp, in_function: bool) -> BResult<Operation> {
        let loc = loc_of(&op.loc);
        if op.name.starts_with("sdy.") {
            return self.sdy_op(op, loc);
        }
        let Some(short) = op.name.strip_prefix("vhlo.") else {
            return Err(err(op, "only VHLO and Shardy ops can appear in a function"));
        };
        if ops::attributes(short).is_none() {
            return Err(err(
                op,
                "unknown VHLO op (an op version newer than StableHLO 1.20?)",
            ));
        }
        let name = ops::stablehlo_name(short, in_function);
        let signature = self.signature(op, loc)?;
        let mut attributes = inherent(op, short)?;
        for (k, v) in &op.attrs {
            attributes.push((k.clone(), generic(v, op.offset)?));
        }
        Ok(signature.into_operation(name, attributes, loc, op.loc.clone()))
    }
}

impl Legalizer {
    /// An op's operands (resolved and typed), its regions and its results (defined in the
    /// current scope), in that order: what every op of a function shares.
    fn signature(&mut self, op: &RawOp, loc: Loc) -> BResult<Signature> {
        let mut operands = Vec::new();
        let mut operand_types = Vec::new();
        for o in &op.operands {
            let o = &self.resolve(o).to_string();
            let Some(t) = self.lookup(o).cloned() else {
                return Err(err(op, format!("value {o} is used before it is defined")));
            };
            operands.push(ValueRef {
                name: o.clone(),
                index: 0,
                loc,
            });
            operand_types.push(t);
        }
        let mut regions = Vec::new();
        for r in &op.regions {
            regions.push(self.region(r, op, false)?);
        }
        let mut results = Vec::new();
        let mut result_types = Vec::new();
        for (n, t) in &op.results {
            let t = ty(t, op)?;
            self.define(n, t.clone());
            results.push(ResultGroup {
                name: n.clone(),
                count: 1,
            });
            result_types.push(t);
        }
        Ok(Signature {
            operands,
            operand_types,
            regions,
            results,
            result_types,
        })
    }

    /// A Shardy op in a function (`sdy.sharding_constraint`, `sdy.manual_computation`,
    /// `sdy.return`), with its attributes in the custom-syntax text the text parser keeps.
    fn sdy_op(&mut self, op: &RawOp, loc: Loc) -> BResult<Operation> {
        let signature = self.signature(op, loc)?;
        let mut attributes = Vec::new();
        if let Props::Named(p) = &op.props {
            for (k, v) in p {
                let A::Sdy(s) = &**v else {
                    return Err(err(op, format!("'{k}' is not a Shardy attribute")));
                };
                attributes.push((k.to_string(), Attr::Opaque(s.body())));
            }
        }
        for (k, v) in &op.attrs {
            attributes.push((k.clone(), generic(v, op.offset)?));
        }
        let name = match op.name.as_str() {
            // The text parser reads `sdy.return` as the region terminator it is.
            "sdy.return" => "stablehlo.return".to_string(),
            n => n.to_string(),
        };
        Ok(signature.into_operation(name, attributes, loc, op.loc.clone()))
    }
}

/// The operands, regions and results of one op, as [`Legalizer::signature`] reads them.
struct Signature {
    operands: Vec<ValueRef>,
    operand_types: Vec<Type>,
    regions: Vec<Region>,
    results: Vec<ResultGroup>,
    result_types: Vec<Type>,
}

impl Signature {
    /// The op with this signature, its name, attributes and locations.
    fn into_operation(
        self,
        name: String,
        attributes: Vec<(String, Attr)>,
        loc: Loc,
        location: std::sync::Arc<Location>,
    ) -> Operation {
        Operation {
            results: self.results,
            name,
            operands: self.operands,
            attributes,
            regions: self.regions,
            operand_types: self.operand_types,
            result_types: self.result_types,
            loc,
            location,
        }
    }
}

/// A function's `arg_attrs`/`res_attrs` (an array of dictionaries, or absent) as one
/// attribute list per argument or result.
fn arg_attrs(op: &RawOp, a: Option<&Rc<A>>) -> BResult<Vec<Vec<(String, Attr)>>> {
    let Some(a) = a else {
        return Ok(Vec::new());
    };
    let A::Array(items) = &**a else {
        return Err(err(op, "arg_attrs/res_attrs is not an array"));
    };
    let mut out = Vec::with_capacity(items.len());
    for d in items {
        let A::Dict(entries) = &**d else {
            return Err(err(op, "an argument's attributes are not a dictionary"));
        };
        let mut attrs = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            attrs.push((k.clone(), generic(v, op.offset)?));
        }
        out.push(attrs);
    }
    Ok(out)
}
