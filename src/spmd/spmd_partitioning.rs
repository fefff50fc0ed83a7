//! `spmd-partitioning`: rewrites the entry computation, whose instructions carry the
//! shardings `sharding-propagation` gave them, into the program one partition runs.
//! XLA: `SpmdPartitioningVisitor` (spmd_partitioner.cc): each instruction becomes a
//! partitioned value (its per-partition instruction plus the tiling it is held in); an
//! operand in the wrong tiling goes through the reshard table first.
//!
//! Values inside `shard_map` (between `SPMDFullToShardShape` / `xla.sdy.GlobalToLocalShape`
//! and their inverses) are manual: already per-partition, copied as they are.
//!
//! This file holds the pass, the partitioner's walk and the dispatch by opcode; each op
//! family's rule is in its `*_handler.rs`, the emission helpers in `partitioner_util.rs`,
//! operand access in `operands.rs` and reshards in `reshard_emitter.rs`.

mod control_flow_handler;
mod convolution_handler;
mod custom_call_handler;
mod data_movement_handler;
mod dot_handler;
mod gather_scatter_handler;
mod halo_handler;
mod operands;
mod partitioner_util;
mod reduce_handler;
mod reshard_emitter;
mod unreduced_handler;

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
