//! Shardings in StableHLO, converted to HLO's: `sdy.sharding` / `mhlo.sharding` attributes
//! of function arguments and results, `sdy.sharding_constraint`, and
//! `sdy.manual_computation` (shard_map), written as GSPMD writes them: a `Sharding`
//! custom call, then `SPMDFullToShardShape` into the per-device body (inlined) and
//! `SPMDShardToFullShape` out of it. Shardy shardings become tile assignments with the
//! module's `sdy.mesh`es (`crate::ir::sharding::SdySharding::to_hlo`).

use super::super::ast::Operation;
use super::super::attributes::Attr;
use super::super::lexer::Loc;
use super::{Capture, Converter, Scope, Val};
use crate::ir::hlo_text::ParseError;
use crate::ir::sharding::{HloSharding, SdyMesh, SdySharding, parse_manual_axes};
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
                let s = SdySharding::parse(t).map_err(|e| self.err(op.loc, e.to_string()))?;
                let s = self.sdy_to_hlo(&s, op.loc)?;
                let x = self.operands(op)?;
                let shape = self.shape(x[0].id).clone();
                Ok(Some(vec![
                    self.sharding_call("Sharding", x[0].id, shape, s, op.loc),
                ]))
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
        if let Some(mesh) = ins
            .first()
            .or(outs.first())
            .and_then(|s| self.meshes.iter().find(|m| m.name == s.mesh))
            && mesh
                .axes
                .iter()
                .any(|(a, size)| *size > 1 && !axes.contains(a))
        {
            return Err(self.err(
                    op.loc,
                    "sdy.manual_computation over some mesh axes only (partially manual) is not supported",
                ).unsupported());
        }
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
}
