//! Control flow: `while`, `conditional` and `call` bodies partitioned in place (XLA: `HandleWhile`, `HandleConditional`, `HandleCall`).

use super::*;

impl Partitioner<'_> {
    /// The `call` of a partially manual shard_map body: the body partitioned as its own
    /// program over one manual group's partitions (its values split along the free axes),
    /// then called with each partition's shards.
    pub(super) fn region(
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

    /// A tuple parameter whose elements are arrays with shardings (a loop body's state):
    /// the parameter of shard shapes, taken apart into its elements.
    pub(super) fn tuple_parameter(
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
    pub(super) fn tuple_elements(
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
    pub(super) fn loop_partitionable(&self, instr: &Instruction) -> bool {
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
    pub(super) fn callers(&self, c: ComputationId) -> usize {
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
    pub(super) fn conditional_partitionable(
        &self,
        instr: &Instruction,
        branches: &[ComputationId],
    ) -> bool {
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
    pub(super) fn conditional(
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
    pub(super) fn while_loop(
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
    pub(super) fn array_while_loop(
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
    pub(super) fn partition_callee(&mut self, callee: ComputationId) -> Result<(), PassError> {
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
}
