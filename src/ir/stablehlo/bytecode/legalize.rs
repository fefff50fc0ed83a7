//! VHLO to StableHLO: the raw op tree becomes the generic op tree the text parser builds
//! (`ast.rs`), so one conversion to HLO serves text and bytecode. Op names lose their
//! version (`add_v1` → `stablehlo.add`); `func_v1`/`call_v1`/`return_v1` become `func.*`;
//! flattened dimension numbers are reassembled (`#stablehlo.gather<...>`, `.scatter`,
//! `.dot`, `.conv`), `channel_id` becomes `channel_handle`, i64 tensors become dense
//! arrays where StableHLO has them, and attributes at their default value are dropped, as
//! upstream's legalization does (older op versions need no upgrade: their missing
//! attributes are exactly the defaults).
//! StableHLO: `stablehlo/transforms/VhloLegalizeToStablehlo.cpp`, `VhloToVersion.cpp`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::rc::Rc;

use super::attr_table::{A, EnumKind, Location, T};
use super::encoding::{BResult, Cursor};
use super::ir::{Props, RawBlock, RawOp, RawRegion};
use super::ops;
use super::sdy::Sdy;
use super::vhlo::{enum_keyword, enum_name};
use crate::ir::ConvolutionDimensionNumbers;
use crate::ir::stablehlo::ast::{
    Block, Function, MlirModule, Operation, Region, ResultGroup, ValueRef,
};
use crate::ir::stablehlo::attributes::{Attr, DenseAttr};
use crate::ir::stablehlo::dense::DenseValue;
use crate::ir::stablehlo::lexer::{Cursor as TextCursor, Loc};
use crate::ir::stablehlo::types::{ElemType, QuantType, TensorType, Type};
use crate::ir::stablehlo::{attributes, types};

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

