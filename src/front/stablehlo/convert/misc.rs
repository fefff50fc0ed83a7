//! Calls (`func.call`, `stablehlo.composite`), custom calls, the test-harness ops
//! (`check.*`, `interpreter.*`, which become side-effecting custom calls the check runner
//! interprets), collectives (kept as unmodeled HLO with XLA's attribute text), infeed,
//! outfeed, send and recv, and CHLO ops (handed to [`crate::front::stablehlo::chlo`]).
//! XLA: `mlir_hlo_to_hlo.cc` (`CustomCallOp`, `AllReduceOp`, ... exports).

use super::{Converter, Val};
use crate::front::hlo_text::ParseError;
use crate::front::stablehlo::ast::Operation;
use crate::front::stablehlo::attributes::Attr;
use crate::front::stablehlo::chlo::{self, ChloAttr, ChloOp};
use crate::front::stablehlo::dense::to_literal;
use crate::ir::{
    BackendConfig, CalledComputations, ComputationId, CustomCall, CustomCallApiVersion, InstrId,
    Layout, Op, Opcode, OutputOperandAlias, RawAttribute, Shape, SliceDimension,
};

/// Escapes a string for a JSON value.
fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `{{0,1},{2,3}}` from a 2-D integer attribute, dropping `-1` padding.
fn groups_text(values: &[i64], dims: &[i64]) -> String {
    let cols = dims.get(1).copied().unwrap_or(values.len() as i64).max(1) as usize;
    let rows: Vec<String> = values
        .chunks(cols)
        .map(|row| {
            let items: Vec<String> = row
                .iter()
                .filter(|&&v| v >= 0)
                .map(|v| v.to_string())
                .collect();
            format!("{{{}}}", items.join(","))
        })
        .collect();
    format!("{{{}}}", rows.join(","))
}

impl<'a> Converter<'a> {
    /// Converts the ops of this file; `None` if `op` is not one of them.
    pub(crate) fn convert_misc(
        &mut self,
        op: &'a Operation,
    ) -> Result<Option<Vec<InstrId>>, ParseError> {
        let name = op.name.as_str();
        let loc = op.loc;
        if name == "chlo.scan" {
            return self.convert_scan(op).map(Some);
        }
        if name.starts_with("chlo.") {
            return self.convert_chlo(op, name, &op.attributes).map(Some);
        }
        if name == "stablehlo.composite"
            && let Some(ids) = self.composite_as_chlo(op)?
        {
            return Ok(Some(ids));
        }
        if name.starts_with("check.") {
            return self.convert_check(op).map(Some);
        }
        let args: Vec<Val> = self.operands(op)?;
        let ids: Vec<InstrId> = args.iter().map(|v| v.id).collect();
        let n_results = op.result_types.len();
        let tuple_shape = self.results_tuple_shape(op);
        match name {
            "func.call" | "stablehlo.composite" => {
                let key = if name == "func.call" {
                    "callee"
                } else {
                    "decomposition"
                };
                let callee = self.str_attr(op, key)?.to_string();
                let to_apply = self.function(&callee, op)?;
                let shape = if n_results == 1 {
                    self.result_shape(op, 0)
                } else {
                    tuple_shape
                };
                let id = self.add(shape, Op::Call { to_apply }, ids, loc);
                Ok(Some(if n_results == 1 {
                    vec![id]
                } else {
                    self.unpack(id, n_results, loc)
                }))
            }
            "stablehlo.custom_call" => self.convert_custom_call(op, ids).map(Some),
            "interpreter.run_parallel" => {
                let Some(Attr::Array(rows)) = op.attr("programs") else {
                    return Err(self.err(
                        loc,
                        "interpreter.run_parallel needs programs = [[@f, ...], ...]",
                    ));
                };
                let mut called = Vec::new();
                let mut partitions = None;
                for row in rows {
                    let Attr::Array(cols) = row else {
                        return Err(
                            self.err(loc, "programs must be a 2-D array of function symbols")
                        );
                    };
                    if partitions.is_some_and(|p| p != cols.len()) {
                        return Err(
                            self.err(loc, "every row of programs must have the same length")
                        );
                    }
                    partitions = Some(cols.len());
                    for f in cols {
                        let f = f
                            .as_str()
                            .ok_or_else(|| self.err(loc, "programs must hold function symbols"))?
                            .to_string();
                        called.push(self.function(&f, op)?);
                    }
                }
                let mut infeed = Vec::new();
                if let Some(Attr::Array(items)) = op.attr("infeed") {
                    for f in items {
                        let f = f
                            .as_str()
                            .ok_or_else(|| self.err(loc, "infeed must hold function symbols"))?
                            .to_string();
                        let id = self.function(&f, op)?;
                        infeed.push(json_str(&self.module.computations[id].name));
                        called.push(id);
                    }
                }
                let config = format!(
                    "{{\"num_replicas\": {}, \"num_partitions\": {}, \"infeed\": [{}]}}",
                    rows.len(),
                    partitions.unwrap_or(0),
                    infeed.join(", ")
                );
                let mut cc = CustomCall::new(name);
                cc.has_side_effect = true;
                cc.called_computations = called;
                let id = self.custom_call(tuple_shape, cc, ids, Some(config), loc);
                Ok(Some(self.unpack(id, n_results, loc)))
            }
            "interpreter.probe" => {
                let probe = self.str_attr(op, "probe_id")?;
                let config = format!("{{\"probe_id\": {}}}", json_str(probe));
                let mut cc = CustomCall::new(name);
                cc.has_side_effect = true;
                let shape = self.result_shape(op, 0);
                Ok(Some(vec![self.custom_call(
                    shape,
                    cc,
                    ids,
                    Some(config),
                    loc,
                )]))
            }
            "interpreter.print" => {
                let mut cc = CustomCall::new(name);
                cc.has_side_effect = true;
                Ok(Some(self.custom_call_void(op, cc, ids, None)))
            }
            _ => match name.strip_prefix("stablehlo.") {
                Some(short) => self.convert_collective(op, short, ids),
                None => Ok(None),
            },
        }
    }

