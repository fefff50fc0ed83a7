//! `spmd-partitioning`: rewrites the entry computation, whose instructions carry the
//! shardings `sharding-propagation` gave them, into the program one partition runs.
//! XLA: `SpmdPartitioningVisitor` (spmd_partitioner.cc): each instruction becomes a
//! partitioned value (its per-partition instruction plus the tiling it is held in); an
//! operand in the wrong tiling goes through the reshard table first.
//!
//! Values inside `shard_map` (between `SPMDFullToShardShape` / `xla.sdy.GlobalToLocalShape`
//! and their inverses) are manual: already per-partition, copied as they are.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::decisions::DecisionLog;
use super::halo_exchange::{self, HaloPiece, PieceSource, WindowedInput};
use super::manual::{self, ManualGroups};
use super::reshard::{self, Step};
use super::rules::{concatenate, convolution, dot, gather_scatter, reduce, shape_ops, sort};
use super::tiling::Tiling;
use super::{SpmdOptions, is_spmd_custom_call};
use crate::ir::sharding::{HloSharding, shard_size};
use crate::ir::{
    ArrayLiteral, ArrayShape, CalledComputations, ComparisonDirection, Computation, ComputationId,
    ConvolutionDimensionNumbers, GatherDimensionNumbers, InstrId, Instruction, Literal, Module, Op,
    OpCategory, Opcode, PaddingDimension, PrimitiveType, RawAttribute, ScatterDimensionNumbers,
    Shape, SliceDimension,
};
use crate::pipeline::{Pass, PassError};

/// The `spmd-partitioning` pass.
pub struct SpmdPartitioning {
    options: SpmdOptions,
    log: Rc<RefCell<DecisionLog>>,
}

impl SpmdPartitioning {
    /// The pass for `options`' partitions, recording into `log`.
    pub fn new(options: SpmdOptions, log: Rc<RefCell<DecisionLog>>) -> SpmdPartitioning {
        SpmdPartitioning { options, log }
    }
}

impl Pass for SpmdPartitioning {
    fn name(&self) -> &'static str {
        "spmd-partitioning"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut log = self.log.borrow_mut();
        log.num_partitions = self.options.num_partitions;
        let entry = module.entry;
        let meshes = manual::module_meshes(module).map_err(|e| e.in_pass("spmd-partitioning"))?;
        let regions = manual::regions(module, entry, &meshes, self.options.num_partitions)
            .map_err(|e| e.in_pass("spmd-partitioning"))?
            .into_iter()
            .map(|r| (r.call, r))
            .collect();
        let old = module.computations[entry].clone();
        let mut p = Partitioner {
            names: old.iter().map(|(_, i)| i.name.clone()).collect(),
            old,
            new: Computation::new(String::new()),
            module,
            n: self.options.num_partitions,
            values: HashMap::new(),
            channel: 0,
            pid: None,
            adders: HashMap::new(),
            log: &mut log,
            actions: Vec::new(),
            groups: None,
            regions,
            region_values: HashMap::new(),
            current: InstrId::from_u32(0),
            unreduced_target: None,
            users: Default::default(),
        };
        p.new.name = format!("{}_spmd", p.old.name);
        p.new.execution_thread = p.old.execution_thread.clone();
        p.run()?;
        let Partitioner { new, module, .. } = p;
        module.computations[entry] = new;
        // The entry's per-partition signature.
        let comp = &module.computations[entry];
        let params = comp.parameter_shapes();
        let result = comp.root_instr().shape.clone();
        if let Some(layout) = &mut module.config.entry_computation_layout {
            layout.parameters = params;
            layout.result = result;
        }
        if module.config.num_partitions.is_none() || self.options.num_partitions > 1 {
            module.config.num_partitions = Some(self.options.num_partitions as i64);
        }
        // The entry and what it calls as a whole (loop bodies, branches) are rewritten; a
        // reducer's or comparator's scalars are not partitioned, and the sharding
        // annotations jax writes inside them (Explicit mesh axes) are identities there.
        crate::pipeline::identity_custom_calls::forward_operands(
            module,
            crate::ir::sharding::is_sharding_only_custom_call,
            "a sharding annotation left after partitioning",
        )?;
        Ok(true)
    }
}

/// A partitioned value: what stands for one original instruction in the new program.
#[derive(Clone, Debug)]
pub(crate) enum PValue {
    /// An array held in `tiling` (the instruction has the per-partition shape).
    Array {
        /// The per-partition instruction.
        id: InstrId,
        /// How the global array is spread.
        tiling: Tiling,
    },
    /// A tuple of partitioned values.
    Tuple(Vec<PValue>),
    /// A per-partition value inside `shard_map`: any shape, copied as it is.
    Manual(InstrId),
    /// A token, or a tuple computed whole on every partition.
    Whole(InstrId),
}

impl PValue {
    /// True if some array of the value holds partial values (an unreduced tiling).
    fn is_unreduced(&self) -> bool {
        match self {
            PValue::Array { tiling, .. } => tiling.is_unreduced(),
            PValue::Tuple(vs) => vs.iter().any(PValue::is_unreduced),
            PValue::Manual(_) | PValue::Whole(_) => false,
        }
    }
}

pub(crate) struct Partitioner<'a> {
    module: &'a mut Module,
    old: Computation,
    new: Computation,
    n: usize,
    values: HashMap<InstrId, PValue>,
    names: HashSet<String>,
    channel: i64,
    pid: Option<InstrId>,
    adders: HashMap<PrimitiveType, ComputationId>,
    log: &'a mut DecisionLog,
    actions: Vec<String>,
    /// Inside a partially manual body: the manual groups (`n` is then the partitions of
    /// one group; collectives and partition tables are made for every group).
    groups: Option<ManualGroups>,
    /// The partially manual shard_maps of this computation, by their `call`.
    regions: HashMap<InstrId, manual::Region>,
    /// Values the partitioned bodies return (by the new instruction that holds them):
    /// their tilings over the local partitions, and the groups.
    region_values: HashMap<InstrId, (PValue, ManualGroups)>,
    /// The instruction being partitioned.
    current: InstrId,
    /// The unreduced tiling a dot or reduce being partitioned is annotated with (its rule
    /// sees the annotation's reduced split): split contracting or reduced dimensions then
    /// leave partial sums as they are.
    unreduced_target: Option<Tiling>,
    /// Each original instruction's users.
    users: cranelift_entity::SecondaryMap<InstrId, Vec<InstrId>>,
}

/// Whether a split iota can count in pieces: an integer or real element type, and
/// offsets (shard starts, at most the dimension's size) that fit `s32`, the table's type.
fn iota_computes_in_pieces(instr: &Instruction) -> bool {
    matches!(instr.shape.element_type(), Some(t) if t.is_integral() || t.is_float())
        && instr.shape.dims().iter().all(|&d| d <= i64::from(i32::MAX))
}

fn err(instr: &Instruction, msg: impl std::fmt::Display) -> PassError {
    PassError::new(format!("spmd-partitioning: `{}`: {msg}", instr.name))
}

fn groups_text(groups: &[Vec<i64>]) -> String {
    let inner: Vec<String> = groups
        .iter()
        .map(|g| {
            format!(
                "{{{}}}",
                g.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
            )
        })
        .collect();
    format!("{{{}}}", inner.join(","))
}

impl<'a> Partitioner<'a> {
    fn run(&mut self) -> Result<(), PassError> {
        self.users = self.old.users();
        let order = self.old.order.clone();
        for id in order {
            let instr = self.old.instrs[id].clone();
            self.current = id;
            self.actions.clear();
            let (value, rule) = self.partition_with_unreduced(&instr)?;
            let shard_shape = match &value {
                PValue::Array { id, .. } | PValue::Manual(id) | PValue::Whole(id) => {
                    self.new.instrs[*id].shape.to_string()
                }
                PValue::Tuple(v) => format!("tuple of {}", v.len()),
            };
            let d = self.log.entry(&instr.name, instr.opcode().name());
            d.rule = rule.to_string();
            d.shard_shape = shard_shape;
            d.actions.append(&mut self.actions);
            self.values.insert(id, value);
        }
        let root = self.values[&self.old.root].clone();
        // A called computation's result in the sharding its caller expects (a branch of a
        // conditional); the entry's is already in its own.
        let root_instr = self.old.instrs[self.old.root].clone();
        let root = self.reshard_to_annotation(root, &root_instr, None)?;
        let root_id = self.materialize(&root);
        // The result's sharding, as XLA records it on the partitioned root.
        // (A partially manual body's shardings are over its group's partitions: none kept.)
        let root_sharding = self.sharding_of(&root).filter(|_| self.groups.is_none());
        self.new.instrs[root_id].sharding = root_sharding;
        self.new.root = root_id;
        Ok(())
    }