/// The StableHLO attributes of a VHLO op, from its properties.
fn inherent(op: &RawOp, short: &str) -> BResult<Vec<(String, Attr)>> {
    let base = short.rsplit_once("_v").map(|(b, _)| b).unwrap_or(short);
    let props: Vec<(&str, Rc<A>)> = match &op.props {
        Props::Named(p) => p.iter().map(|(k, v)| (*k, v.clone())).collect(),
        _ => Vec::new(),
    };
    let get = |k: &str| props.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
    let mut out: Vec<(String, Attr)> = Vec::new();
    let ints = |k: &str| -> BResult<Vec<i64>> {
        match get(k) {
            Some(a) => {
                int_list(&a).ok_or_else(|| err(op, format!("'{k}' is not a list of integers")))
            }
            None => Ok(Vec::new()),
        }
    };
    let int = |k: &str| -> BResult<i64> {
        match get(k).as_deref() {
            Some(A::Int(_, v)) => Ok(*v as i64),
            _ => Err(err(op, format!("'{k}' is not an integer"))),
        }
    };
    let is_false = |k: &str| matches!(get(k).as_deref(), Some(A::Bool(false)) | None);
    // Dimension-number structs, printed without their empty lists.
    let dims_struct = |name: &str,
                       fields: &[(&str, &str)],
                       out: &mut Vec<(String, Attr)>,
                       key: &str|
     -> BResult<()> {
        let mut f = Vec::new();
        for (vhlo, field) in fields {
            if *vhlo == "index_vector_dim" {
                // Printed (and so parsed) only when it is not 0.
                let v = int(vhlo)?;
                if v != 0 {
                    f.push((field.to_string(), Attr::Int(v as i128)));
                }
                continue;
            }
            let v = ints(vhlo)?;
            if !v.is_empty() {
                f.push((
                    field.to_string(),
                    Attr::Array(v.into_iter().map(|x| Attr::Int(x as i128)).collect()),
                ));
            }
        }
        out.push((key.to_string(), Attr::Struct(name.to_string(), f)));
        Ok(())
    };
    let mut skip: Vec<&str> = Vec::new();
    match base {
        "func" => return Ok(Vec::new()),
        "convolution" | "dynamic_conv" => {
            let u = |k: &str| -> BResult<usize> {
                let v = int(k)?;
                usize::try_from(v).map_err(|_| err(op, format!("'{k}' is negative")))
            };
            let us = |k: &str| -> BResult<Vec<usize>> {
                ints(k)?
                    .into_iter()
                    .map(|v| usize::try_from(v).map_err(|_| err(op, format!("'{k}' is negative"))))
                    .collect()
            };
            let dims = ConvolutionDimensionNumbers {
                input_batch_dimension: u("input_batch_dimension")?,
                input_feature_dimension: u("input_feature_dimension")?,
                input_spatial_dimensions: us("input_spatial_dimensions")?,
                kernel_input_feature_dimension: u("kernel_input_feature_dimension")?,
                kernel_output_feature_dimension: u("kernel_output_feature_dimension")?,
                kernel_spatial_dimensions: us("kernel_spatial_dimensions")?,
                output_batch_dimension: u("output_batch_dimension")?,
                output_feature_dimension: u("output_feature_dimension")?,
                output_spatial_dimensions: us("output_spatial_dimensions")?,
            };
            out.push(("dimension_numbers".into(), Attr::Conv(dims)));
            skip.extend([
                "input_batch_dimension",
                "input_feature_dimension",
                "input_spatial_dimensions",
                "kernel_input_feature_dimension",
                "kernel_output_feature_dimension",
                "kernel_spatial_dimensions",
                "output_batch_dimension",
                "output_feature_dimension",
                "output_spatial_dimensions",
            ]);
            for (k, dflt) in [
                ("window_strides", 1),
                ("lhs_dilation", 1),
                ("rhs_dilation", 1),
                ("padding", 0),
                ("window_reversal", 0),
            ] {
                if get(k).is_some_and(|a| all_equal(&a, dflt)) {
                    skip.push(k);
                }
            }
            if get("precision_config").is_some_and(|a| all_default_precision(&a)) {
                skip.push("precision_config");
            }
        }
        "dot_general" => {
            dims_struct(
                "stablehlo.dot",
                &[
                    ("lhs_batching_dimensions", "lhs_batching_dimensions"),
                    ("rhs_batching_dimensions", "rhs_batching_dimensions"),
                    ("lhs_contracting_dimensions", "lhs_contracting_dimensions"),
                    ("rhs_contracting_dimensions", "rhs_contracting_dimensions"),
                ],
                &mut out,
                "dot_dimension_numbers",
            )?;
            skip.extend([
                "lhs_batching_dimensions",
                "rhs_batching_dimensions",
                "lhs_contracting_dimensions",
                "rhs_contracting_dimensions",
            ]);
            let algo = [
                "lhs_precision_type",
                "rhs_precision_type",
                "accumulation_type",
                "lhs_component_count",
                "rhs_component_count",
                "num_primitive_operations",
                "allow_imprecise_accumulation",
            ];
            let none = matches!(
                get("lhs_precision_type").as_deref(),
                None | Some(A::Type(_))
            ) && get("lhs_precision_type")
                .is_none_or(|a| matches!(&*a, A::Type(t) if **t == T::None));
            if !none {
                let mut f = Vec::new();
                for k in algo {
                    if let Some(a) = get(k) {
                        f.push((k.to_string(), generic(&a, op.offset)?));
                    }
                }
                out.push((
                    "algorithm".into(),
                    Attr::Struct("stablehlo.dot_algorithm".into(), f),
                ));
            }
            skip.extend(algo);
            if get("precision_config").is_some_and(|a| all_default_precision(&a)) {
                skip.push("precision_config");
            }
        }
        "dot" if get("precision_config").is_some_and(|a| all_default_precision(&a)) => {
            skip.push("precision_config");
        }
        "gather" | "dynamic_gather" => {
            dims_struct(
                "stablehlo.gather",
                &[
                    ("offset_dims", "offset_dims"),
                    ("collapsed_slice_dims", "collapsed_slice_dims"),
                    ("operand_batching_dims", "operand_batching_dims"),
                    ("start_indices_batching_dims", "start_indices_batching_dims"),
                    ("start_index_map", "start_index_map"),
                    ("index_vector_dim", "index_vector_dim"),
                ],
                &mut out,
                "dimension_numbers",
            )?;
            skip.extend([
                "offset_dims",
                "collapsed_slice_dims",
                "operand_batching_dims",
                "start_indices_batching_dims",
                "start_index_map",
                "index_vector_dim",
            ]);
            if is_false("indices_are_sorted") {
                skip.push("indices_are_sorted");
            }
        }
        "scatter" => {
            dims_struct(
                "stablehlo.scatter",
                &[
                    ("update_window_dims", "update_window_dims"),
                    ("inserted_window_dims", "inserted_window_dims"),
                    ("input_batching_dims", "input_batching_dims"),
                    (
                        "scatter_indices_batching_dims",
                        "scatter_indices_batching_dims",
                    ),
                    (
                        "scatter_dims_to_operand_dims",
                        "scatter_dims_to_operand_dims",
                    ),
                    ("index_vector_dim", "index_vector_dim"),
                ],
                &mut out,
                "scatter_dimension_numbers",
            )?;
            skip.extend([
                "update_window_dims",
                "inserted_window_dims",
                "input_batching_dims",
                "scatter_indices_batching_dims",
                "scatter_dims_to_operand_dims",
                "index_vector_dim",
            ]);
            for k in ["indices_are_sorted", "unique_indices"] {
                if is_false(k) {
                    skip.push(k);
                }
            }
        }
        "all_gather"
        | "all_reduce"
        | "all_to_all"
        | "collective_permute"
        | "reduce_scatter"
        | "collective_broadcast"
        | "collective_reduce"
        | "send"
        | "recv" => {
            let id = match get("channel_id").as_deref() {
                Some(A::Int(_, v)) => *v as i64,
                _ => 0,
            };
            skip.push("channel_id");
            skip.push("channel_type");
            if base == "send" || base == "recv" {
                let ty = match get("channel_type").as_deref() {
                    Some(A::Int(_, v)) => *v as i64,
                    _ => 0,
                };
                out.push(channel_handle(id, ty));
                if is_false("is_host_transfer") {
                    skip.push("is_host_transfer");
                }
                if get("source_target_pairs").is_some_and(|a| is_empty_tensor(&a)) {
                    skip.push("source_target_pairs");
                }
            } else if id != 0 {
                out.push(channel_handle(id, 0));
            }
            for k in ["use_global_device_ids", "has_dynamic_root"] {
                if let Some(A::Bool(true)) = get(k).as_deref() {
                    out.push((k.into(), Attr::Unit))
                }
                skip.push(k);
            }
        }
        "cholesky" if is_false("lower") => {
            skip.push("lower");
        }
        "compare" => {
            if matches!(
                get("compare_type").as_deref(),
                Some(A::Enum(EnumKind::ComparisonType, 0))
            ) {
                skip.push("compare_type");
            }
        }
        "composite" => {
            if matches!(get("version").as_deref(), Some(A::Int(_, 0))) {
                skip.push("version");
            }
            if matches!(get("composite_attributes").as_deref(), Some(A::Dict(d)) if d.is_empty()) {
                skip.push("composite_attributes");
            }
            if let Some(A::Str(s)) = get("decomposition").as_deref() {
                out.push(("decomposition".into(), Attr::Symbol(s.clone())));
            }
            skip.push("decomposition");
        }
        "call" => {
            if let Some(A::Str(s)) = get("callee").as_deref() {
                out.push(("callee".into(), Attr::Symbol(s.clone())));
            }
            skip.push("callee");
        }
        "custom_call" => {
            if is_false("has_side_effect") {
                skip.push("has_side_effect");
            }
            match get("backend_config").as_deref() {
                Some(A::Str(s)) if s.is_empty() => skip.push("backend_config"),
                Some(A::Dict(d)) if d.is_empty() => skip.push("backend_config"),
                _ => {}
            }
            match get("api_version").as_deref() {
                Some(A::Enum(_, 1)) => {}
                Some(A::Enum(_, v)) => out.push(("api_version".into(), Attr::Int(*v as i128))),
                _ => {}
            }
            skip.push("api_version");
            if let Some(A::Array(items)) = get("called_computations").as_deref()
                && !items.is_empty()
            {
                let syms = items
                    .iter()
                    .map(|a| match &**a {
                        A::Str(s) => Ok(Attr::Symbol(s.clone())),
                        _ => Err(err(op, "called_computations holds a non-string")),
                    })
                    .collect::<BResult<Vec<_>>>()?;
                out.push(("called_computations".into(), Attr::Array(syms)));
            }
            skip.push("called_computations");
            let empty = |k: &str| matches!(get(k).as_deref(), Some(A::Array(a)) if a.is_empty());
            if empty("operand_layouts") && empty("result_layouts") {
                skip.extend(["operand_layouts", "result_layouts"]);
            }
            for k in ["output_operand_aliases", "result_tilings"] {
                if empty(k) {
                    skip.push(k);
                }
            }
        }
        "dynamic_broadcast_in_dim" => {
            for k in [
                "known_expanding_dimensions",
                "known_nonexpanding_dimensions",
            ] {
                if get(k).is_some_and(|a| is_empty_tensor(&a)) {
                    skip.push(k);
                }
            }
        }
        "infeed" | "outfeed" => {
            for k in ["infeed_config", "outfeed_config"] {
                if matches!(get(k).as_deref(), Some(A::Str(s)) if s.is_empty()) {
                    skip.push(k);
                }
            }
            if matches!(get("layout").as_deref(), Some(A::Array(a)) if a.is_empty()) {
                skip.push("layout");
            }
        }
        "reduce_window" => {
            for (k, d) in [
                ("window_strides", 1),
                ("base_dilations", 1),
                ("window_dilations", 1),
                ("padding", 0),
            ] {
                if get(k).is_some_and(|a| all_equal(&a, d)) {
                    skip.push(k);
                }
            }
        }
        "select_and_scatter" => {
            for (k, d) in [("window_strides", 1), ("padding", 0)] {
                if get(k).is_some_and(|a| all_equal(&a, d)) {
                    skip.push(k);
                }
            }
        }
        "sort" => {
            if matches!(get("dimension").as_deref(), Some(A::Int(_, -1))) {
                skip.push("dimension");
            }
            if is_false("is_stable") {
                skip.push("is_stable");
            }
        }
        "cbrt"
        | "cosine"
        | "exponential"
        | "exponential_minus_one"
        | "log"
        | "log_plus_one"
        | "logistic"
        | "rsqrt"
        | "sine"
        | "sqrt"
        | "tan"
        | "tanh"
            if get("result_accuracy").is_none_or(|a| is_default_accuracy(&a)) =>
        {
            skip.push("result_accuracy");
        }
        _ => {}
    }
    let arrays: &[&str] = match base {
        "fft" => &["fft_length"],
        "broadcast" => &["broadcast_sizes"],
        "dynamic_slice" | "gather" => &["slice_sizes"],
        "reverse" | "map" | "reduce" => &["dimensions"],
        "transpose" => &["permutation"],
        "pad" => &["edge_padding_low", "edge_padding_high", "interior_padding"],
        "slice" => &["start_indices", "limit_indices", "strides"],
        "broadcast_in_dim" => &["broadcast_dimensions"],
        "dynamic_broadcast_in_dim" => &[
            "broadcast_dimensions",
            "known_expanding_dimensions",
            "known_nonexpanding_dimensions",
        ],
        "select_and_scatter" => &["window_dimensions", "window_strides"],
        "reduce_window" => &[
            "window_dimensions",
            "window_strides",
            "base_dilations",
            "window_dilations",
        ],
        "convolution" | "dynamic_conv" => &[
            "lhs_dilation",
            "rhs_dilation",
            "window_strides",
            "window_reversal",
        ],
        _ => &[],
    };
    for (k, v) in &props {
        if skip.contains(k) || out.iter().any(|(n, _)| n == k) {
            continue;
        }
        let attr = if arrays.contains(k) {
            Attr::Ints(
                int_list(v).ok_or_else(|| err(op, format!("'{k}' is not a list of integers")))?,
            )
        } else {
            generic(v, op.offset)?
        };
        out.push((k.to_string(), attr));
    }
    Ok(out)
}

