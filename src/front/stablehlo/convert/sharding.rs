//! Shardings in StableHLO, converted to HLO's: `sdy.sharding` / `mhlo.sharding` attributes
//! of function arguments and results, `sdy.sharding_constraint`, and
//! `sdy.manual_computation` (shard_map), written as GSPMD writes them: a `Sharding`
//! custom call, then `SPMDFullToShardShape` into the per-device body (inlined) and
//! `SPMDShardToFullShape` out of it. Shardy shardings become tile assignments with the
//! module's `sdy.mesh`es (`crate::ir::sharding::SdySharding::to_hlo`).

use super::super::ast::{Block, Operation, Region};
use super::super::attributes::Attr;
use super::super::lexer::Loc;
use super::{Capture, Converter, Scope, Val};
use crate::front::hlo_text::ParseError;
use crate::ir::sharding::{
    HloSharding, SdyMesh, SdySharding, SubgroupKind, TileAssignment, parse_manual_axes,
};
use crate::ir::{CustomCall, InstrId, Op, Shape};

impl<'a> Converter<'a> {
    /// The meshes of `sdy.mesh` ops.
    pub(crate) fn set_meshes(
        &mut self,
        meshes: &[(String, String)],
        loc: Loc,
    ) -> Result<(), ParseError> {
        for (name, text) in meshes {
            let m = SdyMesh::parse(name, text)
                .map_err(|e| self.err(loc, format!("sdy.mesh @{name}: {e}")))?;
            self.meshes.push(m);
        }
        Ok(())
    }

    fn sdy_to_hlo(&self, s: &SdySharding, loc: Loc) -> Result<HloSharding, ParseError> {
        let mesh = self
            .meshes
            .iter()
            .find(|m| m.name == s.mesh)
            .ok_or_else(|| self.err(loc, format!("no sdy.mesh @{}", s.mesh)))?;
        s.to_hlo(mesh).map_err(|e| self.err(loc, e.to_string()))
    }

