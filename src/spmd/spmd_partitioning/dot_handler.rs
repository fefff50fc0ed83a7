//! Dots: the plan that moves the least data (XLA: `dot_handler.cc`).

use super::*;

impl Partitioner<'_> {
    pub(super) fn dot(
        &mut self,
        instr: &Instruction,
        dnums: &crate::ir::DotDimensionNumbers,
    ) -> Result<(PValue, &'static str), PassError> {
        let (Some((_, lt)), Some((_, rt))) =
            (self.operand_tiling(instr, 0), self.operand_tiling(instr, 1))
        else {
            return self.fallback(instr);
        };
        let ldims = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let rdims = self.old.instrs[instr.operands[1]].shape.dims().to_vec();
        let odims = instr.shape.dims().to_vec();
        let target = self.target(instr)?;
        let d = dot::DotDims::new(dnums, ldims.len(), rdims.len());
        let eb = instr
            .shape
            .element_type()
            .map_or(4, |t| t.byte_size().max(1) as i64);
        let plan = dot::plan(
            &d,
            &lt,
            &rt,
            Some(&target),
            &|which, from, to| {
                let dims = match which {
                    0 => &ldims,
                    1 => &rdims,
                    _ => &odims,
                };
                reshard::cost(dims, eb, from, to)
            },
            &|out| out.shard_dims(&odims).iter().product::<i64>() * eb,
        );
        self.actions.push(format!("dot plan: {}", plan.name));
        let l = self.operand_in(instr, 0, &plan.lhs, "lhs for the local dot")?;
        let r = self.operand_in(instr, 1, &plan.rhs, "rhs for the local dot")?;
        let lty = self.array_shape(l).element_type;
        let zero = self.zero(lty);
        let l = self.mask_padding(l, &ldims, &plan.lhs, &d.lhs_contracting, zero);
        let shape = with_dims(&instr.shape, plan.out.shard_dims(&odims));
        let mut id = self.emit_clone(instr, shape, vec![l, r]);
        if let (Some(groups), Some(want)) = (&plan.partial, self.unreduced_target.clone()) {
            let partial = partial_tiling(&plan.out, groups);
            self.actions
                .push("partial sums kept: the result is unreduced".to_string());
            let id = self.reshard(
                id,
                &odims,
                &partial,
                &want,
                "dot result to its unreduced sharding",
            );
            return Ok((
                PValue::Array { id, tiling: want },
                "dot: local dot, partial sums kept (unreduced result)",
            ));
        }
        if let Some(groups) = &plan.partial {
            let ty = self.array_shape(id).element_type;
            let add = self.adder(ty);
            id = self.all_reduce(
                id,
                groups,
                add,
                "the contracting dimension is split: partial sums",
            );
        }
        let id = self.reshard(id, &odims, &plan.out, &target, "dot result to its sharding");
        Ok((
            PValue::Array { id, tiling: target },
            "dot: local dot of the shards",
        ))
    }
}