    /// The computation of function `@name`.
    fn function(&self, name: &str, op: &Operation) -> Result<ComputationId, ParseError> {
        self.functions.get(name).map(|(id, _)| *id).ok_or_else(|| {
            self.err(
                op.loc,
                format!("'{}' refers to @{name}, which is not defined", op.name),
            )
        })
    }

    /// Adds a custom call with a JSON backend config.
    fn custom_call(
        &mut self,
        shape: Shape,
        cc: CustomCall,
        ids: Vec<InstrId>,
        config: Option<String>,
        loc: crate::front::stablehlo::lexer::Loc,
    ) -> InstrId {
        let id = self.add(shape, Op::CustomCall(Box::new(cc)), ids, loc);
        let comp = self.comp();
        self.module.computations[comp].instrs[id].backend_config = config.map(BackendConfig::Json);
        id
    }

    /// A custom call with no results (shape `()`): returns no result ids.
    fn custom_call_void(
        &mut self,
        op: &Operation,
        cc: CustomCall,
        ids: Vec<InstrId>,
        config: Option<String>,
    ) -> Vec<InstrId> {
        self.custom_call(Shape::Tuple(vec![]), cc, ids, config, op.loc);
        Vec::new()
    }

    /// `check.*` ops: side-effecting custom calls named after the op.
    fn convert_check(&mut self, op: &'a Operation) -> Result<Vec<InstrId>, ParseError> {
        let ids: Vec<InstrId> = self.operands(op)?.iter().map(|v| v.id).collect();
        let mut cc = CustomCall::new(&op.name);
        cc.has_side_effect = true;
        if let Some(Attr::Dense(d)) = op.attr("value") {
            if let Some(t) = op.operand_types.first()
                && !d.ty.to_shape().compatible(&t.to_shape())
            {
                return Err(self.err(
                    op.loc,
                    format!(
                        "type mismatch: the expected literal is {} but the checked value is {t}",
                        d.ty
                    ),
                ));
            }
            cc.literal = Some(to_literal(&d.value, &d.ty).map_err(|e| self.refused(op.loc, e))?);
        }
        let mut fields = Vec::new();
        for (k, v) in &op.attributes {
            let text = match v {
                Attr::Float(f) => format!("{f:?}"),
                Attr::Int(i) => i.to_string(),
                Attr::Bool(b) => b.to_string(),
                Attr::Str(s) | Attr::Enum(s) => json_str(s),
                _ => continue,
            };
            fields.push(format!("{}: {text}", json_str(k)));
        }
        let config = if fields.is_empty() {
            None
        } else {
            Some(format!("{{{}}}", fields.join(", ")))
        };
        if op.result_types.is_empty() {
            return Ok(self.custom_call_void(op, cc, ids, config));
        }
        let shape = self.result_shape(op, 0);
        Ok(vec![self.custom_call(shape, cc, ids, config, op.loc)])
    }