    /// The sharding in an attribute list: `sdy.sharding = #sdy.sharding<...>` or
    /// `mhlo.sharding = "{...}"`.
    pub(crate) fn sharding_attr(
        &self,
        attrs: &[(String, Attr)],
        loc: Loc,
    ) -> Result<Option<HloSharding>, ParseError> {
        for (k, v) in attrs {
            match (k.as_str(), v) {
                ("sdy.sharding", Attr::Opaque(t)) => {
                    let s = SdySharding::parse(t).map_err(|e| self.err(loc, e.to_string()))?;
                    return self.sdy_to_hlo(&s, loc).map(Some);
                }
                ("mhlo.sharding", Attr::Str(t)) => {
                    return HloSharding::parse(t)
                        .map(Some)
                        .map_err(|e| self.err(loc, format!("mhlo.sharding: {e}")));
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// `custom-call(x), custom_call_target="<target>", sharding=<s>` of shape `shape`.
    pub(crate) fn sharding_call(
        &mut self,
        target: &str,
        x: InstrId,
        shape: Shape,
        s: HloSharding,
        loc: Loc,
    ) -> InstrId {
        let id = self.add(
            shape,
            Op::CustomCall(Box::new(CustomCall::new(target))),
            vec![x],
            loc,
        );
        let comp = self.comp();
        self.module.computations[comp].instrs[id].sharding = Some(s);
        id
    }

    /// `sdy.sharding_constraint` and `sdy.manual_computation`; `None` for other ops.
    pub(crate) fn convert_sdy(
        &mut self,
        op: &'a Operation,
    ) -> Result<Option<Vec<InstrId>>, ParseError> {
        match op.name.as_str() {
            "sdy.sharding_constraint" => {
                let Some(Attr::Opaque(t)) = op.attr("sharding") else {
                    return Err(self.err(op.loc, "sdy.sharding_constraint without a sharding"));
                };
                let sdy = SdySharding::parse(t).map_err(|e| self.err(op.loc, e.to_string()))?;
                let s = self.sdy_to_hlo(&sdy, op.loc)?;
                let x = self.operands(op)?;
                let shape = self.shape(x[0].id).clone();
                let id = self.sharding_call("Sharding", x[0].id, shape, s, op.loc);
                // Every dimension open (`{?}`) and unsplit: GSPMD's `unspecified_dims`, which
                // a partially manual body treats as no constraint.
                if !sdy.dims.is_empty() && sdy.dims.iter().all(|d| d.open && d.axes.is_empty()) {
                    let dims: Vec<String> = (0..sdy.dims.len()).map(|d| d.to_string()).collect();
                    let comp = self.comp();
                    self.module.computations[comp].instrs[id].backend_config =
                        Some(crate::ir::BackendConfig::Quoted(format!(
                            "unspecified_dims=[{}]",
                            dims.join(",")
                        )));
                }
                Ok(Some(vec![id]))
            }
            "sdy.manual_computation" => self.manual_computation(op).map(Some),
            _ => Ok(None),
        }
    }

    fn manual_computation(&mut self, op: &'a Operation) -> Result<Vec<InstrId>, ParseError> {
        let list = |key: &str| -> Result<Vec<SdySharding>, ParseError> {
            match op.attr(key) {
                Some(Attr::Opaque(t)) => {
                    SdySharding::parse_list(t).map_err(|e| self.err(op.loc, format!("{key}: {e}")))
                }
                _ => Err(self.err(op.loc, format!("sdy.manual_computation without {key}"))),
            }
        };
        let ins = list("in_shardings")?;
        let outs = list("out_shardings")?;
        let axes = match op.attr("manual_axes") {
            Some(Attr::Opaque(t)) => {
                parse_manual_axes(t).map_err(|e| self.err(op.loc, e.to_string()))?
            }
            _ => Vec::new(),
        };
        // Over some mesh axes only (partially manual): the sharding each value has inside
        // the body, manual along those axes and free along the others.
        let partial = match ins
            .first()
            .or(outs.first())
            .and_then(|s| self.meshes.iter().find(|m| m.name == s.mesh))
        {
            Some(mesh)
                if mesh
                    .axes
                    .iter()
                    .any(|(a, size)| *size > 1 && !axes.contains(a)) =>
            {
                Some(mesh.clone())
            }
            _ => None,
        };
        if let Some(mesh) = &partial {
            return self.partially_manual_computation(op, &ins, &outs, &axes, mesh);
        }
        let (operands, region, block) = self.manual_body(op, &ins)?;
        // Into the body: each operand constrained to its in-sharding, then cut to shards.
        let mut locals = Vec::new();
        for (i, v) in operands.iter().enumerate() {
            let s = self.sdy_to_hlo(&ins[i], op.loc)?;
            let shape = self.shape(v.id).clone();
            let c = self.sharding_call("Sharding", v.id, shape, s, op.loc);
            let local_ty = block.arguments[i].1.clone();
            let l = self.sharding_call(
                "SPMDFullToShardShape",
                c,
                local_ty.to_shape(),
                HloSharding::Manual,
                op.loc,
            );
            locals.push(Val {
                id: l,
                ty: local_ty,
            });
        }
        let comp = self.comp();
        self.scopes.push(Scope {
            comp,
            values: Default::default(),
            capture: Capture::Forbidden("sdy.manual_computation".into()),
        });
        for ((name, _), v) in block.arguments.iter().zip(locals) {
            self.bind(name, vec![v]);
        }
        let ret = self.convert_block_ops(region, op.loc);
        self.scopes.pop();
        let ret = ret?;
        if ret.len() != outs.len() || ret.len() != op.result_types.len() {
            return Err(self.err(
                op.loc,
                format!(
                    "sdy.manual_computation returns {} values for {} out_shardings",
                    ret.len(),
                    outs.len()
                ),
            ));
        }
        // Out of the body: the per-device values form global ones.
        let mut results = Vec::new();
        for (i, v) in ret.iter().enumerate() {
            let s = self.sdy_to_hlo(&outs[i], op.loc)?;
            let shape = self.shape(v.id).clone();
            let m = self.sharding_call("Sharding", v.id, shape, HloSharding::Manual, op.loc);
            let full = op.result_types[i].to_shape();
            results.push(self.sharding_call("SPMDShardToFullShape", m, full, s, op.loc));
        }
        Ok(results)
    }

    /// The operands, body region and entry block of an `sdy.manual_computation`, checked
    /// to be as many as its in-shardings.
    fn manual_body(
        &mut self,
        op: &'a Operation,
        ins: &[SdySharding],
    ) -> Result<(Vec<Val>, &'a Region, &'a Block), ParseError> {
        let operands = self.operands(op)?;
        let region = op
            .regions
            .first()
            .ok_or_else(|| self.err(op.loc, "sdy.manual_computation without a body"))?;
        let block = region
            .blocks
            .first()
            .ok_or_else(|| self.err(op.loc, "empty sdy.manual_computation body"))?;
        if ins.len() != operands.len() || block.arguments.len() != operands.len() {
            return Err(self.err(
                op.loc,
                format!(
                    "sdy.manual_computation: {} operands, {} in_shardings, {} block arguments",
                    operands.len(),
                    ins.len(),
                    block.arguments.len()
                ),
            ));
        }
        Ok((operands, region, block))
    }

    /// `sdy.manual_computation` manual along `axes` only, written as GSPMD writes it: each
    /// operand constrained to its in-sharding and cut by `SPMDFullToShardShape` with a
    /// sharding manual along `axes` (a manual subgroup, the free axes replicated), the body
    /// a computation of its own called once (the partitioner partitions it along the free
    /// axes), each result assembled by `SPMDShardToFullShape`.
    fn partially_manual_computation(
        &mut self,
        op: &'a Operation,
        ins: &[SdySharding],
        outs: &[SdySharding],
        axes: &[String],
        mesh: &SdyMesh,
    ) -> Result<Vec<InstrId>, ParseError> {
        let (operands, region, block) = self.manual_body(op, ins)?;
        if outs.len() != op.result_types.len() {
            return Err(self.err(
                op.loc,
                format!(
                    "sdy.manual_computation has {} results for {} out_shardings",
                    op.result_types.len(),
                    outs.len()
                ),
            ));
        }
        let sizes: Vec<i64> = mesh.axes.iter().map(|a| a.1).collect();
        let mut manual = Vec::new();
        for a in axes {
            manual.push(
                mesh.axes.iter().position(|(n, _)| n == a).ok_or_else(|| {
                    self.err(op.loc, format!("no axis \"{a}\" in @{}", mesh.name))
                })?,
            );
        }
        let free: Vec<usize> = (0..sizes.len()).filter(|i| !manual.contains(i)).collect();
        let m: i64 = manual.iter().map(|&i| sizes[i]).product();
        let f: i64 = free.iter().map(|&i| sizes[i]).product();
        let mut order = manual.clone();
        order.extend(&free);
        let subgroup = |rank: usize| {
            let mut dims = vec![1i64; rank];
            dims.push(m);
            let mut kinds = vec![SubgroupKind::Manual];
            if f > 1 {
                dims.push(f);
                kinds.push(SubgroupKind::Replicated);
            }
            let tiles = match &mesh.device_ids {
                Some(ids) if ids.iter().enumerate().any(|(i, &d)| d != i as i64) => {
                    let base = TileAssignment::iota(dims.clone(), &sizes, &order).devices();
                    TileAssignment::Explicit {
                        dims,
                        devices: base.iter().map(|&i| ids[i as usize]).collect(),
                    }
                }
                _ => TileAssignment::iota(dims, &sizes, &order),
            };
            HloSharding::tiled(tiles, false, kinds)
        };
        let mut locals = Vec::new();
        for (i, v) in operands.iter().enumerate() {
            let s = self.sdy_to_hlo(&ins[i], op.loc)?;
            let shape = self.shape(v.id).clone();
            let c = self.sharding_call("Sharding", v.id, shape, s, op.loc);
            let local = block.arguments[i].1.to_shape();
            let rank = local.rank();
            locals.push(self.sharding_call(
                "SPMDFullToShardShape",
                c,
                local,
                subgroup(rank),
                op.loc,
            ));
        }
        let body = self.region_computation(region, op, "shmap_body")?;
        let root_shape = {
            let c = &self.module.computations[body];
            c.instrs[c.root].shape.clone()
        };
        let call = self.add(root_shape, Op::Call { to_apply: body }, locals, op.loc);
        let n = outs.len();
        let mut results = Vec::new();
        for (i, out) in outs.iter().enumerate() {
            let v = if n == 1 {
                call
            } else {
                self.gte(call, i, op.loc)
            };
            let s = self.sdy_to_hlo(out, op.loc)?;
            let full = op.result_types[i].to_shape();
            results.push(self.sharding_call("SPMDShardToFullShape", v, full, s, op.loc));
        }
        Ok(results)
    }
}