fn channel_handle(id: i64, ty: i64) -> (String, Attr) {
    (
        "channel_handle".into(),
        Attr::Struct(
            "stablehlo.channel_handle".into(),
            vec![
                ("handle".into(), Attr::Int(id as i128)),
                ("type".into(), Attr::Int(ty as i128)),
            ],
        ),
    )
}

/// The integers of an i64/i1 tensor, a dense array, or an array of integers.
fn int_list(a: &A) -> Option<Vec<i64>> {
    match a {
        A::DenseArray(_, v) => Some(v.clone()),
        A::Array(items) => items
            .iter()
            .map(|i| match &**i {
                A::Int(_, v) => Some(*v as i64),
                A::Bool(b) => Some(*b as i64),
                _ => None,
            })
            .collect(),
        A::Tensor(t, data) => {
            let T::Tensor(dims, elem, _) = &**t else {
                return None;
            };
            let width = elem.bit_width()?;
            let size = if width == 1 { 1 } else { (width / 8) as usize };
            if size == 0 {
                return None;
            }
            // Attribute lists are short; a huge shape is a broken file, not a list.
            let n = dims
                .iter()
                .try_fold(1usize, |a, &d| a.checked_mul(usize::try_from(d).ok()?))
                .filter(|&n| n <= 1 << 20)?;
            let vals: Vec<i64> = data
                .chunks(size)
                .map(|ch| {
                    let mut raw = 0u128;
                    for (i, b) in ch.iter().enumerate() {
                        raw |= (*b as u128) << (8 * i);
                    }
                    super::builtin::extend(raw, width, elem) as i64
                })
                .collect();
            if vals.len() == 1 && n != 1 {
                return Some(vec![vals[0]; n]);
            }
            (vals.len() == n).then_some(vals)
        }
        _ => None,
    }
}

