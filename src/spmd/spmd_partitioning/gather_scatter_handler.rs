//! Gather and scatter along passthrough dimensions (XLA: `gather_scatter_handler.cc`).

use super::*;

impl Partitioner<'_> {
    pub(super) fn gather(
        &mut self,
        instr: &Instruction,
        d: &GatherDimensionNumbers,
        slice_sizes: &[i64],
        indices_are_sorted: bool,
    ) -> Result<(PValue, &'static str), PassError> {
        let want = self.target(instr)?;
        let od = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let out_dims = instr.shape.dims().to_vec();
        let pairs = gather_scatter::gather_passthrough(d, slice_sizes, &od);
        let same: Vec<(usize, usize)> = pairs.iter().map(|p| (p.1, p.1)).collect();
        let (Some(ot), Some(local)) = (
            gather_scatter::along(&want, &pairs, od.len(), true),
            gather_scatter::along(&want, &same, out_dims.len(), false),
        ) else {
            return self.fallback(instr);
        };
        let (x, idx) = self.operand_and_indices(instr, &ot)?;
        let shard = ot.shard_dims(&od);
        let mut sizes = slice_sizes.to_vec();
        for &(i, _) in &pairs {
            sizes[i] = shard[i];
        }
        let mut local_instr = instr.clone();
        local_instr.op = Op::Gather {
            dimension_numbers: d.clone(),
            slice_sizes: sizes,
            indices_are_sorted,
        };
        let shape = with_dims(&instr.shape, local.shard_dims(&out_dims));
        let id = self.emit_clone(&local_instr, shape, vec![x, idx]);
        self.reshard_to_target(
            instr,
            id,
            &out_dims,
            &local,
            "gather result to its sharding",
            "gather: local along passthrough dimensions",
        )
    }

    pub(super) fn scatter(
        &mut self,
        instr: &Instruction,
        d: &ScatterDimensionNumbers,
    ) -> Result<(PValue, &'static str), PassError> {
        let want = self.target(instr)?;
        let od = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let ud = self.old.instrs[instr.operands[2]].shape.dims().to_vec();
        let pairs = gather_scatter::scatter_passthrough(d, &od, &ud);
        let same: Vec<(usize, usize)> = pairs.iter().map(|p| (p.0, p.0)).collect();
        let (Some(local), Some(ut)) = (
            gather_scatter::along(&want, &same, od.len(), false),
            gather_scatter::along(&want, &pairs, ud.len(), false),
        ) else {
            return self.fallback(instr);
        };
        let (x, idx) = self.operand_and_indices(instr, &local)?;
        let u = self.operand_in(instr, 2, &ut, "updates split like the operand")?;
        let shape = with_dims(&instr.shape, local.shard_dims(&od));
        let id = self.emit_clone(instr, shape, vec![x, idx, u]);
        self.reshard_to_target(
            instr,
            id,
            &od,
            &local,
            "scatter result to its sharding",
            "scatter: local along passthrough dimensions",
        )
    }

    /// A gather's or scatter's operand (operand 0) split as `tiling`, and its indices
    /// (operand 1) whole on every partition.
    pub(super) fn operand_and_indices(
        &mut self,
        instr: &Instruction,
        tiling: &Tiling,
    ) -> Result<(InstrId, InstrId), PassError> {
        let op = instr.opcode();
        let why = format!("{op} operand split along passthrough dims only");
        let x = self.operand_in(instr, 0, tiling, &why)?;
        let rank = self.old.instrs[instr.operands[1]].shape.rank();
        let whole = Tiling::replicated(rank, self.n);
        let idx = self.operand_in(instr, 1, &whole, &format!("{op} indices whole"))?;
        Ok((x, idx))
    }
}
