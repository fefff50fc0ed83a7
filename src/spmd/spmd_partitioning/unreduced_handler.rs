//! Unreduced values (partial sums kept until a reshard needs the whole value): which instructions keep them and where they are summed.

use super::*;

impl Partitioner<'_> {
    /// Partitions one instruction whose operands or annotation may be unreduced. Ops that
    /// are linear in the value they pass on (parameters, tuples, sharding constraints,
    /// shard_map boundaries, add, subtract, negate, copy) take partial values as they are;
    /// every other op sees its unreduced operands summed first (an `all-reduce`) and
    /// computes a complete result, then made unreduced if its annotation says so. A dot or
    /// a sum whose split contracting or reduced dimensions leave partial sums keeps them
    /// when its annotation is unreduced.
    pub(super) fn partition_with_unreduced(
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
    pub(super) fn unreduced_constraint_of_users(&self, instr: &Instruction) -> Option<HloSharding> {
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
    pub(super) fn keeps_partial_values(&self, instr: &Instruction) -> bool {
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
    pub(super) fn summed(&mut self, v: &PValue, shape: &Shape) -> PValue {
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
    pub(super) fn is_adder(&self, c: ComputationId) -> bool {
        let comp = &self.module.computations[c];
        let root = &comp.instrs[comp.root];
        root.opcode() == Opcode::Add
            && root.operands.len() == 2
            && root
                .operands
                .iter()
                .all(|o| matches!(comp.instrs[*o].op, Op::Parameter { .. }))
    }
}