fn all_equal(a: &A, v: i64) -> bool {
    int_list(a).is_some_and(|l| l.iter().all(|&x| x == v))
}

fn is_empty_tensor(a: &A) -> bool {
    match a {
        A::Tensor(t, _) => matches!(&**t, T::Tensor(d, _, _) if d.contains(&0)),
        _ => false,
    }
}

fn all_default_precision(a: &A) -> bool {
    match a {
        A::Array(items) => items
            .iter()
            .all(|i| matches!(&**i, A::Enum(EnumKind::Precision, 0))),
        _ => false,
    }
}

fn is_default_accuracy(a: &A) -> bool {
    match a {
        A::ResultAccuracy {
            atol,
            rtol,
            ulps,
            mode,
        } => *atol == 0.0 && *rtol == 0.0 && *ulps == 0 && matches!(&**mode, A::Enum(_, 0)),
        _ => false,
    }
}

/// A type as the text parser reads it.
fn ty(t: &T, op: &RawOp) -> BResult<Type> {
    match t {
        T::Tensor(dims, elem, _) => {
            if dims.iter().any(|&d| d < 0) {
                return Err(err(op, "dynamic shapes are not supported").unsupported());
            }
            Ok(Type::Tensor(TensorType {
                dims: dims.clone(),
                elem: elem_ty(elem, op)?,
            }))
        }
        T::Token => Ok(Type::Token),
        T::Tuple(ts) => Ok(Type::Tuple(
            ts.iter().map(|t| ty(t, op)).collect::<BResult<_>>()?,
        )),
        T::Text(s) => {
            let mut c = TextCursor::new(s, "<bytecode>", 0);
            types::parse_type(&mut c).map_err(|e| err(op, format!("type '{s}': {}", e.message)))
        }
        T::Unranked(_) => Err(err(op, "unranked tensors are not supported").unsupported()),
        other => Err(err(op, format!("unsupported value type {}", type_text(other))).unsupported()),
    }
}

