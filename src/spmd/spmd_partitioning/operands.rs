//! Operands as a rule needs them: resharded to a tiling, materialized, made whole; the
//! partition's iota offsets and the mask that hides padding of uneven tiles from a reduce
//! (XLA: `PartitionedHlo`'s accessors and `spmd_partitioner_util.cc`'s padding masks).

use super::*;

impl Partitioner<'_> {
    /// The partitioned operand `i` of `instr` as an array in `to` (global dims `dims`).
    pub(super) fn operand_in(
        &mut self,
        instr: &Instruction,
        i: usize,
        to: &Tiling,
        why: &str,
    ) -> Result<InstrId, PassError> {
        let dims = self.old.instrs[instr.operands[i]].shape.dims().to_vec();
        match self.values[&instr.operands[i]].clone() {
            PValue::Array { id, tiling } => Ok(self.reshard(id, &dims, &tiling, to, why)),
            PValue::Whole(id) if to.is_replicated() => Ok(id),
            v => Err(err(instr, format!("operand {i} is {v:?}, not an array"))),
        }
    }

    pub(super) fn operand_tiling(
        &self,
        instr: &Instruction,
        i: usize,
    ) -> Option<(InstrId, Tiling)> {
        match &self.values[&instr.operands[i]] {
            PValue::Array { id, tiling } => Some((*id, tiling.clone())),
            _ => None,
        }
    }

    /// Materializes a value as one instruction (tuples become `tuple` instructions).
    pub(super) fn materialize(&mut self, v: &PValue) -> InstrId {
        match v {
            PValue::Array { id, .. } | PValue::Manual(id) | PValue::Whole(id) => *id,
            PValue::Tuple(vs) => {
                let ids: Vec<InstrId> = vs.iter().map(|v| self.materialize(v)).collect();
                let shapes: Vec<Shape> = ids
                    .iter()
                    .map(|&i| self.new.instrs[i].shape.clone())
                    .collect();
                self.emit(Shape::Tuple(shapes), Op::Plain(Opcode::Tuple), ids)
            }
        }
    }

    /// A value made whole (replicated) on every partition, for ops without a rule.
    pub(super) fn whole(&mut self, v: &PValue, dims: &Shape, why: &str) -> InstrId {
        match v {
            PValue::Array { id, tiling } => {
                let to = Tiling::replicated(tiling.rank(), self.n);
                let d = dims.dims().to_vec();
                self.reshard(*id, &d, &tiling.clone(), &to, why)
            }
            PValue::Tuple(vs) => {
                let elems = dims
                    .tuple_elements()
                    .map(<[Shape]>::to_vec)
                    .unwrap_or_default();
                let ids: Vec<InstrId> = vs
                    .iter()
                    .zip(elems.iter())
                    .map(|(v, s)| self.whole(v, s, why))
                    .collect();
                let shapes: Vec<Shape> = ids
                    .iter()
                    .map(|&i| self.new.instrs[i].shape.clone())
                    .collect();
                self.emit(Shape::Tuple(shapes), Op::Plain(Opcode::Tuple), ids)
            }
            PValue::Manual(id) | PValue::Whole(id) => *id,
        }
    }

    /// A split iota, as XLA computes it: each partition's own iota, plus its shard's
    /// start along the counting dimension (`iota + offset`), never the whole iota sliced.
    pub(super) fn partition_iota(
        &mut self,
        instr: &Instruction,
        dimension: usize,
    ) -> Result<(PValue, &'static str), PassError> {
        let target = self.target(instr)?;
        let global = instr.shape.dims().to_vec();
        let local = target.shard_dims(&global);
        let ty = instr
            .shape
            .element_type()
            .ok_or_else(|| err(instr, "an iota of a tuple"))?;
        let shape = Shape::array(ty, &local);
        let iota = self.emit_clone(instr, shape.clone(), vec![]);
        if target.counts[dimension] == 1 {
            return Ok((
                PValue::Array {
                    id: iota,
                    tiling: target,
                },
                "iota: each partition's own (the counting dimension whole)",
            ));
        }
        let offs: Vec<i64> = (0..self.n)
            .map(|p| target.start(&global, p, dimension))
            .collect();
        let off = self.per_partition(&offs);
        let off = if ty == PrimitiveType::S32 {
            off
        } else {
            self.emit(Shape::scalar(ty), Op::Plain(Opcode::Convert), vec![off])
        };
        let off = self.emit(
            shape.clone(),
            Op::Broadcast { dimensions: vec![] },
            vec![off],
        );
        let id = self.emit(shape, Op::Plain(Opcode::Add), vec![iota, off]);
        Ok((
            PValue::Array { id, tiling: target },
            "iota: each partition's own, plus its shard's start",
        ))
    }

    /// Sets padding of the uneven split dimensions in `dims_to_mask` to `fill` (the
    /// identity of the reduction that follows): `select(iota + offset < size, x, fill)`.
    pub(super) fn mask_padding(
        &mut self,
        x: InstrId,
        global: &[i64],
        tiling: &Tiling,
        dims_to_mask: &[usize],
        fill: InstrId,
    ) -> InstrId {
        let uneven: Vec<usize> = dims_to_mask
            .iter()
            .copied()
            .filter(|&d| tiling.is_uneven(global, d))
            .collect();
        if uneven.is_empty() {
            return x;
        }
        let a = self.array_shape(x);
        let pred_shape = Shape::array(PrimitiveType::Pred, &a.dims);
        let mut mask: Option<InstrId> = None;
        for d in uneven {
            let iota = self.emit(
                Shape::array(PrimitiveType::S32, &a.dims),
                Op::Iota { dimension: d },
                vec![],
            );
            let offs: Vec<i64> = (0..self.n).map(|p| tiling.start(global, p, d)).collect();
            let off = self.per_partition(&offs);
            let off_b = self.emit(
                Shape::array(PrimitiveType::S32, &a.dims),
                Op::Broadcast { dimensions: vec![] },
                vec![off],
            );
            let pos = self.emit(
                Shape::array(PrimitiveType::S32, &a.dims),
                Op::Plain(Opcode::Add),
                vec![iota, off_b],
            );
            let limit = self.s32(global[d]);
            let limit_b = self.emit(
                Shape::array(PrimitiveType::S32, &a.dims),
                Op::Broadcast { dimensions: vec![] },
                vec![limit],
            );
            let lt = self.emit(
                pred_shape.clone(),
                Op::Compare {
                    direction: ComparisonDirection::Lt,
                    comparison_type: None,
                },
                vec![pos, limit_b],
            );
            mask = Some(match mask {
                None => lt,
                Some(m) => self.emit(pred_shape.clone(), Op::Plain(Opcode::And), vec![m, lt]),
            });
        }
        let fill_b = self.emit(
            Shape::Array(a.clone()),
            Op::Broadcast { dimensions: vec![] },
            vec![fill],
        );
        self.actions
            .push("select masks the padding of uneven shards".to_string());
        self.emit(
            Shape::Array(a),
            Op::Plain(Opcode::Select),
            vec![mask.unwrap(), x, fill_b],
        )
    }
}