    /// `stablehlo.custom_call @target(...)`, keeping target, backend config, api version,
    /// layouts and aliasing as XLA's export does.
    fn convert_custom_call(
        &mut self,
        op: &Operation,
        ids: Vec<InstrId>,
    ) -> Result<Vec<InstrId>, ParseError> {
        let loc = op.loc;
        let target = self.str_attr(op, "call_target_name")?.to_string();
        if target == "ApproxTopK" {
            return self.convert_approx_top_k(op, ids);
        }
        let mut cc = CustomCall::new(&target);
        cc.has_side_effect = self.bool_attr(op, "has_side_effect")?;
        cc.api_version = match self.opt_int(op, "api_version")? {
            None => None,
            Some(1) => Some(CustomCallApiVersion::Original),
            Some(2) => Some(CustomCallApiVersion::StatusReturning),
            Some(3) => Some(CustomCallApiVersion::StatusReturningUnified),
            Some(4) => Some(CustomCallApiVersion::TypedFfi),
            Some(v) => return Err(self.err(loc, format!("unknown custom_call api_version {v}"))),
        };
        let mut config = match op.attr("backend_config") {
            Some(Attr::Str(s)) if s.is_empty() => None,
            Some(Attr::Str(s)) if s.starts_with('{') => Some(BackendConfig::Json(s.clone())),
            Some(Attr::Str(s)) => Some(BackendConfig::Quoted(s.clone())),
            Some(Attr::Dict(_, text)) => Some(BackendConfig::Json(text.clone())),
            _ => None,
        };
        if let Some(Attr::Dict(_, text)) = op.attr("mhlo.backend_config") {
            config = Some(BackendConfig::Json(text.clone()));
            if cc.api_version.is_none() {
                cc.api_version = Some(CustomCallApiVersion::TypedFfi);
            }
        }
        if let Some(Attr::Array(items)) = op.attr("called_computations") {
            for f in items {
                let f = f.as_str().unwrap_or_default().to_string();
                cc.called_computations.push(self.function(&f, op)?);
            }
        }
        let layout = |a: &Attr| -> Option<Layout> {
            let m: Vec<usize> = a.as_ints()?.into_iter().map(|v| v as usize).collect();
            Some(Layout {
                minor_to_major: m,
                extra: None,
            })
        };
        let mut result_shapes: Vec<Shape> = op.result_types.iter().map(|t| t.to_shape()).collect();
        if let Some(Attr::Array(items)) = op.attr("operand_layouts") {
            let mut shapes = Vec::new();
            for (i, a) in items.iter().enumerate() {
                let mut s = op
                    .operand_types
                    .get(i)
                    .map(|t| t.to_shape())
                    .unwrap_or(Shape::Tuple(vec![]));
                if let (Some(arr), Some(l)) = (s.as_array_mut(), layout(a))
                    && l.minor_to_major.len() == arr.rank()
                {
                    arr.layout = l;
                }
                shapes.push(s);
            }
            cc.operand_layout_constraints = Some(shapes);
        }
        if let Some(Attr::Array(items)) = op.attr("result_layouts") {
            for (s, a) in result_shapes.iter_mut().zip(items) {
                if let (Some(arr), Some(l)) = (s.as_array_mut(), layout(a))
                    && l.minor_to_major.len() == arr.rank()
                {
                    arr.layout = l;
                }
            }
        }
        if let Some(Attr::Array(items)) = op.attr("output_operand_aliases") {
            for a in items {
                let ints = |f: &str| a.field(f).and_then(Attr::as_ints).unwrap_or_default();
                cc.output_to_operand_aliasing.push(OutputOperandAlias {
                    output: ints("output_tuple_indices")
                        .into_iter()
                        .map(|v| v as usize)
                        .collect(),
                    operand: a.field("operand_index").and_then(Attr::as_int).unwrap_or(0) as usize,
                    operand_index: ints("operand_tuple_indices")
                        .into_iter()
                        .map(|v| v as usize)
                        .collect(),
                });
            }
        }
        let n = result_shapes.len();
        let shape = if n == 1 {
            result_shapes[0].clone()
        } else {
            Shape::Tuple(result_shapes)
        };
        let id = self.add(shape, Op::CustomCall(Box::new(cc)), ids, loc);
        let comp = self.comp();
        self.module.computations[comp].instrs[id].backend_config = config;
        Ok(if n == 1 {
            vec![id]
        } else {
            self.unpack(id, n, loc)
        })
    }

