//! Data movement: dynamic slices and updates, reshapes, concatenates and sorts (XLA: `HandleDynamicSlice`, `HandleDynamicUpdateSlice`, `HandleReshape`, `HandleConcatenate`, `HandleSort`).

use super::*;

impl Partitioner<'_> {
    /// `dynamic-slice`: local when every split dimension is taken whole (a start index
    /// there can only be 0, on the shard as on the whole); other splits are gathered
    /// first. (`xs[i]` of a scan over a batch-split `xs`.)
    pub(super) fn dynamic_slice(
        &mut self,
        instr: &Instruction,
        sizes: &[i64],
    ) -> Result<(PValue, &'static str), PassError> {
        let Some((_, t)) = self.operand_tiling(instr, 0) else {
            return self.fallback(instr);
        };
        let dims = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let local = keep_whole(&t, &dims, sizes);
        let x = self.operand_in(
            instr,
            0,
            &local,
            "dynamic-slice: split only where taken whole",
        )?;
        let indices = self.scalar_operands(instr, 1)?;
        let out_dims = instr.shape.dims().to_vec();
        let shard = local.shard_dims(&out_dims);
        let mut ops = vec![x];
        ops.extend(indices);
        let id = self.emit_clone(instr, with_dims(&instr.shape, shard.clone()), ops);
        self.new.instrs[id].op = Op::DynamicSlice { sizes: shard };
        self.reshard_to_target(
            instr,
            id,
            &out_dims,
            &local,
            "dynamic-slice result to its sharding",
            "dynamic-slice: local on the dimensions it takes whole",
        )
    }

    /// `dynamic-update-slice`: local when every split dimension of the operand is one the
    /// update covers whole (the update split the same way there); other splits are
    /// gathered first. (`ys.at[i].set(y)` of a scan.)
    pub(super) fn dynamic_update_slice(
        &mut self,
        instr: &Instruction,
    ) -> Result<(PValue, &'static str), PassError> {
        let target = self.target(instr)?;
        let dims = instr.shape.dims().to_vec();
        let update_dims = self.old.instrs[instr.operands[1]].shape.dims().to_vec();
        let local = keep_whole(&target, &dims, &update_dims);
        let x = self.operand_in(
            instr,
            0,
            &local,
            "dynamic-update-slice operand to its split",
        )?;
        let u = self.operand_in(
            instr,
            1,
            &local,
            "dynamic-update-slice update split like the operand",
        )?;
        let mut ops = vec![x, u];
        ops.extend(self.scalar_operands(instr, 2)?);
        let id = self.emit_clone(instr, with_dims(&instr.shape, local.shard_dims(&dims)), ops);
        self.reshard_to_target(
            instr,
            id,
            &dims,
            &local,
            "dynamic-update-slice result to its sharding",
            "dynamic-update-slice: local on the dimensions the update covers",
        )
    }

    pub(super) fn reshape(
        &mut self,
        instr: &Instruction,
    ) -> Result<(PValue, &'static str), PassError> {
        let Some((mut x, t)) = self.operand_tiling(instr, 0) else {
            return self.fallback(instr);
        };
        let from = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let to = instr.shape.dims().to_vec();
        // The splits the reshape cannot keep are gathered, minor first.
        let (kept, out) = shape_ops::reshape_local(&from, &to, &t);
        if kept != t {
            x = self.reshard(x, &from, &t, &kept, "reshape cannot keep this split");
        }
        let out = out.unwrap_or_else(|| Tiling::replicated(to.len(), self.n));
        let shape = with_dims(&instr.shape, out.shard_dims(&to));
        let id = self.emit_clone(instr, shape, vec![x]);
        self.reshard_to_target(
            instr,
            id,
            &to,
            &out,
            "reshape result to its sharding",
            "reshape: splits kept where the dimensions allow",
        )
    }

    /// `concatenate`: see `rules::concatenate` for the three plans.
    pub(super) fn concatenate(
        &mut self,
        instr: &Instruction,
        dimension: usize,
    ) -> Result<(PValue, &'static str), PassError> {
        if (0..instr.operands.len()).any(|i| self.operand_tiling(instr, i).is_none()) {
            return self.fallback(instr);
        }
        let target = self.target(instr)?;
        let dims = instr.shape.dims().to_vec();
        let sizes: Vec<i64> = instr
            .operands
            .iter()
            .map(|&o| self.old.instrs[o].shape.dims()[dimension])
            .collect();
        let (held, why, rule) = match concatenate::plan(&target, dimension, &sizes, &dims) {
            concatenate::Plan::Local => (
                target.clone(),
                "operand to the result's sharding",
                "concatenate: local, the concatenated dimension whole",
            ),
            concatenate::Plan::MoveSplit { dim, moved } => {
                self.actions.push(format!(
                    "all-to-all: the split of dimension {dimension} moves to dimension {dim} \
                     for the local concatenate, and back"
                ));
                (
                    moved,
                    "the concatenated dimension's split moved off it",
                    "concatenate: the split moved to another dimension (all-to-all) and back",
                )
            }
            concatenate::Plan::Gather => {
                self.actions.push(
                    "gather: the pieces do not divide evenly, or no other dimension can hold \
                     the split"
                        .to_string(),
                );
                return self.fallback(instr);
            }
        };
        let mut ops = Vec::with_capacity(instr.operands.len());
        for i in 0..instr.operands.len() {
            ops.push(self.operand_in(instr, i, &held, why)?);
        }
        let shape = with_dims(&instr.shape, held.shard_dims(&dims));
        let id = self.emit_clone(instr, shape, ops);
        let id = self.reshard(
            id,
            &dims,
            &held,
            &target,
            "concatenate result to its sharding",
        );
        Ok((PValue::Array { id, tiling: target }, rule))
    }

    pub(super) fn sort(
        &mut self,
        instr: &Instruction,
        dimension: usize,
    ) -> Result<(PValue, &'static str), PassError> {
        let dims = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let want = match &instr.shape {
            Shape::Tuple(elems) => self.tuple_target(instr, 0, &elems[0])?,
            _ => self.target(instr)?,
        };
        let local = sort::local_tiling(&want, &dims, dimension);
        let mut ops = Vec::new();
        for i in 0..instr.operands.len() {
            ops.push(self.operand_in(instr, i, &local, "sorted dimension made whole")?);
        }
        let shard = local.shard_dims(&dims);
        let rule = if local == want {
            "sort: local, the sorted dimension whole"
        } else {
            "sort: the split moved off the sorted dimension and back"
        };
        let Shape::Tuple(elems) = &instr.shape else {
            let id = self.emit_clone(instr, with_dims(&instr.shape, shard), ops);
            return self.reshard_to_target(
                instr,
                id,
                &dims,
                &local,
                "sort result to its sharding",
                rule,
            );
        };
        let shapes: Vec<Shape> = elems.iter().map(|e| with_dims(e, shard.clone())).collect();
        let id = self.emit_clone(instr, Shape::Tuple(shapes.clone()), ops);
        let mut vs = Vec::new();
        for (i, s) in shapes.into_iter().enumerate() {
            let g = self.emit(s, Op::GetTupleElement { index: i }, vec![id]);
            let t = self.tuple_target(instr, i, &elems[i])?;
            let g = self.reshard(g, &dims, &local, &t, "sort result to its sharding");
            vs.push(PValue::Array { id: g, tiling: t });
        }
        Ok((PValue::Tuple(vs), rule))
    }
}
