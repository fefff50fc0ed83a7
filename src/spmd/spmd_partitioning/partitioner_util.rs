//! Emission helpers every handler builds with: fresh names, instructions and clones,
//! constants, the partition id and per-partition tables, collectives over partition groups
//! (XLA: `spmd_partitioner_util.cc`).

use super::*;

impl Partitioner<'_> {
    pub(super) fn fresh_name(&mut self, base: &str) -> String {
        if self.names.insert(base.to_string()) {
            return base.to_string();
        }
        let mut k = 1;
        loop {
            let cand = format!("{base}.{k}");
            if self.names.insert(cand.clone()) {
                return cand;
            }
            k += 1;
        }
    }

    pub(crate) fn emit(&mut self, shape: Shape, op: Op, operands: Vec<InstrId>) -> InstrId {
        let name = self.fresh_name(op.opcode().name());
        self.new.push(Instruction::new(name, shape, op, operands))
    }

    /// A clone of `instr` (keeping its name, metadata and attributes) with new operands
    /// and shape.
    pub(super) fn emit_clone(
        &mut self,
        instr: &Instruction,
        shape: Shape,
        operands: Vec<InstrId>,
    ) -> InstrId {
        let mut i = instr.clone();
        i.shape = shape;
        i.operands = operands;
        i.control_predecessors.clear();
        i.sharding = None;
        self.new.push(i)
    }

    pub(super) fn array_shape(&self, id: InstrId) -> ArrayShape {
        self.new.instrs[id]
            .shape
            .as_array()
            .cloned()
            .expect("an array value")
    }

    pub(super) fn s32(&mut self, v: i64) -> InstrId {
        let lit = Literal::Array(ArrayLiteral::scalar(v as i32));
        self.emit(
            Shape::scalar(PrimitiveType::S32),
            Op::Constant { literal: lit },
            vec![],
        )
    }

    pub(super) fn partition_id(&mut self) -> InstrId {
        if let Some(p) = self.pid {
            return p;
        }
        let p = self.emit(
            Shape::scalar(PrimitiveType::U32),
            Op::Plain(Opcode::PartitionId),
            vec![],
        );
        self.pid = Some(p);
        p
    }

    /// Replica groups over this computation's partitions as the program's (in a partially
    /// manual body: each local group in every manual group).
    pub(super) fn global_groups(&self, groups: &[Vec<i64>]) -> Vec<Vec<i64>> {
        match &self.groups {
            Some(g) => g.global_groups(groups),
            None => groups.to_vec(),
        }
    }

    /// A scalar s32 that is `values[partition]` on each partition: a constant when all are
    /// equal, else a table indexed by `partition-id` (XLA's `MakePartitionOffsets`).
    pub(super) fn per_partition(&mut self, values: &[i64]) -> InstrId {
        if values.iter().all(|&v| v == values[0]) {
            return self.s32(values[0]);
        }
        // In a partially manual body, `values` are per local partition.
        let values = match &self.groups {
            Some(g) => g.global_values(values),
            None => values.to_vec(),
        };
        let table: Vec<i32> = values.iter().map(|&v| v as i32).collect();
        let n = table.len() as i64;
        let lit = Literal::Array(ArrayLiteral::from_vec(&[n], table));
        let c = self.emit(
            Shape::array(PrimitiveType::S32, &[n]),
            Op::Constant { literal: lit },
            vec![],
        );
        let pid = self.partition_id();
        let ds = self.emit(
            Shape::array(PrimitiveType::S32, &[1]),
            Op::DynamicSlice { sizes: vec![1] },
            vec![c, pid],
        );
        self.emit(
            Shape::scalar(PrimitiveType::S32),
            Op::Plain(Opcode::Reshape),
            vec![ds],
        )
    }

    pub(super) fn zero(&mut self, ty: PrimitiveType) -> InstrId {
        let lit = Literal::Array(ArrayLiteral::zeros(ArrayShape::new(ty, &[])));
        self.emit(Shape::scalar(ty), Op::Constant { literal: lit }, vec![])
    }

    pub(super) fn collective(
        &mut self,
        opcode: Opcode,
        shape: Shape,
        operand: InstrId,
        attrs: Vec<(&str, String)>,
        to_apply: Option<ComputationId>,
    ) -> InstrId {
        self.channel += 1;
        let called = to_apply
            .map(|c| {
                vec![CalledComputations {
                    attribute: "to_apply".into(),
                    computations: vec![c],
                    braced: false,
                }]
            })
            .unwrap_or_default();
        let id = self.emit(shape, Op::Unmodeled { opcode, called }, vec![operand]);
        let mut raw = vec![RawAttribute {
            name: "channel_id".into(),
            value: self.channel.to_string(),
        }];
        raw.extend(attrs.into_iter().map(|(n, v)| RawAttribute {
            name: n.into(),
            value: v,
        }));
        // XLA prints to_apply after the other attributes; the printer puts called
        // computations first, which XLA's parser also accepts.
        self.new.instrs[id].raw_attributes = raw;
        id
    }

    pub(crate) fn all_reduce(
        &mut self,
        x: InstrId,
        groups: &[Vec<i64>],
        reducer: ComputationId,
        why: &str,
    ) -> InstrId {
        let shape = self.new.instrs[x].shape.clone();
        let groups = &self.global_groups(groups);
        let id = self.collective(
            Opcode::AllReduce,
            shape.clone(),
            x,
            vec![
                ("replica_groups", groups_text(groups)),
                ("use_global_device_ids", "true".into()),
            ],
            Some(reducer),
        );
        self.actions.push(format!(
            "all-reduce {} replica_groups={} ({why})",
            shape,
            groups_text(groups)
        ));
        id
    }

    pub(super) fn adder(&mut self, ty: PrimitiveType) -> ComputationId {
        if let Some(&c) = self.adders.get(&ty) {
            return c;
        }
        let mut b = crate::ir::ComputationBuilder::new(format!("add.{}.spmd", ty));
        let x = b.parameter(0, Shape::scalar(ty));
        let y = b.parameter(1, Shape::scalar(ty));
        let opcode = if ty == PrimitiveType::Pred {
            Opcode::Or
        } else {
            Opcode::Add
        };
        let r = b.binary(opcode, x, y);
        let c = self.module.add_computation(b.build(r));
        self.adders.insert(ty, c);
        c
    }

    /// Pads the high end of each dimension of `x` up to `to` (no-op where equal).
    pub(super) fn pad_to(&mut self, x: InstrId, to: &[i64]) -> InstrId {
        let a = self.array_shape(x);
        if a.dims == to {
            return x;
        }
        let zero = self.zero(a.element_type);
        let padding = a
            .dims
            .iter()
            .zip(to)
            .map(|(&d, &t)| PaddingDimension {
                low: 0,
                high: t - d,
                interior: 0,
            })
            .collect();
        self.emit(
            Shape::array(a.element_type, to),
            Op::Pad { padding },
            vec![x, zero],
        )
    }

    pub(super) fn slice_prefix(&mut self, x: InstrId, to: &[i64]) -> InstrId {
        let a = self.array_shape(x);
        if a.dims == to {
            return x;
        }
        let slice = to
            .iter()
            .map(|&t| SliceDimension {
                start: 0,
                limit: t,
                stride: 1,
            })
            .collect();
        self.emit(
            Shape::array(a.element_type, to),
            Op::Slice { slice },
            vec![x],
        )
    }
}