    /// `custom_call @ApproxTopK(operands..., init_values...)` as XLA lowers it on CPU (its
    /// fallback, what jax's own HLO path emits): a sort of the operands along
    /// `reduction_dim` with the call's comparator, then the first `top_k` of each.
    /// XLA: `xla/service/topk_rewriter.cc`'s ApproxTopK fallback and `ApproxTopKFallback`
    /// in `xla/hlo/builder/lib/approx_topk.cc`.
    fn convert_approx_top_k(
        &mut self,
        op: &Operation,
        ids: Vec<InstrId>,
    ) -> Result<Vec<InstrId>, ParseError> {
        let loc = op.loc;
        let config = op.attr("mhlo.backend_config");
        let int = |name: &str| config.and_then(|c| c.field(name)).and_then(Attr::as_int);
        let (Some(k), Some(dim)) = (int("top_k"), int("reduction_dim")) else {
            return Err(self.err(
                loc,
                "ApproxTopK needs top_k and reduction_dim in mhlo.backend_config",
            ));
        };
        let n = ids.len() / 2;
        if n == 0 || ids.len() != 2 * n || op.result_types.len() != n {
            return Err(self.err(
                loc,
                "ApproxTopK takes N operands and N init values, returns N",
            ));
        }
        let comparator = match op.attr("called_computations") {
            Some(Attr::Array(items)) if items.len() == 1 => {
                let f = items[0].as_str().unwrap_or_default().to_string();
                self.function(&f, op)?
            }
            _ => return Err(self.err(loc, "ApproxTopK needs one comparator")),
        };
        let operands = ids[..n].to_vec();
        let shapes: Vec<Shape> = operands.iter().map(|&i| self.shape(i).clone()).collect();
        let rank = self.shape(operands[0]).rank();
        let dim = usize::try_from(dim)
            .ok()
            .filter(|&d| d < rank)
            .ok_or_else(|| self.err(loc, format!("ApproxTopK reduction_dim {dim} out of range")))?;
        let sort_shape = if n == 1 {
            shapes[0].clone()
        } else {
            Shape::Tuple(shapes.clone())
        };
        let sort = self.add(
            sort_shape,
            Op::Sort {
                dimension: dim,
                is_stable: false,
                to_apply: comparator,
            },
            operands,
            loc,
        );
        let sorted = if n == 1 {
            vec![sort]
        } else {
            self.unpack(sort, n, loc)
        };
        let mut out = Vec::with_capacity(n);
        for (i, s) in sorted.into_iter().enumerate() {
            let result = op.result_types[i].to_shape();
            let limits = result.dims().to_vec();
            if limits.get(dim).copied() != Some(k.min(shapes[i].dims()[dim])) {
                return Err(self.err(
                    loc,
                    "ApproxTopK result does not hold top_k along reduction_dim",
                ));
            }
            let slice = limits
                .iter()
                .map(|&limit| SliceDimension {
                    start: 0,
                    limit,
                    stride: 1,
                })
                .collect();
            out.push(self.add(result, Op::Slice { slice }, vec![s], loc));
        }
        Ok(out)
    }

