//! Emitting reshards: the steps of the reshard table (`reshard.rs`) as collectives, slices and masks on one value (XLA: `PartitionedHlo::Reshard`).

use super::*;

impl Partitioner<'_> {
    /// `x` (an array of global `dims` held in `from`) held in `to` instead.
    /// The last step of most rules: `id`, computed split as `from`, resharded to `instr`'s
    /// own sharding, returned with the rule that made it.
    pub(super) fn reshard_to_target(
        &mut self,
        instr: &Instruction,
        id: InstrId,
        dims: &[i64],
        from: &Tiling,
        why: &str,
        rule: &'static str,
    ) -> Result<(PValue, &'static str), PassError> {
        let target = self.target(instr)?;
        let id = self.reshard(id, dims, from, &target, why);
        Ok((PValue::Array { id, tiling: target }, rule))
    }

    pub(crate) fn reshard(
        &mut self,
        x: InstrId,
        dims: &[i64],
        from: &Tiling,
        to: &Tiling,
        why: &str,
    ) -> InstrId {
        let ty = self.array_shape(x).element_type;
        let steps = reshard::plan(dims, ty.byte_size().max(1) as i64, from, to);
        let mut cur = x;
        let mut cur_t = from.clone();
        for step in steps {
            cur = self.emit_step(cur, dims, &cur_t, &step, why);
            cur_t = step.to().clone();
        }
        cur
    }

    pub(super) fn emit_step(
        &mut self,
        x: InstrId,
        dims: &[i64],
        from: &Tiling,
        step: &Step,
        why: &str,
    ) -> InstrId {
        let ty = self.array_shape(x).element_type;
        match step {
            Step::LocalSlice { to } => {
                let size = to.shard_dims(dims);
                let local = self.array_shape(x).dims;
                // Offsets within what each partition holds; pad where the slice runs past.
                let mut need = local.clone();
                let mut offsets = Vec::new();
                for d in 0..dims.len() {
                    let offs: Vec<i64> = (0..self.n)
                        .map(|p| {
                            let fs = if from.counts[d] == 1 {
                                0
                            } else {
                                from.start(dims, p, d)
                            };
                            to.start(dims, p, d) - fs
                        })
                        .collect();
                    let max_end = offs.iter().max().copied().unwrap_or(0) + size[d];
                    need[d] = need[d].max(max_end);
                    offsets.push(offs);
                }
                if offsets.iter().all(|o| o.iter().all(|&v| v == 0)) && size == local {
                    return x;
                }
                let padded = self.pad_to(x, &need);
                let starts: Vec<InstrId> = offsets.iter().map(|o| self.per_partition(o)).collect();
                let mut operands = vec![padded];
                operands.extend(starts);
                self.actions.push(format!(
                    "dynamic-slice to {} {} ({why}: {} -> {})",
                    ty,
                    fmt_dims(&size),
                    from.to_sharding(),
                    to.to_sharding()
                ));
                self.emit(
                    Shape::array(ty, &size),
                    Op::DynamicSlice {
                        sizes: size.clone(),
                    },
                    operands,
                )
            }
            Step::AllGather { dim, groups, to } => {
                let groups = &self.global_groups(groups);
                let mut shape = self.array_shape(x).dims;
                let g = groups[0].len() as i64;
                shape[*dim] *= g;
                let id = self.collective(
                    Opcode::AllGather,
                    Shape::array(ty, &shape),
                    x,
                    vec![
                        ("replica_groups", groups_text(groups)),
                        ("dimensions", format!("{{{dim}}}")),
                        ("use_global_device_ids", "true".into()),
                    ],
                    None,
                );
                self.actions.push(format!(
                    "all-gather {ty}{} dimensions={{{dim}}} replica_groups={} ({why}: {} -> {})",
                    fmt_dims(&shape),
                    groups_text(groups),
                    from.to_sharding(),
                    to.to_sharding()
                ));
                let want = to.shard_dims(dims);
                self.slice_prefix(id, &want)
            }
            Step::AllToAll {
                from_dim,
                to_dim,
                groups,
                to,
            } => {
                let groups = &self.global_groups(groups);
                let (a, b) = (*from_dim, *to_dim);
                let s = self.array_shape(x).dims;
                let g = groups[0].len() as i64;
                // Split b into [g, s_b/g] (chunk major).
                let mut split = s.clone();
                split[b] = s[b] / g;
                split.insert(b, g);
                let r1 = self.emit(
                    Shape::array(ty, &split),
                    Op::Plain(Opcode::Reshape),
                    vec![x],
                );
                let a2a = self.collective(
                    Opcode::AllToAll,
                    Shape::array(ty, &split),
                    r1,
                    vec![
                        ("replica_groups", groups_text(groups)),
                        ("dimensions", format!("{{{b}}}")),
                    ],
                    None,
                );
                // Move the chunk dimension right before a, then merge them.
                let a_in_split = if a < b { a } else { a + 1 };
                let mut perm: Vec<usize> = (0..split.len()).filter(|&d| d != b).collect();
                let at = perm.iter().position(|&d| d == a_in_split).unwrap();
                perm.insert(at, b);
                let tdims: Vec<i64> = perm.iter().map(|&d| split[d]).collect();
                let tr = self.emit(
                    Shape::array(ty, &tdims),
                    Op::Transpose { dimensions: perm },
                    vec![a2a],
                );
                let want = to.shard_dims(dims);
                self.actions.push(format!(
                    "all-to-all {ty}{} dimensions={{{b}}} replica_groups={} ({why}: {} -> {})",
                    fmt_dims(&split),
                    groups_text(groups),
                    from.to_sharding(),
                    to.to_sharding()
                ));
                self.emit(
                    Shape::array(ty, &want),
                    Op::Plain(Opcode::Reshape),
                    vec![tr],
                )
            }
            Step::AllReduce { groups, to } => {
                let add = self.adder(ty);
                let why = format!("{why}: {} -> {}", from.to_sharding(), to.to_sharding());
                self.all_reduce(x, groups, add, &why)
            }
            Step::KeepOnFirst { to } => {
                let a = self.array_shape(x);
                let coord = self.per_partition(&to.unreduced);
                let zero_s32 = self.s32(0);
                let first = self.emit(
                    Shape::scalar(PrimitiveType::Pred),
                    Op::Compare {
                        direction: ComparisonDirection::Eq,
                        comparison_type: None,
                    },
                    vec![coord, zero_s32],
                );
                let first_b = self.emit(
                    Shape::array(PrimitiveType::Pred, &a.dims),
                    Op::Broadcast { dimensions: vec![] },
                    vec![first],
                );
                let zero = self.zero(ty);
                let zero_b = self.emit(
                    Shape::Array(a.clone()),
                    Op::Broadcast { dimensions: vec![] },
                    vec![zero],
                );
                self.actions.push(format!(
                    "select: the first partition of each unreduced group keeps the value, the \
                     others hold zeros ({why}: {} -> {})",
                    from.to_sharding(),
                    to.to_sharding()
                ));
                self.emit(
                    Shape::Array(a),
                    Op::Plain(Opcode::Select),
                    vec![first_b, x, zero_b],
                )
            }
        }
    }

    /// `v` resharded to `instr`'s sharding (element `index` of it for a tuple), when that
    /// is a different tiling of an array; other values as they are.
    pub(super) fn reshard_to_annotation(
        &mut self,
        v: PValue,
        instr: &Instruction,
        index: Option<usize>,
    ) -> Result<PValue, PassError> {
        let PValue::Array { id, tiling } = &v else {
            return Ok(v);
        };
        let shape = match index {
            Some(i) => match &instr.shape {
                Shape::Tuple(elems) => elems[i].clone(),
                s => s.clone(),
            },
            None => instr.shape.clone(),
        };
        if !shape.is_array() || instr.sharding.is_none() {
            return Ok(v);
        }
        let want = match index {
            Some(i) => self.tuple_target(instr, i, &shape)?,
            None => self.target(instr)?,
        };
        if want.same_as(tiling) {
            return Ok(v);
        }
        let id = self.reshard(
            *id,
            shape.dims(),
            tiling,
            &want,
            "resharded to the annotation",
        );
        Ok(PValue::Array { id, tiling: want })
    }
}
