//! The spmd-decisions log: per instruction, the shardings in and out, the rule that
//! partitioned it, and each collective it made, with the reason. Dumped as
//! `module_0000.NAME.spmd-decisions.txt`.

use std::fmt;

/// What happened to one instruction.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Decision {
    /// The instruction's name in the global program.
    pub instruction: String,
    /// Its opcode.
    pub opcode: String,
    /// The operands' shardings as they arrived.
    pub operands: Vec<String>,
    /// The sharding propagation gave it (or the annotation it carried).
    pub sharding: String,
    /// Where that sharding came from (`annotated`, `from operand 0`, `dot: lhs batch`, ...).
    pub propagated_by: String,
    /// The partitioner's rule.
    pub rule: String,
    /// The per-partition shape it got.
    pub shard_shape: String,
    /// Collectives and slices it made, each with why.
    pub actions: Vec<String>,
}

/// Everything both passes decided, in instruction order.
#[derive(Clone, Debug, Default)]
pub struct DecisionLog {
    /// Partitions of the program.
    pub num_partitions: usize,
    /// One entry per instruction of the entry computation.
    pub decisions: Vec<Decision>,
}

/// The dump text.
impl fmt::Display for DecisionLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "# spmd decisions: {} partitions; per instruction of the entry: its sharding and where it\n\
             # came from (sharding-propagation), the rule that partitioned it and its per-partition\n\
             # shape (spmd-partitioning), and every reshard or collective it made, with the reason.",
            self.num_partitions
        )?;
        let collectives = self
            .decisions
            .iter()
            .flat_map(|d| &d.actions)
            .filter(|a| {
                [
                    "all-reduce",
                    "all-gather",
                    "all-to-all",
                    "collective-permute",
                ]
                .iter()
                .any(|k| a.starts_with(k))
            })
            .count();
        writeln!(f, "# collectives made: {collectives}\n")?;
        for d in &self.decisions {
            writeln!(f, "{} = {}", d.instruction, d.opcode)?;
            if !d.operands.is_empty() {
                writeln!(f, "  operands:  {}", d.operands.join(", "))?;
            }
            writeln!(f, "  sharding:  {}  ({})", d.sharding, d.propagated_by)?;
            if !d.rule.is_empty() {
                writeln!(f, "  rule:      {}  -> {}", d.rule, d.shard_shape)?;
            }
            for a in &d.actions {
                writeln!(f, "  made:      {a}")?;
            }
        }
        Ok(())
    }
}

impl DecisionLog {
    /// The entry for `name`, created on first use.
    pub fn entry(&mut self, name: &str, opcode: &str) -> &mut Decision {
        if let Some(i) = self.decisions.iter().position(|d| d.instruction == name) {
            return &mut self.decisions[i];
        }
        self.decisions.push(Decision {
            instruction: name.to_string(),
            opcode: opcode.to_string(),
            ..Decision::default()
        });
        self.decisions.last_mut().unwrap()
    }
}