    /// Collectives and other cross-device or I/O ops, as unmodeled HLO instructions with
    /// XLA's attribute text.
    fn convert_collective(
        &mut self,
        op: &'a Operation,
        short: &str,
        ids: Vec<InstrId>,
    ) -> Result<Option<Vec<InstrId>>, ParseError> {
        let loc = op.loc;
        let opcode = match short {
            "all_reduce" => Opcode::AllReduce,
            "all_gather" => Opcode::AllGather,
            "reduce_scatter" => Opcode::ReduceScatter,
            "all_to_all" => Opcode::AllToAll,
            "collective_permute" => Opcode::CollectivePermute,
            "collective_broadcast" => Opcode::CollectiveBroadcast,
            "infeed" => Opcode::Infeed,
            "outfeed" => Opcode::Outfeed,
            "send" => Opcode::Send,
            "recv" => Opcode::Recv,
            _ => return Ok(None),
        };
        let mut raw = Vec::new();
        let mut push = |name: &str, value: String| {
            raw.push(RawAttribute {
                name: name.into(),
                value,
            })
        };
        if let Some(a) = op.attr("channel_handle") {
            let handle = a.field("handle").and_then(Attr::as_int).unwrap_or(0);
            if handle > 0 {
                push("channel_id", handle.to_string());
            }
        }
        for key in ["replica_groups", "source_target_pairs"] {
            if let Some(Attr::Dense(d)) = op.attr(key) {
                let values = d
                    .value
                    .as_ints(&d.ty)
                    .ok_or_else(|| self.err(loc, format!("'{key}' must be integers")))?;
                let dims = d.ty.as_tensor().map(|t| t.dims.clone()).unwrap_or_default();
                push(key, groups_text(&values, &dims));
            }
        }
        for (key, hlo) in [
            ("all_gather_dim", "dimensions"),
            ("scatter_dimension", "dimensions"),
            ("split_dimension", "dimensions"),
        ] {
            if let Some(d) = self.opt_int(op, key)? {
                push(hlo, format!("{{{d}}}"));
            }
        }
        if short == "all_to_all" {
            // HLO's array all-to-all splits and concatenates the same dimension; keep the
            // StableHLO fields when they differ so an executor can still honour them.
            let split = self.opt_int(op, "split_dimension")?;
            let concat = self.opt_int(op, "concat_dimension")?;
            if let (Some(s), Some(c)) = (split, concat)
                && s != c
            {
                push("concat_dimension", c.to_string());
            }
            if let Some(n) = self.opt_int(op, "split_count")? {
                push("split_count", n.to_string());
            }
        }
        if op.attr("use_global_device_ids").is_some()
            && self.bool_attr(op, "use_global_device_ids")?
        {
            push("use_global_device_ids", "true".into());
        }
        // collective_broadcast: the last operand is then the root tensor (one index into the
        // process group per data operand). Not XLA syntax; the interpreter reads it.
        if short == "collective_broadcast" && op.attr("has_dynamic_root").is_some() {
            push("has_dynamic_root", "true".into());
        }
        if let Some(Attr::Str(s)) = op.attr("infeed_config").or(op.attr("outfeed_config")) {
            let key = if short == "infeed" {
                "infeed_config"
            } else {
                "outfeed_config"
            };
            push(key, json_str(s));
        }
        if (short == "send" || short == "recv")
            && let Some(a) = op.attr("is_host_transfer")
            && a.as_bool() == Some(true)
        {
            push("is_host_transfer", "true".into());
        }
        let mut called = Vec::new();
        if let Some(region) = op.regions.first() {
            let reducer = self.region_computation(region, op, "region")?;
            called.push(CalledComputations {
                attribute: "to_apply".into(),
                computations: vec![reducer],
                braced: false,
            });
        }
        let n = op.result_types.len();
        let (shape, operands) = match short {
            // infeed(token) -> ((data...), token)
            "infeed" => {
                let data: Vec<Shape> = op.result_types[..n.saturating_sub(1)]
                    .iter()
                    .map(|t| t.to_shape())
                    .collect();
                (Shape::Tuple(vec![Shape::Tuple(data), Shape::Token]), ids)
            }
            // outfeed((data...), token) -> token
            "outfeed" => {
                let (token, data) = ids
                    .split_last()
                    .map(|(t, d)| (*t, d.to_vec()))
                    .unwrap_or((ids[0], vec![]));
                let t = self.tuple(&data, loc);
                (Shape::Token, vec![t, token])
            }
            // send((data...), token) -> token ; recv(token) -> ((data...), token)
            "send" => {
                let (token, data) = ids
                    .split_last()
                    .map(|(t, d)| (*t, d.to_vec()))
                    .unwrap_or((ids[0], vec![]));
                let t = self.tuple(&data, loc);
                (Shape::Token, vec![t, token])
            }
            "recv" => {
                let data: Vec<Shape> = op.result_types[..n.saturating_sub(1)]
                    .iter()
                    .map(|t| t.to_shape())
                    .collect();
                (Shape::Tuple(vec![Shape::Tuple(data), Shape::Token]), ids)
            }
            _ if n == 1 => (self.result_shape(op, 0), ids),
            _ => (self.results_tuple_shape(op), ids),
        };
        let id = self.add(shape, Op::Unmodeled { opcode, called }, operands, loc);
        let comp = self.comp();
        self.module.computations[comp].instrs[id].raw_attributes = raw;
        Ok(Some(match short {
            "infeed" | "recv" => {
                let data = self.gte(id, 0, loc);
                let token = self.gte(id, 1, loc);
                let mut out = self.unpack(data, n.saturating_sub(1), loc);
                out.push(token);
                out
            }
            _ if n == 1 => vec![id],
            _ => self.unpack(id, n, loc),
        }))
    }