fn elem_ty(t: &T, op: &RawOp) -> BResult<ElemType> {
    if let T::Quant {
        flags,
        storage,
        expressed,
        axis,
        scales,
        zero_points,
        storage_min,
        storage_max,
        ..
    } = t
    {
        // Bit 0 of the flags says the storage is signed; the storage type is signless.
        let storage = match (&**storage, flags & 1) {
            (T::Int(w, _), 0) => T::Int(*w, Some(false)),
            (other, _) => other.clone(),
        };
        let (Some(s), Some(e)) = (storage.prim(), expressed.prim()) else {
            return Err(err(op, "bad quantized element type"));
        };
        return Ok(ElemType::Quant(Box::new(QuantType {
            storage: s,
            storage_min: *storage_min,
            storage_max: *storage_max,
            expressed: e,
            axis: axis.map(|a| a as usize),
            scales: scales.clone(),
            zero_points: zero_points.clone(),
        })));
    }
    t.prim()
        .map(ElemType::Prim)
        .ok_or_else(|| err(op, format!("unsupported element type {}", type_text(t))).unsupported())
}

/// A context-free attribute, as the text parser reads its printed form.
pub fn generic(a: &A, at: usize) -> BResult<Attr> {
    Ok(match a {
        A::Array(items) => Attr::Array(
            items
                .iter()
                .map(|i| generic(i, at))
                .collect::<BResult<_>>()?,
        ),
        A::Dict(entries) => {
            let mut e = Vec::new();
            for (k, v) in entries {
                e.push((k.clone(), generic(v, at)?));
            }
            Attr::Dict(e, attr_text(a))
        }
        A::Str(s) => Attr::Str(s.clone()),
        A::Symbol(s) => Attr::Symbol(s.clone()),
        A::Type(t) => {
            let dummy = RawOp {
                name: "attribute".into(),
                loc: Default::default(),
                attrs: Vec::new(),
                props: Props::None,
                results: Vec::new(),
                operands: Vec::new(),
                regions: Vec::new(),
                offset: at,
            };
            match ty(t, &dummy) {
                Ok(t) => Attr::Type(t),
                Err(_) => Attr::Opaque(type_text(t)),
            }
        }
        A::Unit => Attr::Unit,
        A::Bool(b) => Attr::Bool(*b),
        A::Int(t, v) => {
            if t.bit_width() == Some(1) {
                Attr::Bool(*v != 0)
            } else {
                Attr::Int(*v)
            }
        }
        A::Float(_, v) => Attr::Float(*v),
        A::DenseArray(_, v) => Attr::Ints(v.clone()),
        A::Tensor(t, data) => {
            let dummy_ty = match &**t {
                T::Tensor(dims, elem, _) => {
                    let elem = match &**elem {
                        T::Quant { .. } => return Ok(Attr::Opaque(attr_text(a))),
                        e => e.prim().map(ElemType::Prim),
                    };
                    match elem {
                        Some(elem) if dims.iter().all(|&d| d >= 0) => Type::Tensor(TensorType {
                            dims: dims.clone(),
                            elem,
                        }),
                        _ => return Ok(Attr::Opaque(attr_text(a))),
                    }
                }
                _ => return Ok(Attr::Opaque(attr_text(a))),
            };
            Attr::Dense(Box::new(DenseAttr {
                value: DenseValue::Blob((**data).clone()),
                ty: dummy_ty,
            }))
        }
        A::Enum(k, v) => Attr::Enum(enum_name(*k, *v).unwrap_or("?").to_string()),
        A::TypeExtensions(b) => Attr::Struct(
            "stablehlo.type_extensions".into(),
            vec![(
                "bounds".into(),
                Attr::Array(b.iter().map(|&x| Attr::Int(x as i128)).collect()),
            )],
        ),
        A::OutputOperandAlias {
            output,
            operand,
            operand_tuple,
        } => {
            let list = |v: &[i64]| Attr::Array(v.iter().map(|&x| Attr::Int(x as i128)).collect());
            let mut f = Vec::new();
            if !output.is_empty() {
                f.push(("output_tuple_indices".into(), list(output)));
            }
            f.push(("operand_index".into(), Attr::Int(*operand as i128)));
            if !operand_tuple.is_empty() {
                f.push(("operand_tuple_indices".into(), list(operand_tuple)));
            }
            Attr::Struct("stablehlo.output_operand_alias".into(), f)
        }
        A::ResultAccuracy {
            atol,
            rtol,
            ulps,
            mode,
        } => Attr::Struct(
            "stablehlo.result_accuracy".into(),
            vec![
                ("atol".into(), Attr::Float(*atol)),
                ("rtol".into(), Attr::Float(*rtol)),
                ("ulps".into(), Attr::Int(*ulps as i128)),
                ("mode".into(), generic(mode, at)?),
            ],
        ),
        A::Loc(_) => Attr::Opaque("loc(...)".into()),
        A::Sdy(s) => Attr::Opaque(s.text()),
        A::Text(s) => {
            let mut c = TextCursor::new(s, "<bytecode>", 0);
            match attributes::parse_attr(&mut c) {
                Ok(a) if c.at_end() => a,
                _ => Attr::Opaque(s.clone()),
            }
        }
    })
}

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