    /// The sharding a partitioned value is held in.
    fn sharding_of(&self, v: &PValue) -> Option<HloSharding> {
        match v {
            PValue::Array { tiling, .. } => Some(tiling.to_sharding()),
            PValue::Tuple(vs) => vs
                .iter()
                .map(|v| self.sharding_of(v))
                .collect::<Option<Vec<_>>>()
                .map(HloSharding::Tuple),
            PValue::Manual(_) => Some(HloSharding::Manual),
            PValue::Whole(_) => Some(HloSharding::Replicated),
        }
    }

    // ---------------------------------------------------------------------------------
    // Emission helpers
    // ---------------------------------------------------------------------------------

    fn fresh_name(&mut self, base: &str) -> String {
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
    fn emit_clone(&mut self, instr: &Instruction, shape: Shape, operands: Vec<InstrId>) -> InstrId {
        let mut i = instr.clone();
        i.shape = shape;
        i.operands = operands;
        i.control_predecessors.clear();
        i.sharding = None;
        self.new.push(i)
    }

    fn array_shape(&self, id: InstrId) -> ArrayShape {
        self.new.instrs[id]
            .shape
            .as_array()
            .cloned()
            .expect("an array value")
    }

    fn s32(&mut self, v: i64) -> InstrId {
        let lit = Literal::Array(ArrayLiteral::scalar(v as i32));
        self.emit(
            Shape::scalar(PrimitiveType::S32),
            Op::Constant { literal: lit },
            vec![],
        )
    }

    fn partition_id(&mut self) -> InstrId {
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
    fn global_groups(&self, groups: &[Vec<i64>]) -> Vec<Vec<i64>> {
        match &self.groups {
            Some(g) => g.global_groups(groups),
            None => groups.to_vec(),
        }
    }

    /// A scalar s32 that is `values[partition]` on each partition: a constant when all are
    /// equal, else a table indexed by `partition-id` (XLA's `MakePartitionOffsets`).
    fn per_partition(&mut self, values: &[i64]) -> InstrId {
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

    fn zero(&mut self, ty: PrimitiveType) -> InstrId {
        let lit = Literal::Array(ArrayLiteral::zeros(ArrayShape::new(ty, &[])));
        self.emit(Shape::scalar(ty), Op::Constant { literal: lit }, vec![])
    }

    fn collective(
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

    fn adder(&mut self, ty: PrimitiveType) -> ComputationId {
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
    fn pad_to(&mut self, x: InstrId, to: &[i64]) -> InstrId {
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

    fn slice_prefix(&mut self, x: InstrId, to: &[i64]) -> InstrId {
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

    // ---------------------------------------------------------------------------------
    // Reshard
    // ---------------------------------------------------------------------------------

    /// `x` (an array of global `dims` held in `from`) held in `to` instead.
    /// The last step of most rules: `id`, computed split as `from`, resharded to `instr`'s
    /// own sharding, returned with the rule that made it.
    fn reshard_to_target(
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

    fn emit_step(
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

    /// The partitioned operand `i` of `instr` as an array in `to` (global dims `dims`).
    fn operand_in(
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

    fn operand_tiling(&self, instr: &Instruction, i: usize) -> Option<(InstrId, Tiling)> {
        match &self.values[&instr.operands[i]] {
            PValue::Array { id, tiling } => Some((*id, tiling.clone())),
            _ => None,
        }
    }

    /// Materializes a value as one instruction (tuples become `tuple` instructions).
    fn materialize(&mut self, v: &PValue) -> InstrId {
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
    fn whole(&mut self, v: &PValue, dims: &Shape, why: &str) -> InstrId {
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
    fn partition_iota(
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
    fn mask_padding(
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

    // ---------------------------------------------------------------------------------
    // The rules
    // ---------------------------------------------------------------------------------

    /// The tiling propagation chose for an array instruction.
    fn target(&self, instr: &Instruction) -> Result<Tiling, PassError> {
        let rank = instr.shape.rank();
        match &instr.sharding {
            None => Ok(Tiling::replicated(rank, self.n)),
            Some(s) => {
                let s = match s {
                    HloSharding::Tuple(v) if v.len() == 1 => &v[0],
                    s => s,
                };
                s.validate(rank, self.n as i64).map_err(|e| err(instr, e))?;
                Ok(Tiling::of(s, rank, self.n))
            }
        }
    }

    fn tuple_target(
        &self,
        instr: &Instruction,
        index: usize,
        shape: &Shape,
    ) -> Result<Tiling, PassError> {
        let rank = shape.rank();
        match instr.sharding.as_ref().and_then(|s| s.element(index)) {
            None => Ok(Tiling::replicated(rank, self.n)),
            Some(s) => {
                s.validate(rank, self.n as i64).map_err(|e| err(instr, e))?;
                Ok(Tiling::of(s, rank, self.n))
            }
        }
    }

    /// `v` resharded to `instr`'s sharding (element `index` of it for a tuple), when that
    /// is a different tiling of an array; other values as they are.
    fn reshard_to_annotation(
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

    /// Partitions one instruction whose operands or annotation may be unreduced. Ops that
    /// are linear in the value they pass on (parameters, tuples, sharding constraints,
    /// shard_map boundaries, add, subtract, negate, copy) take partial values as they are;
    /// every other op sees its unreduced operands summed first (an `all-reduce`) and
    /// computes a complete result, then made unreduced if its annotation says so. A dot or
    /// a sum whose split contracting or reduced dimensions leave partial sums keeps them
    /// when its annotation is unreduced.
    fn partition_with_unreduced(
        &mut self,
        instr: &Instruction,
    ) -> Result<(PValue, &'static str), PassError> {
        let with_users_sharding;
        let instr = match self.unreduced_constraint_of_users(instr) {
            Some(s) => {
                let mut i = instr.clone();
                i.sharding = Some(s);
                with_users_sharding = i;
                &with_users_sharding
            }
            None => instr,
        };
        let unreduced_operand = instr
            .operands
            .iter()
            .any(|o| self.values.get(o).is_some_and(PValue::is_unreduced));
        let unreduced_result = instr
            .sharding
            .as_ref()
            .is_some_and(HloSharding::has_unreduced);
        if (!unreduced_operand && !unreduced_result) || self.keeps_partial_values(instr) {
            return self.partition(instr);
        }
        let mut saved = Vec::new();
        for &o in &instr.operands {
            let v = self.values[&o].clone();
            if v.is_unreduced() {
                let shape = self.old.instrs[o].shape.clone();
                let r = self.summed(&v, &shape);
                saved.push((o, v));
                self.values.insert(o, r);
            }
        }
        let mut reduced = instr.clone();
        reduced.sharding = instr.sharding.as_ref().map(HloSharding::without_unreduced);
        if unreduced_result && matches!(instr.op, Op::Dot { .. } | Op::Reduce { .. }) {
            self.unreduced_target = Some(self.target(instr)?);
        }
        let result = self.partition(&reduced);
        self.unreduced_target = None;
        // Other users may still take the partial values.
        for (o, v) in saved.into_iter().rev() {
            self.values.insert(o, v);
        }
        let (v, rule) = result?;
        if unreduced_result {
            let v = self.reshard_to_annotation(v, instr, None)?;
            return Ok((v, rule));
        }
        Ok((v, rule))
    }

    /// The unreduced sharding every user of `instr` constrains it to, for an op that can
    /// produce partial values (jax writes `einsum(..., out_sharding=P(unreduced=...))` as
    /// the dot followed by an `sdy.sharding_constraint`): the op computes straight into it.
    fn unreduced_constraint_of_users(&self, instr: &Instruction) -> Option<HloSharding> {
        let linear = matches!(
            instr.op,
            Op::Dot { .. }
                | Op::Reduce { .. }
                | Op::Plain(Opcode::Add | Opcode::Subtract | Opcode::Negate | Opcode::Copy)
        );
        if !linear
            || !instr.shape.is_array()
            || instr
                .sharding
                .as_ref()
                .is_some_and(HloSharding::has_unreduced)
        {
            return None;
        }
        let users = &self.users[self.current];
        let mut found: Option<HloSharding> = None;
        for &u in users {
            let user = &self.old.instrs[u];
            let s = match (&user.op, &user.sharding) {
                (Op::CustomCall(cc), Some(s)) if cc.target == "Sharding" && s.has_unreduced() => s,
                _ => return None,
            };
            match &found {
                Some(f) if f != s => return None,
                _ => found = Some(s.clone()),
            }
        }
        found
    }

    /// True for the ops that pass partial values on as they are (see
    /// [`partition_with_unreduced`](Self::partition_with_unreduced)).
    fn keeps_partial_values(&self, instr: &Instruction) -> bool {
        match &instr.op {
            Op::Parameter { .. } | Op::GetTupleElement { .. } | Op::Plain(Opcode::Tuple) => true,
            Op::CustomCall(cc) => matches!(
                cc.target.as_str(),
                "Sharding"
                    | "xla.sdy.FuncResultSharding"
                    | "SPMDFullToShardShape"
                    | "xla.sdy.GlobalToLocalShape"
                    | "SPMDShardToFullShape"
                    | "xla.sdy.LocalToGlobalShape"
            ),
            Op::Plain(Opcode::Add | Opcode::Subtract | Opcode::Negate | Opcode::Copy) => {
                instr.shape.is_array()
                    && instr
                        .operands
                        .iter()
                        .all(|o| self.old.instrs[*o].shape.dims() == instr.shape.dims())
            }
            _ => false,
        }
    }

    /// `v` with its partial values summed (an `all-reduce` over each unreduced group).
    fn summed(&mut self, v: &PValue, shape: &Shape) -> PValue {
        match v {
            PValue::Array { id, tiling } if tiling.is_unreduced() => {
                let to = tiling.reduced();
                let id = self.reshard(
                    *id,
                    shape.dims(),
                    tiling,
                    &to,
                    "an op without an unreduced rule: partial values summed",
                );
                PValue::Array { id, tiling: to }
            }
            PValue::Tuple(vs) => {
                let elems = shape
                    .tuple_elements()
                    .map(<[Shape]>::to_vec)
                    .unwrap_or_default();
                PValue::Tuple(
                    vs.iter()
                        .zip(elems.iter())
                        .map(|(v, s)| self.summed(v, s))
                        .collect(),
                )
            }
            v => v.clone(),
        }
    }

    /// True if `c` adds its two parameters (a reduce whose partial results are sums).
    fn is_adder(&self, c: ComputationId) -> bool {
        let comp = &self.module.computations[c];
        let root = &comp.instrs[comp.root];
        root.opcode() == Opcode::Add
            && root.operands.len() == 2
            && root
                .operands
                .iter()
                .all(|o| matches!(comp.instrs[*o].op, Op::Parameter { .. }))
    }

    /// Partitions one instruction; returns its value and the rule's name.
    fn partition(&mut self, instr: &Instruction) -> Result<(PValue, &'static str), PassError> {
        let opcode = instr.opcode();
        // Manual regions: anything with a manual operand is per-partition already.
        let any_manual = instr
            .operands
            .iter()
            .any(|o| matches!(self.values.get(o), Some(PValue::Manual(_))));
        if let Op::CustomCall(cc) = &instr.op
            && is_spmd_custom_call(&cc.target)
        {
            return self.custom_call(instr, &cc.target);
        }
        if let Some(r) = self.regions.get(&self.current).cloned() {
            return self.region(instr, &r);
        }
        if any_manual {
            let ops: Vec<InstrId> = instr
                .operands
                .iter()
                .map(|o| {
                    let v = self.values[o].clone();
                    self.materialize(&v)
                })
                .collect();
            // An element of a partitioned body's results has the body's shape.
            let shape = match (&instr.op, ops.first()) {
                (Op::GetTupleElement { index }, Some(&t)) => self.new.instrs[t]
                    .shape
                    .tuple_elements()
                    .and_then(|e| e.get(*index))
                    .cloned()
                    .unwrap_or_else(|| instr.shape.clone()),
                _ => instr.shape.clone(),
            };
            let id = self.emit_clone(instr, shape, ops.clone());
            if let (Op::GetTupleElement { index }, Some(t)) = (&instr.op, ops.first())
                && let Some((PValue::Tuple(vs), g)) = self.region_values.get(t).cloned()
                && let Some(v) = vs.get(*index)
            {
                self.region_values.insert(id, (v.clone(), g));
            }
            if opcode == Opcode::Call {
                // The body is per-partition code; the CPU pipeline may inline it now.
                self.new.instrs[id]
                    .raw_attributes
                    .retain(|a| a.name != "frontend_attributes");
            }
            return Ok((
                PValue::Manual(id),
                "manual: copied as it is (shard_map body)",
            ));
        }
        match (&instr.op, opcode.category()) {
            (Op::Parameter { .. }, _) => {
                if let (Shape::Tuple(elems), Some(HloSharding::Tuple(_))) =
                    (&instr.shape, &instr.sharding)
                    && elems.iter().all(Shape::is_array)
                {
                    return self.tuple_parameter(instr, elems);
                }
                let target = self.target(instr)?;
                let dims = target.shard_dims(instr.shape.dims());
                let shape = match &instr.shape {
                    Shape::Array(a) => {
                        let mut a = a.clone();
                        a.dims = dims;
                        Shape::Array(a)
                    }
                    s => {
                        if instr.sharding.as_ref().is_some_and(|s| !s.is_replicated()) {
                            return Err(err(
                                instr,
                                "tuple parameters with shardings are not supported",
                            )
                            .unsupported());
                        }
                        s.clone()
                    }
                };
                let id = self.emit_clone(instr, shape.clone(), vec![]);
                self.new.instrs[id].sharding = instr.sharding.clone();
                if shape.is_array() {
                    Ok((PValue::Array { id, tiling: target }, "parameter: its shard"))
                } else {
                    Ok((PValue::Whole(id), "parameter: whole"))
                }
            }
            (Op::Iota { dimension }, _)
                if instr.shape.is_array() && iota_computes_in_pieces(instr) =>
            {
                self.partition_iota(instr, *dimension)
            }
            (Op::Constant { .. } | Op::Iota { .. }, _) if instr.shape.is_array() => {
                let id = self.emit_clone(instr, instr.shape.clone(), vec![]);
                let rep = Tiling::replicated(instr.shape.rank(), self.n);
                self.reshard_to_target(
                    instr,
                    id,
                    instr.shape.dims(),
                    &rep,
                    "constant sliced to its sharding",
                    "constant: whole, then sliced",
                )
            }
            (Op::GetTupleElement { index }, _) => {
                let v = self.values[&instr.operands[0]].clone();
                match v {
                    PValue::Tuple(vs) => {
                        // An annotated element (GSPMD's root `get-tuple-element` carries the
                        // result's sharding) is resharded to its annotation.
                        let v = self.reshard_to_annotation(vs[*index].clone(), instr, None)?;
                        Ok((v, "get-tuple-element: the element"))
                    }
                    PValue::Whole(t) => {
                        let id = self.emit_clone(instr, instr.shape.clone(), vec![t]);
                        if instr.shape.is_array() {
                            // A loop or conditional computed whole: its element sliced to
                            // the sharding propagation gave it.
                            let tiling = Tiling::replicated(instr.shape.rank(), self.n);
                            self.reshard_to_target(
                                instr,
                                id,
                                instr.shape.dims(),
                                &tiling,
                                "element of a whole tuple to its sharding",
                                "get-tuple-element of a whole tuple",
                            )
                        } else {
                            Ok((PValue::Whole(id), "get-tuple-element of a whole tuple"))
                        }
                    }
                    v => Err(err(instr, format!("get-tuple-element of {v:?}"))),
                }
            }
            (Op::Plain(Opcode::Tuple), _) => {
                // Each element in the tuple's sharding (a root tuple's `sharding={{...}}` is
                // the program's output sharding).
                let mut vs = Vec::with_capacity(instr.operands.len());
                for (i, o) in instr.operands.iter().enumerate() {
                    let v = self.values[o].clone();
                    vs.push(self.reshard_to_annotation(v, instr, Some(i))?);
                }
                Ok((PValue::Tuple(vs), "tuple: its elements"))
            }
            (
                _,
                OpCategory::ElementwiseUnary
                | OpCategory::ElementwiseBinary
                | OpCategory::ElementwiseTernary,
            ) if instr.shape.is_array()
                && instr
                    .operands
                    .iter()
                    .all(|o| self.old.instrs[*o].shape.dims() == instr.shape.dims()) =>
            {
                self.elementwise(instr)
            }
            (Op::Plain(Opcode::Copy), _) if instr.shape.is_array() => self.elementwise(instr),
            // A shard_map's own all-reduce or collective-permute in a partially manual body:
            // its groups run along the manual axes, so it applies shard by shard.
            (_, OpCategory::Collective)
                if self.groups.is_some()
                    && matches!(opcode, Opcode::AllReduce | Opcode::CollectivePermute)
                    && instr.operands.len() == 1
                    && instr.shape.is_array()
                    && self.old.instrs[instr.operands[0]].shape.dims() == instr.shape.dims() =>
            {
                self.elementwise(instr)
            }
            (Op::Broadcast { dimensions }, _) => {
                let target = self.target(instr)?;
                let need = shape_ops::broadcast_operand(&target, dimensions);
                let x =
                    self.operand_in(instr, 0, &need, "broadcast operand to the result's split")?;
                let shape = with_dims(&instr.shape, target.shard_dims(instr.shape.dims()));
                let id = self.emit_clone(instr, shape, vec![x]);
                Ok((
                    PValue::Array { id, tiling: target },
                    "broadcast: operand split like the result",
                ))
            }
            (Op::Transpose { dimensions }, _) => {
                let Some((x, t)) = self.operand_tiling(instr, 0) else {
                    return self.fallback(instr);
                };
                let out = shape_ops::transpose_result(&t, dimensions);
                let shape = with_dims(&instr.shape, out.shard_dims(instr.shape.dims()));
                let id = self.emit_clone(instr, shape, vec![x]);
                self.reshard_to_target(
                    instr,
                    id,
                    instr.shape.dims(),
                    &out,
                    "transpose result to its sharding",
                    "transpose: the split moves with the dimensions",
                )
            }
            (Op::Plain(Opcode::Reshape), _) if instr.shape.is_array() => self.reshape(instr),
            (
                Op::Reduce {
                    dimensions,
                    to_apply,
                },
                _,
            ) if instr.operands.len() == 2 && instr.shape.is_array() => {
                self.reduce(instr, dimensions, *to_apply)
            }
            (Op::Slice { slice }, _) if instr.shape.is_array() => self.slice(instr, slice),
            (Op::Concatenate { .. }, _) if self.rotate_pattern(instr).is_some() => {
                self.rotate(instr)
            }
            (Op::Reduce { dimensions, .. }, _) if self.variadic_reduce_partitionable(instr) => {
                self.variadic_reduce(instr, dimensions)
            }
            (Op::Concatenate { dimension }, _) if instr.shape.is_array() => {
                self.concatenate(instr, *dimension)
            }
            (Op::DynamicSlice { sizes }, _) if instr.shape.is_array() => {
                self.dynamic_slice(instr, sizes)
            }
            (Op::Plain(Opcode::DynamicUpdateSlice), _) if instr.shape.is_array() => {
                self.dynamic_update_slice(instr)
            }
            (
                Op::Conditional {
                    branch_computations,
                },
                _,
            ) if self.conditional_partitionable(instr, branch_computations) => {
                self.conditional(instr, branch_computations)
            }
            (Op::While { condition, body }, _) if self.loop_partitionable(instr) => {
                self.while_loop(instr, *condition, *body)
            }
            (
                Op::Dot {
                    dimension_numbers, ..
                },
                _,
            ) => self.dot(instr, dimension_numbers),
            (Op::Sort { dimension, .. }, _) => self.sort(instr, *dimension),
            (
                Op::Convolution {
                    dimension_numbers,
                    feature_group_count: 1,
                    batch_group_count: 1,
                    ..
                },
                _,
            ) => self.convolution(instr, dimension_numbers),
            (
                Op::Gather {
                    dimension_numbers,
                    slice_sizes,
                    indices_are_sorted,
                },
                _,
            ) => self.gather(instr, dimension_numbers, slice_sizes, *indices_are_sorted),
            (
                Op::Scatter {
                    dimension_numbers, ..
                },
                _,
            ) if instr.operands.len() == 3 && instr.shape.is_array() => {
                self.scatter(instr, dimension_numbers)
            }
            _ => self.fallback(instr),
        }
    }

    /// The `call` of a partially manual shard_map body: the body partitioned as its own
    /// program over one manual group's partitions (its values split along the free axes),
    /// then called with each partition's shards.
    fn region(
        &mut self,
        instr: &Instruction,
        r: &manual::Region,
    ) -> Result<(PValue, &'static str), PassError> {
        let ops: Vec<InstrId> = instr
            .operands
            .iter()
            .map(|o| {
                let v = self.values[o].clone();
                self.materialize(&v)
            })
            .collect();
        let old = self.module.computations[r.body].clone();
        let (body, root, channel, adders) = {
            let mut inner = Partitioner {
                names: old.iter().map(|(_, i)| i.name.clone()).collect(),
                new: Computation::new(format!("{}_spmd", old.name)),
                old,
                module: &mut *self.module,
                n: r.groups.local_partitions(),
                values: HashMap::new(),
                channel: self.channel,
                pid: None,
                adders: self.adders.clone(),
                log: &mut *self.log,
                actions: Vec::new(),
                groups: Some(r.groups.clone()),
                regions: HashMap::new(),
                region_values: HashMap::new(),
                current: InstrId::from_u32(0),
                unreduced_target: None,
                users: Default::default(),
            };
            inner.new.execution_thread = inner.old.execution_thread.clone();
            inner.run()?;
            let root = inner.values[&inner.old.root].clone();
            (inner.new, root, inner.channel, inner.adders)
        };
        self.channel = channel;
        self.adders = adders;
        let shape = body.instrs[body.root].shape.clone();
        self.module.computations[r.body] = body;
        let id = self.emit_clone(instr, shape, ops);
        // The partitioned body is per-partition code; the CPU pipeline may inline it.
        self.new.instrs[id]
            .raw_attributes
            .retain(|a| a.name != "frontend_attributes");
        self.region_values.insert(id, (root, r.groups.clone()));
        self.actions.push(format!(
            "body partitioned over {} partitions per manual group ({} groups)",
            r.groups.local_partitions(),
            r.groups.groups.len()
        ));
        Ok((
            PValue::Manual(id),
            "partially manual shard_map: the body partitioned along the free axes",
        ))
    }

    /// `dynamic-slice`: local when every split dimension is taken whole (a start index
    /// there can only be 0, on the shard as on the whole); other splits are gathered
    /// first. (`xs[i]` of a scan over a batch-split `xs`.)
    fn dynamic_slice(
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
    fn dynamic_update_slice(
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

    /// Operands `from..` (scalar indices), whole on every partition.
    fn scalar_operands(
        &mut self,
        instr: &Instruction,
        from: usize,
    ) -> Result<Vec<InstrId>, PassError> {
        (from..instr.operands.len())
            .map(|k| {
                let rank = self.old.instrs[instr.operands[k]].shape.rank();
                self.operand_in(
                    instr,
                    k,
                    &Tiling::replicated(rank, self.n),
                    "index made whole",
                )
            })
            .collect()
    }

    /// A tuple parameter whose elements are arrays with shardings (a loop body's state):
    /// the parameter of shard shapes, taken apart into its elements.
    fn tuple_parameter(
        &mut self,
        instr: &Instruction,
        elems: &[Shape],
    ) -> Result<(PValue, &'static str), PassError> {
        let tilings: Vec<Tiling> = elems
            .iter()
            .enumerate()
            .map(|(i, e)| self.tuple_target(instr, i, e))
            .collect::<Result<_, _>>()?;
        let shards: Vec<Shape> = elems
            .iter()
            .zip(&tilings)
            .map(|(e, t)| with_dims(e, t.shard_dims(e.dims())))
            .collect();
        let param = self.emit_clone(instr, Shape::Tuple(shards.clone()), vec![]);
        self.new.instrs[param].sharding = instr.sharding.clone();
        Ok((
            self.tuple_elements(param, shards, tilings),
            "parameter: each element its shard",
        ))
    }

    /// The elements of the partitioned tuple `tuple` (element shapes `shards`), each taken
    /// out with a `get-tuple-element` and carrying its tiling.
    fn tuple_elements(
        &mut self,
        tuple: InstrId,
        shards: Vec<Shape>,
        tilings: Vec<Tiling>,
    ) -> PValue {
        let vs = shards
            .into_iter()
            .zip(tilings)
            .enumerate()
            .map(|(index, (shape, tiling))| {
                let id = self.emit(shape, Op::GetTupleElement { index }, vec![tuple]);
                PValue::Array { id, tiling }
            })
            .collect();
        PValue::Tuple(vs)
    }

    /// A while loop the partitioner runs on shards: its state a tuple of arrays with a
    /// sharding, its body ending in a `tuple`, and body and condition called by it alone
    /// (they are partitioned in place). Other loops are computed whole.
    fn loop_partitionable(&self, instr: &Instruction) -> bool {
        let Op::While { condition, body } = instr.op else {
            return false;
        };
        let body_root = self.module.computations[body].root_instr();
        // The state: one array, or a tuple of arrays the body builds with a `tuple`.
        let state_ok = instr.shape.is_array()
            || (instr
                .shape
                .tuple_elements()
                .is_some_and(|e| e.iter().all(Shape::is_array))
                && matches!(body_root.op, Op::Plain(Opcode::Tuple)));
        let sharded = match &instr.sharding {
            Some(HloSharding::Tuple(v)) => !v.iter().any(HloSharding::is_manual),
            Some(s) => instr.shape.is_array() && !s.is_manual(),
            None => false,
        };
        state_ok
            && sharded
            && condition != body
            && self.groups.is_none()
            && self.callers(body) == 1
            && self.callers(condition) == 1
    }

    /// How many live instructions call `c` (the module still holds the computation being
    /// partitioned in its original form, so a call from it counts once).
    fn callers(&self, c: ComputationId) -> usize {
        self.module
            .order
            .iter()
            .flat_map(|&k| {
                self.module.computations[k]
                    .iter()
                    .map(|(_, i)| i.op.called_computations())
            })
            .filter(|called| called.contains(&c))
            .count()
    }

    /// A conditional the partitioner runs on shards: a sharded result of arrays, and
    /// branches of one parameter each (arrays) that propagation annotated, called by it
    /// alone. Others are computed whole.
    fn conditional_partitionable(&self, instr: &Instruction, branches: &[ComputationId]) -> bool {
        let arrays = |s: &Shape| {
            s.is_array()
                || s.tuple_elements()
                    .is_some_and(|e| e.iter().all(Shape::is_array))
        };
        self.groups.is_none()
            && instr.sharding.as_ref().is_some_and(|s| !s.is_manual())
            && arrays(&instr.shape)
            && instr.operands.len() == branches.len() + 1
            && branches.iter().enumerate().all(|(i, &b)| {
                let comp = &self.module.computations[b];
                let params = comp.parameters();
                params.len() == 1
                    && comp.instrs[params[0]].sharding.is_some()
                    && arrays(&comp.instrs[params[0]].shape)
                    && branches.iter().filter(|&&x| x == b).count() == 1
                    && self.callers(b) == 1
                    && self.old.instrs[instr.operands[i + 1]].shape == comp.instrs[params[0]].shape
            })
    }

    /// `conditional`: each branch's argument resharded to the sharding its parameter was
    /// given, the branches partitioned in place (each result resharded to the
    /// conditional's sharding at its root), the conditional run on shards.
    fn conditional(
        &mut self,
        instr: &Instruction,
        branches: &[ComputationId],
    ) -> Result<(PValue, &'static str), PassError> {
        let mut ops = vec![self.operand_in(
            instr,
            0,
            &Tiling::replicated(0, self.n),
            "branch index made whole",
        )?];
        for (i, &b) in branches.iter().enumerate() {
            let comp = &self.module.computations[b];
            let param = comp.instrs[comp.parameters()[0]].clone();
            let arg = self.values[&instr.operands[i + 1]].clone();
            let id = match (&param.shape, arg) {
                (Shape::Tuple(elems), PValue::Tuple(vs)) => {
                    let mut ids = Vec::with_capacity(elems.len());
                    for (k, (e, v)) in elems.iter().zip(vs).enumerate() {
                        let want = self.tuple_target(&param, k, e)?;
                        let id = match v {
                            PValue::Array { id, tiling } => self.reshard(
                                id,
                                e.dims(),
                                &tiling,
                                &want,
                                "branch argument to its parameter's sharding",
                            ),
                            other => self.materialize(&other),
                        };
                        ids.push(id);
                    }
                    let shapes = ids
                        .iter()
                        .map(|&k| self.new.instrs[k].shape.clone())
                        .collect();
                    self.emit(Shape::Tuple(shapes), Op::Plain(Opcode::Tuple), ids)
                }
                (Shape::Array(_), _) => {
                    let want = self.target(&param)?;
                    self.operand_in(
                        instr,
                        i + 1,
                        &want,
                        "branch argument to its parameter's sharding",
                    )?
                }
                (_, other) => self.materialize(&other),
            };
            ops.push(id);
        }
        for &b in branches {
            self.partition_callee(b)?;
        }
        let shape = self.module.computations[branches[0]]
            .root_instr()
            .shape
            .clone();
        let id = self.emit_clone(instr, shape.clone(), ops);
        self.actions
            .push(format!("{} branches partitioned", branches.len()));
        let rule = "conditional: the branches partitioned, the result in its sharding";
        match shape {
            Shape::Tuple(elems) => {
                let mut vs = Vec::with_capacity(elems.len());
                for (index, e) in elems.into_iter().enumerate() {
                    // (The shard has the element's rank, all the target needs.)
                    let tiling = self.tuple_target(instr, index, &e)?;
                    let g = self.emit(e, Op::GetTupleElement { index }, vec![id]);
                    vs.push(PValue::Array { id: g, tiling });
                }
                Ok((PValue::Tuple(vs), rule))
            }
            _ => Ok((
                PValue::Array {
                    id,
                    tiling: self.target(instr)?,
                },
                rule,
            )),
        }
    }

    /// `while`: the state resharded to the loop's sharding, the body and condition
    /// partitioned as programs of their own over the same partitions (the body's result
    /// resharded to the state's sharding at its root), the loop run on shards.
    fn while_loop(
        &mut self,
        instr: &Instruction,
        condition: ComputationId,
        body: ComputationId,
    ) -> Result<(PValue, &'static str), PassError> {
        if instr.shape.is_array() {
            return self.array_while_loop(instr, condition, body);
        }
        let elems = instr.shape.tuple_elements().unwrap_or_default().to_vec();
        let tilings: Vec<Tiling> = elems
            .iter()
            .enumerate()
            .map(|(i, e)| self.tuple_target(instr, i, e))
            .collect::<Result<_, _>>()?;
        let init = self.values[&instr.operands[0]].clone();
        let init_elems: Vec<PValue> = match init {
            PValue::Tuple(vs) if vs.len() == elems.len() => vs,
            other => {
                let t = self.whole(
                    &other,
                    &self.old.instrs[instr.operands[0]].shape.clone(),
                    "loop state made whole",
                );
                (0..elems.len())
                    .map(|index| {
                        let id =
                            self.emit(elems[index].clone(), Op::GetTupleElement { index }, vec![t]);
                        PValue::Array {
                            id,
                            tiling: Tiling::replicated(elems[index].rank(), self.n),
                        }
                    })
                    .collect()
            }
        };
        let mut ids = Vec::with_capacity(elems.len());
        for ((v, e), t) in init_elems.iter().zip(&elems).zip(&tilings) {
            let id = match v {
                PValue::Array { id, tiling } => self.reshard(
                    *id,
                    e.dims(),
                    &tiling.clone(),
                    t,
                    "loop state to the loop's sharding",
                ),
                other => self.materialize(other),
            };
            ids.push(id);
        }
        let shards: Vec<Shape> = ids
            .iter()
            .map(|&i| self.new.instrs[i].shape.clone())
            .collect();
        let state = self.emit(Shape::Tuple(shards.clone()), Op::Plain(Opcode::Tuple), ids);
        self.partition_callee(body)?;
        self.partition_callee(condition)?;
        let w = self.emit_clone(instr, Shape::Tuple(shards.clone()), vec![state]);
        self.actions
            .push("body and condition partitioned; the state stays split across iterations".into());
        Ok((
            self.tuple_elements(w, shards, tilings),
            "while: the body and condition partitioned, the state kept in its sharding",
        ))
    }

    /// `while` over one array: the same, the state a single shard.
    fn array_while_loop(
        &mut self,
        instr: &Instruction,
        condition: ComputationId,
        body: ComputationId,
    ) -> Result<(PValue, &'static str), PassError> {
        let tiling = self.target(instr)?;
        let state = self.operand_in(instr, 0, &tiling, "loop state to the loop's sharding")?;
        self.partition_callee(body)?;
        self.partition_callee(condition)?;
        let shape = with_dims(&instr.shape, tiling.shard_dims(instr.shape.dims()));
        let id = self.emit_clone(instr, shape, vec![state]);
        self.actions
            .push("body and condition partitioned; the state stays split across iterations".into());
        Ok((
            PValue::Array { id, tiling },
            "while: the body and condition partitioned, the state kept in its sharding",
        ))
    }

    /// Partitions a called computation (a loop's body or condition, whose instructions
    /// carry the shardings propagation gave them) in place, as a program of its own over
    /// this partitioner's partitions.
    fn partition_callee(&mut self, callee: ComputationId) -> Result<(), PassError> {
        let old = self.module.computations[callee].clone();
        let (new, channel, adders) = {
            let mut inner = Partitioner {
                names: old.iter().map(|(_, i)| i.name.clone()).collect(),
                new: Computation::new(format!("{}_spmd", old.name)),
                old,
                module: &mut *self.module,
                n: self.n,
                values: HashMap::new(),
                channel: self.channel,
                pid: None,
                adders: self.adders.clone(),
                log: &mut *self.log,
                actions: Vec::new(),
                groups: None,
                regions: HashMap::new(),
                region_values: HashMap::new(),
                current: InstrId::from_u32(0),
                unreduced_target: None,
                users: Default::default(),
            };
            inner.new.execution_thread = inner.old.execution_thread.clone();
            inner.run()?;
            (inner.new, inner.channel, inner.adders)
        };
        self.channel = channel;
        self.adders = adders;
        self.module.computations[callee] = new;
        Ok(())
    }

    fn sort(
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

    fn convolution(
        &mut self,
        instr: &Instruction,
        d: &ConvolutionDimensionNumbers,
    ) -> Result<(PValue, &'static str), PassError> {
        if let Some(r) = self.spatial_convolution(instr, d)? {
            return Ok(r);
        }
        let want = self.target(instr)?;
        let lr = self.old.instrs[instr.operands[0]].shape.rank();
        let rr = self.old.instrs[instr.operands[1]].shape.rank();
        let Some((lt, rt, out)) = convolution::plan(d, &want, lr, rr) else {
            return self.fallback(instr);
        };
        let a = self.operand_in(instr, 0, &lt, "convolution input split along batch only")?;
        let b = self.operand_in(instr, 1, &rt, "kernel split along output features only")?;
        let od = instr.shape.dims().to_vec();
        let id = self.emit_clone(
            instr,
            with_dims(&instr.shape, out.shard_dims(&od)),
            vec![a, b],
        );
        self.reshard_to_target(
            instr,
            id,
            &od,
            &out,
            "convolution result to its sharding",
            "convolution: local on batch and output-feature shards",
        )
    }

    fn gather(
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

    fn scatter(
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
    fn operand_and_indices(
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

    fn elementwise(&mut self, instr: &Instruction) -> Result<(PValue, &'static str), PassError> {
        if let Some(r) = self.elementwise_before_output_gather(instr)? {
            return Ok(r);
        }
        let target = self.target(instr)?;
        let mut ops = Vec::new();
        for i in 0..instr.operands.len() {
            ops.push(self.operand_in(instr, i, &target, "operand to the result's sharding")?);
        }
        let shape = with_dims(&instr.shape, target.shard_dims(instr.shape.dims()));
        let id = self.emit_clone(instr, shape, ops);
        Ok((
            PValue::Array { id, tiling: target },
            "elementwise: operands in the result's sharding",
        ))
    }

    fn reshape(&mut self, instr: &Instruction) -> Result<(PValue, &'static str), PassError> {
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

    fn reduce(
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
    fn variadic_reduce_partitionable(&self, instr: &Instruction) -> bool {
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
    fn variadic_reduce(
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

    /// `concatenate`: see `rules::concatenate` for the three plans.
    fn concatenate(
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

    fn dot(
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

    /// Ops without a rule: computed whole on every partition, then sliced.
    fn fallback(&mut self, instr: &Instruction) -> Result<(PValue, &'static str), PassError> {
        let mut ops = Vec::new();
        for &o in &instr.operands {
            let v = self.values[&o].clone();
            let s = self.old.instrs[o].shape.clone();
            ops.push(self.whole(&v, &s, "no rule for this op: operands made whole"));
        }
        let id = self.emit_clone(instr, instr.shape.clone(), ops);
        if !instr.shape.is_array() {
            return Ok((PValue::Whole(id), "no rule: computed whole"));
        }
        let rep = Tiling::replicated(instr.shape.rank(), self.n);
        self.reshard_to_target(
            instr,
            id,
            instr.shape.dims(),
            &rep,
            "result to its sharding",
            "no rule: computed whole, then sliced",
        )
    }

    fn custom_call(
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

/// Neighbour pieces a halo exchange may take before the split dimension is gathered
/// instead (a window reaching further moves more than the gather).
const MAX_HALO_PIECES: usize = 4;

// Halo exchange: slices, rotates and spatially split convolutions along a split dimension
// (XLA: `HandleSlice`, `HandleConcatenate`'s rotate, `HandleConvolution`'s spatial case).
impl Partitioner<'_> {
    /// An elementwise program result whose operands share a split that propagation dropped
    /// from the result for being uneven (XLA's outputs take such dimensions whole): computed
    /// on the shards and gathered once, as XLA's partitioner does (the split stays on the
    /// instruction, the output reshards it), rather than every operand gathered. `None`
    /// when that is not the case.
    fn elementwise_before_output_gather(
        &mut self,
        instr: &Instruction,
    ) -> Result<Option<(PValue, &'static str)>, PassError> {
        if self.groups.is_some() || self.current != self.old.root || !instr.shape.is_array() {
            return Ok(None);
        }
        let target = self.target(instr)?;
        let mut common: Option<Tiling> = None;
        let mut ops = Vec::with_capacity(instr.operands.len());
        for i in 0..instr.operands.len() {
            let Some((x, t)) = self.operand_tiling(instr, i) else {
                return Ok(None);
            };
            if t.is_unreduced() || common.as_ref().is_some_and(|c| *c != t) {
                return Ok(None);
            }
            ops.push(x);
            common = Some(t);
        }
        let Some(t) = common else {
            return Ok(None);
        };
        let dims = instr.shape.dims().to_vec();
        let mut dropped = t.clone();
        for d in 0..dims.len() {
            if t.is_uneven(&dims, d) {
                dropped = dropped.without_dim(d);
            }
        }
        if dropped == t || !dropped.same_as(&target) {
            return Ok(None);
        }
        let id = self.emit_clone(instr, with_dims(&instr.shape, t.shard_dims(&dims)), ops);
        self.reshard_to_target(
            instr,
            id,
            &dims,
            &t,
            "program result to its sharding (the uneven split dropped)",
            "elementwise: on the operands' shards, the result gathered once",
        )
        .map(Some)
    }

    /// `x`'s extended shard along `dim`: `pieces` (own rows and neighbours' halos)
    /// concatenated in order.
    fn exchange_halo(
        &mut self,
        x: InstrId,
        dim: usize,
        pieces: &[HaloPiece],
        why: &str,
    ) -> InstrId {
        let a = self.array_shape(x);
        let mut parts = Vec::with_capacity(pieces.len());
        for piece in pieces {
            let mut dims = a.dims.clone();
            dims[dim] = piece.len();
            let shape = Shape::array(a.element_type, &dims);
            let rows = if piece.start == 0 && piece.limit == a.dims[dim] {
                x
            } else {
                let slice = a
                    .dims
                    .iter()
                    .enumerate()
                    .map(|(d, &n)| SliceDimension {
                        start: if d == dim { piece.start } else { 0 },
                        limit: if d == dim { piece.limit } else { n },
                        stride: 1,
                    })
                    .collect();
                self.emit(shape.clone(), Op::Slice { slice }, vec![x])
            };
            let part = match &piece.source {
                PieceSource::Local => rows,
                PieceSource::Permute(pairs) => {
                    let text =
                        groups_text(&pairs.iter().map(|&(s, t)| vec![s, t]).collect::<Vec<_>>());
                    self.actions.push(format!(
                        "collective-permute {shape} source_target_pairs={text} ({why})"
                    ));
                    self.collective(
                        Opcode::CollectivePermute,
                        shape,
                        rows,
                        vec![("source_target_pairs", text)],
                        None,
                    )
                }
                PieceSource::Zeros => {
                    let zero = self.zero(a.element_type);
                    self.emit(shape, Op::Broadcast { dimensions: vec![] }, vec![zero])
                }
            };
            parts.push(part);
        }
        if parts.len() == 1 {
            return parts[0];
        }
        let mut dims = a.dims.clone();
        dims[dim] = pieces.iter().map(HaloPiece::len).sum();
        self.emit(
            Shape::array(a.element_type, &dims),
            Op::Concatenate { dimension: dim },
            parts,
        )
    }

    /// Each partition's window of `w` along `dim` (XLA's `ExchangeHaloAndGetValidData`):
    /// the halo exchange, then a slice (a dynamic-slice when the windows start at
    /// different places in the extended shards).
    fn windowed(&mut self, x: InstrId, dim: usize, w: &WindowedInput, why: &str) -> InstrId {
        let ext = self.exchange_halo(x, dim, &w.pieces, why);
        let a = self.array_shape(ext);
        if a.dims[dim] == w.size && w.offsets.iter().all(|&o| o == 0) {
            return ext;
        }
        let mut dims = a.dims.clone();
        dims[dim] = w.size;
        let shape = Shape::array(a.element_type, &dims);
        if w.offsets.iter().all(|&o| o == w.offsets[0]) {
            let slice = a
                .dims
                .iter()
                .enumerate()
                .map(|(d, &n)| SliceDimension {
                    start: if d == dim { w.offsets[0] } else { 0 },
                    limit: if d == dim { w.offsets[0] + w.size } else { n },
                    stride: 1,
                })
                .collect();
            return self.emit(shape, Op::Slice { slice }, vec![ext]);
        }
        let mut operands = vec![ext];
        for d in 0..a.dims.len() {
            let start = if d == dim {
                self.per_partition(&w.offsets)
            } else {
                self.s32(0)
            };
            operands.push(start);
        }
        self.emit(shape, Op::DynamicSlice { sizes: dims }, operands)
    }

    /// Zeros where `x`'s rows along `dim` (starting at global row `starts[p]` on partition
    /// `p`) fall outside `[0, size)`: the convolution's padding, where the exchange left
    /// zeros from no neighbour or the last shard's padding.
    fn mask_outside(&mut self, x: InstrId, dim: usize, starts: &[i64], size: i64) -> InstrId {
        let a = self.array_shape(x);
        let s32 = Shape::array(PrimitiveType::S32, &a.dims);
        let pred = Shape::array(PrimitiveType::Pred, &a.dims);
        let iota = self.emit(s32.clone(), Op::Iota { dimension: dim }, vec![]);
        let off = self.per_partition(starts);
        let off = self.emit(s32.clone(), Op::Broadcast { dimensions: vec![] }, vec![off]);
        let pos = self.emit(s32.clone(), Op::Plain(Opcode::Add), vec![iota, off]);
        let compare = |this: &mut Self, bound: i64, direction: ComparisonDirection| {
            let b = this.s32(bound);
            let b = this.emit(s32.clone(), Op::Broadcast { dimensions: vec![] }, vec![b]);
            this.emit(
                pred.clone(),
                Op::Compare {
                    direction,
                    comparison_type: None,
                },
                vec![pos, b],
            )
        };
        let ge = compare(self, 0, ComparisonDirection::Ge);
        let lt = compare(self, size, ComparisonDirection::Lt);
        let inside = self.emit(pred, Op::Plain(Opcode::And), vec![ge, lt]);
        let zero = self.zero(a.element_type);
        let zeros = self.emit(
            Shape::Array(a.clone()),
            Op::Broadcast { dimensions: vec![] },
            vec![zero],
        );
        self.actions
            .push("select: zeros outside the array (padding)".to_string());
        self.emit(
            Shape::Array(a),
            Op::Plain(Opcode::Select),
            vec![inside, x, zeros],
        )
    }

    /// The array operand `i` of `instr` and its tiling, if it is a complete (reduced) array
    /// outside any manual region (collective-permute pairs are over all partitions).
    fn halo_operand(&self, instr: &Instruction, i: usize) -> Option<(InstrId, Tiling)> {
        if self.groups.is_some() {
            return None;
        }
        self.operand_tiling(instr, i)
            .filter(|(_, t)| !t.is_unreduced())
    }

    /// `slice`: along a split dimension with stride 1, each partition's rows of the result
    /// from its shard and its neighbours' halos; other dimensions sliced locally where
    /// whole. Else computed whole (the fallback).
    fn slice(
        &mut self,
        instr: &Instruction,
        slice: &[SliceDimension],
    ) -> Result<(PValue, &'static str), PassError> {
        if self.read_only_by_rotates(instr) {
            // The rotate reads the slices' operand itself; this value is never read.
            let t = self
                .operand_tiling(instr, 0)
                .expect("checked by rotate_pattern")
                .1;
            let ty = self
                .array_shape(self.operand_tiling(instr, 0).unwrap().0)
                .element_type;
            let zero = self.zero(ty);
            let dims = t.shard_dims(instr.shape.dims());
            let id = self.emit(
                Shape::array(ty, &dims),
                Op::Broadcast { dimensions: vec![] },
                vec![zero],
            );
            return Ok((
                PValue::Array { id, tiling: t },
                "slice: read only by a rotate (concatenate), which reads its operand",
            ));
        }
        let Some((x, t)) = self.halo_operand(instr, 0) else {
            return self.fallback(instr);
        };
        let global = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let full =
            |d: usize, s: &SliceDimension| s.start == 0 && s.limit == global[d] && s.stride == 1;
        let split: Vec<usize> = (0..global.len())
            .filter(|&d| t.counts[d] > 1 && !full(d, &slice[d]))
            .collect();
        let [dim] = split[..] else {
            return self.fallback(instr);
        };
        let result = instr.shape.dims().to_vec();
        if slice[dim].stride != 1 || result[dim] == 0 {
            return self.fallback(instr);
        }
        // Dimensions held whole: sliced locally first.
        let local = self.array_shape(x).dims;
        let mut sliced = global.clone();
        let mut x = x;
        if (0..global.len()).any(|d| d != dim && t.counts[d] == 1 && !full(d, &slice[d])) {
            let mut shard = local.clone();
            let dims = (0..global.len())
                .map(|d| {
                    if d != dim && t.counts[d] == 1 {
                        sliced[d] = result[d];
                        shard[d] = result[d];
                        slice[d].clone()
                    } else {
                        SliceDimension {
                            start: 0,
                            limit: local[d],
                            stride: 1,
                        }
                    }
                })
                .collect();
            let ty = self.array_shape(x).element_type;
            x = self.emit(Shape::array(ty, &shard), Op::Slice { slice: dims }, vec![x]);
        }
        let k = t.counts[dim];
        let size = shard_size(result[dim], k);
        let starts: Vec<Option<i64>> = (0..self.n)
            .map(|p| {
                let first = t.coords[p][dim] * size;
                (first < result[dim]).then_some(slice[dim].start + first)
            })
            .collect();
        let w = halo_exchange::windowed_input(&t, &sliced, dim, &starts, size);
        if w.pieces.len() > MAX_HALO_PIECES + 1 {
            self.actions
                .push("the halo reaches past the neighbours: gathered instead".to_string());
            return self.fallback(instr);
        }
        let id = self.windowed(x, dim, &w, "slice along a split dimension: halo exchange");
        self.reshard_to_target(
            instr,
            id,
            &result,
            &t,
            "slice result to its sharding",
            "slice: halo exchange along the split dimension (collective-permute)",
        )
    }

    /// `concatenate(x[D-shift:], x[:D-shift])` along a dimension of `x` split evenly
    /// (`jnp.roll`): (the original `x`, the dimension, the shift).
    fn rotate_pattern(&self, instr: &Instruction) -> Option<(InstrId, usize, i64)> {
        let Op::Concatenate { dimension: dim } = instr.op else {
            return None;
        };
        let [a, b] = instr.operands[..] else {
            return None;
        };
        let (Op::Slice { slice: sa }, Op::Slice { slice: sb }) =
            (&self.old.instrs[a].op, &self.old.instrs[b].op)
        else {
            return None;
        };
        let x = self.old.instrs[a].operands[0];
        if self.old.instrs[b].operands[0] != x || a == b {
            return None;
        }
        let global = self.old.instrs[x].shape.dims();
        let whole_elsewhere = |s: &[SliceDimension]| {
            s.iter()
                .enumerate()
                .all(|(d, s)| s.stride == 1 && (d == dim || (s.start == 0 && s.limit == global[d])))
        };
        let size = *global.get(dim)?;
        let shift = size - sa[dim].start;
        if !whole_elsewhere(sa)
            || !whole_elsewhere(sb)
            || sa[dim].limit != size
            || sb[dim].start != 0
            || sb[dim].limit != size - shift
            || shift <= 0
            || shift >= size
        {
            return None;
        }
        for s in [a, b] {
            if self.users[s].iter().any(|&u| u != self.current) {
                return None;
            }
        }
        let (_, t) = match self.values.get(&x)? {
            PValue::Array { id, tiling } if self.groups.is_none() && !tiling.is_unreduced() => {
                (*id, tiling.clone())
            }
            _ => return None,
        };
        halo_exchange::rotate(&t, global, dim, shift)?;
        Some((x, dim, shift))
    }

    /// True if `instr` (a slice) is read only by concatenates that are rotates.
    fn read_only_by_rotates(&mut self, instr: &Instruction) -> bool {
        let users = self.users[self.current].clone();
        let me = self.current;
        let ok = !users.is_empty()
            && users.iter().all(|&u| {
                let user = self.old.instrs[u].clone();
                self.current = u;
                let r = self.rotate_pattern(&user).is_some();
                self.current = me;
                r
            });
        ok && matches!(instr.op, Op::Slice { .. })
    }

    /// A rotate along an evenly split dimension: each partition's shard is the end of one
    /// neighbour's shard and the start of the next's, moved with collective-permutes.
    fn rotate(&mut self, instr: &Instruction) -> Result<(PValue, &'static str), PassError> {
        let (x_old, dim, shift) = self.rotate_pattern(instr).expect("checked by the caller");
        let Some(PValue::Array { id: x, tiling: t }) = self.values.get(&x_old).cloned() else {
            return Err(err(instr, "the rotated operand is not an array"));
        };
        let global = self.old.instrs[x_old].shape.dims().to_vec();
        let pieces = halo_exchange::rotate(&t, &global, dim, shift)
            .ok_or_else(|| err(instr, "the rotate's dimension is not split evenly"))?;
        // The operand slices' placeholders are not read: dropped.
        for &o in &instr.operands {
            if let Some(PValue::Array { id, .. }) = self.values.get(&o).cloned() {
                let zero = self.new.instrs[id].operands.first().copied();
                self.new.order.retain(|&i| i != id && Some(i) != zero);
            }
        }
        let id = self.exchange_halo(x, dim, &pieces, "rotate along a split dimension");
        self.reshard_to_target(
            instr,
            id,
            instr.shape.dims(),
            &t,
            "rotate result to its sharding",
            "concatenate: a rotate, halo exchange with the neighbours (collective-permute)",
        )
    }

    /// A convolution whose input is split along one spatial dimension (stride 1, no base
    /// dilation) and whose result is wanted split the same way: each partition convolves
    /// its rows plus the halos the window reaches into, the padding zeros masked in and
    /// removed from the local convolution. `None` when it does not apply.
    fn spatial_convolution(
        &mut self,
        instr: &Instruction,
        d: &ConvolutionDimensionNumbers,
    ) -> Result<Option<(PValue, &'static str)>, PassError> {
        let Op::Convolution { window, .. } = &instr.op else {
            return Ok(None);
        };
        let Some((x, t)) = self.halo_operand(instr, 0) else {
            return Ok(None);
        };
        let split: Vec<usize> = (0..d.input_spatial_dimensions.len())
            .filter(|&i| t.counts[d.input_spatial_dimensions[i]] > 1)
            .collect();
        let [i] = split[..] else {
            return Ok(None);
        };
        let wd = &window.dimensions[i];
        if t.counts[d.input_feature_dimension] > 1 || wd.stride != 1 || wd.base_dilation != 1 {
            return Ok(None);
        }
        let out_rank = instr.shape.rank();
        let mut map = vec![None; out_rank];
        map[d.output_batch_dimension] = Some(d.input_batch_dimension);
        for (o, s) in d
            .output_spatial_dimensions
            .iter()
            .zip(&d.input_spatial_dimensions)
        {
            map[*o] = Some(*s);
        }
        let out = t.project(&map);
        if !self.target(instr)?.same_as(&out) {
            return Ok(None);
        }
        let in_dim = d.input_spatial_dimensions[i];
        let out_dim = d.output_spatial_dimensions[i];
        let global = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let out_dims = instr.shape.dims().to_vec();
        if global[in_dim] == 0 {
            return Ok(None);
        }
        let k = t.counts[in_dim];
        let size = shard_size(out_dims[out_dim], k);
        let extent = (wd.size - 1) * wd.window_dilation + 1;
        let starts: Vec<Option<i64>> = (0..self.n)
            .map(|p| {
                let first = t.coords[p][in_dim] * size;
                (first < out_dims[out_dim]).then_some(first - wd.padding_low)
            })
            .collect();
        let w = halo_exchange::windowed_input(&t, &global, in_dim, &starts, size + extent - 1);
        if w.pieces.len() > MAX_HALO_PIECES + 1 || size == 0 {
            self.actions
                .push("the halo reaches past the neighbours: gathered instead".to_string());
            return Ok(None);
        }
        let kernel = self.operand_in(
            instr,
            1,
            &Tiling::replicated(self.old.instrs[instr.operands[1]].shape.rank(), self.n),
            "kernel whole for a spatially split convolution",
        )?;
        let why = "convolution split along a spatial dimension: halo exchange";
        let mut input = self.windowed(x, in_dim, &w, why);
        let outside = starts
            .iter()
            .zip(&w.window_starts)
            .any(|(s, &ws)| s.is_some() && (ws < 0 || ws + w.size > global[in_dim]));
        if outside {
            input = self.mask_outside(input, in_dim, &w.window_starts, global[in_dim]);
        }
        let id = self.emit_clone(
            instr,
            with_dims(&instr.shape, out.shard_dims(&out_dims)),
            vec![input, kernel],
        );
        if let Op::Convolution { window, .. } = &mut self.new.instrs[id].op {
            window.dimensions[i].padding_low = 0;
            window.dimensions[i].padding_high = 0;
        }
        self.reshard_to_target(
            instr,
            id,
            &out_dims,
            &out,
            "convolution result to its sharding",
            "convolution: spatial split, halo exchange (collective-permute), local convolution",
        )
        .map(Some)
    }
}

/// `out` holding partial sums: each partition's unreduced coordinate is its place in its
/// reduction group.
fn partial_tiling(out: &Tiling, groups: &[Vec<i64>]) -> Tiling {
    let mut t = out.reduced();
    t.unreduced = vec![0; out.partitions()];
    for g in groups {
        for (k, &p) in g.iter().enumerate() {
            t.unreduced[p as usize] = k as i64;
        }
    }
    t
}

/// `t` with the splits of the dimensions where `part` does not take all of `whole` dropped.
fn keep_whole(t: &Tiling, whole: &[i64], part: &[i64]) -> Tiling {
    let mut t = t.clone();
    for (d, (w, p)) in whole.iter().zip(part).enumerate() {
        if w != p && t.counts[d] > 1 {
            t = t.without_dim(d);
        }
    }
    t
}

fn with_dims(shape: &Shape, dims: Vec<i64>) -> Shape {
    match shape {
        Shape::Array(a) => {
            let mut a = a.clone();
            a.dims = dims;
            Shape::Array(a)
        }
        s => s.clone(),
    }
}

fn fmt_dims(d: &[i64]) -> String {
    format!(
        "[{}]",
        d.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
    )
}