    /// A CHLO op, decomposed by [`chlo::decompose`].
    /// A `stablehlo.composite` named `chlo.*` (how jaxlib's portable artifacts carry CHLO
    /// ops, which VHLO has no dialect for) lowered as its CHLO op, with the composite's
    /// `composite_attributes` as the op's attributes: XLA lowers these by name too, so
    /// the artifact runs to the same bits as the text program. `None` (and nothing added)
    /// when the name is not a CHLO op xlac lowers for these operand types; the composite's
    /// decomposition is called then.
    fn composite_as_chlo(&mut self, op: &'a Operation) -> Result<Option<Vec<InstrId>>, ParseError> {
        let Some(Attr::Str(chlo_name)) = op.attr("name") else {
            return Ok(None);
        };
        if !chlo_name.starts_with("chlo.") || chlo_name == "chlo.scan" {
            return Ok(None);
        }
        let attributes: &[(String, Attr)] = match op.attr("composite_attributes") {
            Some(Attr::Dict(entries, _)) => entries,
            None => &[],
            Some(_) => return Ok(None),
        };
        let comp = self.comp();
        let live = self.module.computations[comp].order.len();
        match self.convert_chlo(op, chlo_name, attributes) {
            Ok(ids) => Ok(Some(ids)),
            Err(_) => {
                // Whatever the lowering appended before it gave up is dropped from the
                // live order; the decomposition computes the op instead.
                self.module.computations[comp].order.truncate(live);
                Ok(None)
            }
        }
    }

    /// Lowers the CHLO op `name` (`op` itself, or a composite carrying it) with `attrs`.
    fn convert_chlo(
        &mut self,
        op: &'a Operation,
        name: &str,
        attrs: &[(String, Attr)],
    ) -> Result<Vec<InstrId>, ParseError> {
        let ids: Vec<InstrId> = self.operands(op)?.iter().map(|v| v.id).collect();
        if !op.regions.is_empty() {
            return Err(self
                .err(
                    op.loc,
                    format!(
                        "'{}' has a region; CHLO ops with regions are not supported",
                        op.name
                    ),
                )
                .unsupported());
        }
        let mut attributes = Vec::new();
        let mut add = |name: &str, a: &Attr| {
            let v = match a {
                Attr::Int(i) => i64::try_from(*i).ok().map(ChloAttr::Int),
                Attr::Bool(b) => Some(ChloAttr::Bool(*b)),
                Attr::Float(f) => Some(ChloAttr::Float(*f)),
                Attr::Ints(_) | Attr::Array(_) | Attr::Dense(_) => a.as_ints().map(ChloAttr::Ints),
                Attr::Str(s) | Attr::Symbol(s) => Some(ChloAttr::Str(s.clone())),
                Attr::Enum(s) => Some(
                    s.parse()
                        .map(ChloAttr::ComparisonDirection)
                        .or_else(|_| s.parse().map(ChloAttr::ComparisonType))
                        .unwrap_or_else(|_| ChloAttr::Str(s.clone())),
                ),
                _ => None,
            };
            if let Some(v) = v {
                attributes.push((name.to_string(), v));
            }
        };
        for (k, a) in attrs {
            if let Attr::Struct(_, fields) = a {
                for (f, v) in fields {
                    add(f, v);
                }
            } else {
                add(k, a);
            }
        }
        let result_shapes: Vec<Shape> = op.result_types.iter().map(|t| t.to_shape()).collect();
        let comp = self.comp();
        let before = self.module.computations[comp].instrs.len();
        let chlo_op = ChloOp {
            name,
            operands: &ids,
            result_shapes: &result_shapes,
            attributes: &attributes,
        };
        let out = chlo::decompose(&mut self.module, comp, &chlo_op)
            .map_err(|e| self.refused(op.loc, e))?;
        // Give the new instructions this op's position for messages.
        let c = &mut self.module.computations[comp];
        let ids: Vec<InstrId> = c.instrs.keys().skip(before).collect();
        for id in ids {
            c.spans[id] = crate::ir::Span {
                line: op.loc.line,
                col: op.loc.col,
            };
        }
        if out.len() != op.result_types.len() || out.iter().any(|id| c.instrs.get(*id).is_none()) {
            return Err(self.err(
                op.loc,
                format!(
                    "internal: the decomposition of '{}' returned {} results, expected {}",
                    op.name,
                    out.len(),
                    op.result_types.len()
                ),
            ));
        }
        Ok(out)
    }
}
