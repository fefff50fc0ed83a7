//! Custom calls: sharding annotations, shard_map boundaries and the rest (XLA: `custom_call_handler.cc`).

use super::*;

impl Partitioner<'_> {
    pub(super) fn custom_call(
        &mut self,
        instr: &Instruction,
        target_name: &str,
    ) -> Result<(PValue, &'static str), PassError> {
        match target_name {
            "Sharding" | "xla.sdy.FuncResultSharding" => {
                if let Some(PValue::Manual(id)) = self.values.get(&instr.operands[0]) {
                    return Ok((
                        PValue::Manual(*id),
                        "sharding constraint inside a manual region",
                    ));
                }
                if instr.sharding.as_ref().is_some_and(HloSharding::is_manual) {
                    let v = self.values[&instr.operands[0]].clone();
                    return Ok((v, "manual sharding constraint"));
                }
                if !instr.shape.is_array() {
                    let v = self.values[&instr.operands[0]].clone();
                    return Ok((v, "sharding constraint on a tuple: kept"));
                }
                let target = self.target(instr)?;
                let id = self.operand_in(instr, 0, &target, "with_sharding_constraint")?;
                Ok((
                    PValue::Array { id, tiling: target },
                    "sharding constraint: operand resharded",
                ))
            }
            "SPMDFullToShardShape" | "xla.sdy.GlobalToLocalShape" => {
                let mut outs = Vec::new();
                for i in 0..instr.operands.len() {
                    let o = instr.operands[i];
                    let oshape = self.old.instrs[o].shape.clone();
                    // The split the region's operand must arrive in: the custom call's own
                    // (sdy) or its operand's (the `Sharding` custom call before it).
                    let want = match (target_name, &instr.sharding) {
                        ("xla.sdy.GlobalToLocalShape", Some(s)) => s.element(i).cloned(),
                        _ => self.old.instrs[o].sharding.clone(),
                    }
                    .unwrap_or(HloSharding::Replicated);
                    want.validate(oshape.rank(), self.n as i64)
                        .map_err(|e| err(instr, e))?;
                    let t = Tiling::of(&want, oshape.rank(), self.n);
                    let x =
                        self.operand_in(instr, i, &t, "shard_map operand to its in-sharding")?;
                    let want_shape = t.shard_dims(oshape.dims());
                    let got = match &instr.shape {
                        Shape::Tuple(v) => v[i].dims().to_vec(),
                        s => s.dims().to_vec(),
                    };
                    if got != want_shape {
                        return Err(err(
                            instr,
                            format!(
                                "local shape {} does not match the shard {} of {want}",
                                fmt_dims(&got),
                                fmt_dims(&want_shape)
                            ),
                        ));
                    }
                    outs.push(PValue::Manual(x));
                }
                if instr.shape.is_tuple() {
                    let id = self.materialize(&PValue::Tuple(outs));
                    Ok((
                        PValue::Manual(id),
                        "shard_map entry: each partition's shard",
                    ))
                } else {
                    Ok((
                        outs.pop().unwrap(),
                        "shard_map entry: each partition's shard",
                    ))
                }
            }
            "SPMDShardToFullShape" | "xla.sdy.LocalToGlobalShape" => {
                let mut outs = Vec::new();
                let leaves: Vec<Shape> = match &instr.shape {
                    Shape::Tuple(v) => v.clone(),
                    s => vec![s.clone()],
                };
                for (i, leaf) in leaves.iter().enumerate() {
                    let local = match self.values[&instr.operands[i]].clone() {
                        PValue::Manual(id) | PValue::Whole(id) => id,
                        PValue::Array { id, .. } => id,
                        v => self.materialize(&v),
                    };
                    let mut t = self.tuple_target(instr, i, leaf)?;
                    // Out of a partially manual body: the manual split (the annotation)
                    // major, the body's split along the free axes minor.
                    if let Some((PValue::Array { tiling, .. }, g)) =
                        self.region_values.get(&local).cloned()
                    {
                        t = g.global_tiling(&t, &tiling).ok_or_else(|| {
                            err(
                                instr,
                                format!(
                                    "result {i}: the body's split {} does not combine with {}",
                                    tiling.to_sharding(),
                                    t.to_sharding()
                                ),
                            )
                        })?;
                        // Partial values out of the body keep the annotation's groups.
                        if let Some(u) = self
                            .tuple_target(instr, i, leaf)
                            .ok()
                            .filter(Tiling::is_unreduced)
                        {
                            t.unreduced = u.unreduced;
                        }
                    }
                    let want_shape = t.shard_dims(leaf.dims());
                    if self.new.instrs[local].shape.dims() != want_shape {
                        return Err(err(
                            instr,
                            format!(
                                "result {i}: the region's shard {} does not fit {} of {}",
                                self.new.instrs[local].shape,
                                t.to_sharding(),
                                leaf
                            ),
                        ));
                    }
                    outs.push(PValue::Array {
                        id: local,
                        tiling: t,
                    });
                }
                if instr.shape.is_tuple() {
                    Ok((
                        PValue::Tuple(outs),
                        "shard_map exit: the shards form the global value",
                    ))
                } else {
                    Ok((
                        outs.pop().unwrap(),
                        "shard_map exit: the shards form the global value",
                    ))
                }
            }
            _ => self.fallback(instr),
        }
    }
}
