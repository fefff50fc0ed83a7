//! Reductions over split dimensions: one all-reduce, or partial results gathered and reduced again for variadic reducers (XLA: `HandleReduce`).

use super::*;

impl Partitioner<'_> {
    pub(super) fn reduce(
        &mut self,
        instr: &Instruction,
        dimensions: &[usize],
        to_apply: ComputationId,
    ) -> Result<(PValue, &'static str), PassError> {
        let Some((x, t)) = self.operand_tiling(instr, 0) else {
            return self.fallback(instr);
        };
        let global = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let init = self.operand_in(instr, 1, &Tiling::replicated(0, self.n), "init value")?;
        let x = self.mask_padding(x, &global, &t, dimensions, init);
        let out = reduce::result(&t, dimensions);
        let shape = with_dims(&instr.shape, out.shard_dims(instr.shape.dims()));
        let mut id = self.emit_clone(instr, shape, vec![x, init]);
        match reduce::partial_groups(&t, dimensions) {
            None => {}
            Some(Ok(groups)) if self.unreduced_target.is_some() && self.is_adder(to_apply) => {
                let want = self.unreduced_target.clone().unwrap_or_else(|| out.clone());
                let partial = partial_tiling(&out, &groups);
                self.actions
                    .push("partial sums kept: the result is unreduced".to_string());
                let id = self.reshard(
                    id,
                    instr.shape.dims(),
                    &partial,
                    &want,
                    "reduce result to its unreduced sharding",
                );
                return Ok((
                    PValue::Array { id, tiling: want },
                    "reduce: local sum, partial sums kept (unreduced result)",
                ));
            }
            Some(Ok(groups)) => {
                id = self.all_reduce(
                    id,
                    &groups,
                    to_apply,
                    "the reduced dimension is split: partial results",
                );
            }
            Some(Err(())) => return Err(err(instr, "no all-reduce grouping fits this sharding")),
        }
        self.reshard_to_target(
            instr,
            id,
            instr.shape.dims(),
            &out,
            "reduce result to its sharding",
            "reduce: local reduce, then all-reduce over split reduced dimensions",
        )
    }

    /// A reduce of several inputs (a tuple of arrays, one per input) whose first input is
    /// a partitioned array; a result annotated unreduced is left to the fallback.
    pub(super) fn variadic_reduce_partitionable(&self, instr: &Instruction) -> bool {
        let Shape::Tuple(elems) = &instr.shape else {
            return false;
        };
        !elems.is_empty()
            && elems.len() * 2 == instr.operands.len()
            && elems.iter().all(Shape::is_array)
            && self.unreduced_target.is_none()
            && self.operand_tiling(instr, 0).is_some()
    }

    /// A variadic reduce (argmax's values and indices): every input in the first one's
    /// tiling, a local reduce; when a reduced dimension is split, each partial result gets
    /// its reduced dimensions back (one element per tile), is all-gathered along them in
    /// tile order and reduced again with the same reducer, so the partial results combine
    /// in the order one device would meet them (XLA's `HandleReduce` for tuples).
    pub(super) fn variadic_reduce(
        &mut self,
        instr: &Instruction,
        dimensions: &[usize],
    ) -> Result<(PValue, &'static str), PassError> {
        let Shape::Tuple(elems) = &instr.shape else {
            return self.fallback(instr);
        };
        let k = elems.len();
        let Some((_, t)) = self.operand_tiling(instr, 0) else {
            return self.fallback(instr);
        };
        let global = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let mut inits = Vec::with_capacity(k);
        for i in 0..k {
            inits.push(self.operand_in(
                instr,
                k + i,
                &Tiling::replicated(0, self.n),
                "init value",
            )?);
        }
        let mut ops = Vec::with_capacity(2 * k);
        for (i, &init) in inits.iter().enumerate() {
            let x = self.operand_in(instr, i, &t, "inputs of a variadic reduce split alike")?;
            ops.push(self.mask_padding(x, &global, &t, dimensions, init));
        }
        ops.extend(inits.iter().copied());
        let out = reduce::result(&t, dimensions);
        let out_dims = elems[0].dims().to_vec();
        let local: Vec<Shape> = elems
            .iter()
            .map(|e| with_dims(e, out.shard_dims(&out_dims)))
            .collect();
        let mut id = self.emit_clone(instr, Shape::Tuple(local.clone()), ops);
        let split = dimensions.iter().any(|&d| t.counts[d] > 1);
        if split {
            let (pieces, gathered) = reduce::partial_pieces(&t, &global, dimensions);
            let piece_dims = t.shard_dims(&pieces);
            let mut parts = Vec::with_capacity(2 * k);
            for (i, s) in local.iter().enumerate() {
                let g = self.emit(s.clone(), Op::GetTupleElement { index: i }, vec![id]);
                let ty = s
                    .element_type()
                    .ok_or_else(|| err(instr, "a tuple element"))?;
                let r = self.emit(
                    Shape::array(ty, &piece_dims),
                    Op::Plain(Opcode::Reshape),
                    vec![g],
                );
                parts.push(self.reshard(
                    r,
                    &pieces,
                    &t,
                    &gathered,
                    "partial results of a variadic reduce",
                ));
            }
            parts.extend(inits.iter().copied());
            self.actions
                .push("the partial results reduced again with the same reducer".to_string());
            id = self.emit_clone(instr, Shape::Tuple(local.clone()), parts);
            self.new.instrs[id].name = self.fresh_name(&instr.name);
        }
        let mut vs = Vec::with_capacity(k);
        for (i, s) in local.into_iter().enumerate() {
            let g = self.emit(s, Op::GetTupleElement { index: i }, vec![id]);
            let want = self.tuple_target(instr, i, &elems[i])?;
            let g = self.reshard(g, &out_dims, &out, &want, "reduce result to its sharding");
            vs.push(PValue::Array {
                id: g,
                tiling: want,
            });
        }
        let rule = if split {
            "variadic reduce: local reduce, partial results all-gathered and reduced again"
        } else {
            "variadic reduce: local, no reduced dimension split"
        };
        Ok((PValue::Tuple(vs), rule))
    }
}
