//! An HLO collective as the runtime sees it: its kind, the devices of every group, and what
//! it does with the data ([`Pattern`]). Built from the instruction's attributes by the
//! rules of `eval::collectives::groups` (the StableHLO spec's group modes, XLA's three
//! `replica_groups` syntaxes), checked once: groups that overlap or leave devices out, a
//! permute with a duplicate source or target, a dimension out of range are errors naming
//! the op and the devices.

use std::fmt;

use super::{CollectiveError, DeviceGrid, DeviceId};
use crate::eval::collectives::groups::{CollectiveAttributes, GroupMode, process_groups};
use crate::ir::{Instruction, Module, Op, Opcode, Shape};

/// Which collective.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CollectiveKind {
    /// `all-reduce`.
    AllReduce,
    /// `all-gather`.
    AllGather,
    /// `reduce-scatter`.
    ReduceScatter,
    /// `all-to-all`.
    AllToAll,
    /// `collective-permute`.
    CollectivePermute,
    /// `collective-broadcast`.
    CollectiveBroadcast,
}

impl CollectiveKind {
    /// The kind of `opcode`, if it is one of the collectives this runtime runs.
    pub fn of(opcode: Opcode) -> Option<CollectiveKind> {
        Some(match opcode {
            Opcode::AllReduce => CollectiveKind::AllReduce,
            Opcode::AllGather => CollectiveKind::AllGather,
            Opcode::ReduceScatter => CollectiveKind::ReduceScatter,
            Opcode::AllToAll => CollectiveKind::AllToAll,
            Opcode::CollectivePermute => CollectiveKind::CollectivePermute,
            Opcode::CollectiveBroadcast => CollectiveKind::CollectiveBroadcast,
            _ => return None,
        })
    }

    /// The opcode.
    pub fn opcode(self) -> Opcode {
        match self {
            CollectiveKind::AllReduce => Opcode::AllReduce,
            CollectiveKind::AllGather => Opcode::AllGather,
            CollectiveKind::ReduceScatter => Opcode::ReduceScatter,
            CollectiveKind::AllToAll => Opcode::AllToAll,
            CollectiveKind::CollectivePermute => Opcode::CollectivePermute,
            CollectiveKind::CollectiveBroadcast => Opcode::CollectiveBroadcast,
        }
    }
}

impl fmt::Display for CollectiveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.opcode())
    }
}

/// What a collective does with its operands (per operand; all operands of one op share
/// the pattern).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Every member gets the reduction of everybody's operand, folded in group order.
    AllReduce,
    /// Every member gets everybody's operand concatenated along `dimension`, in group order.
    AllGather {
        /// The concatenation dimension.
        dimension: usize,
    },
    /// Member k gets block k (along `dimension`) of the reduction.
    ReduceScatter {
        /// The scattered dimension.
        dimension: usize,
    },
    /// Member m's block k (along `split`) goes to member k, which concatenates what it
    /// receives along `concat`, in group order.
    AllToAll {
        /// Where operands are cut.
        split: usize,
        /// Where results are joined; `None`: the dimension the result grows along (the
        /// split dimension when the shapes are equal), as XLA's one `dimensions={d}` and a
        /// converted StableHLO `concat_dimension` both read.
        concat: Option<usize>,
    },
    /// The tuple form: operand k of member m becomes result m of member k.
    AllToAllTuple,
    /// Member `target` gets member `source`'s operand (positions in the group); a member no
    /// pair targets gets zeros.
    CollectivePermute {
        /// `(source, target)` positions.
        pairs: Vec<(usize, usize)>,
    },
    /// Every member gets operand j of member `roots[j]` (all from member 0 without roots).
    CollectiveBroadcast {
        /// Per operand, the position of its source in the group.
        roots: Option<Vec<usize>>,
    },
}

/// One collective of one device's program, resolved on a grid.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveOp {
    /// The instruction's name (`psum.5`).
    pub name: String,
    /// Which collective.
    pub kind: CollectiveKind,
    /// What it does with the data.
    pub pattern: Pattern,
    /// `channel_id=`, if positive.
    pub channel_id: Option<i64>,
    /// Every group, as devices in group order. A device in none does not take part (only
    /// `collective-broadcast` allows that: it gets zeros).
    pub groups: Vec<Vec<DeviceId>>,
    /// The reduction computation's name (all-reduce, reduce-scatter), compared across
    /// participants.
    pub reduction: Option<String>,
}

impl CollectiveOp {
    /// `all-reduce %psum.5`: how reports name the op.
    pub fn label(&self) -> String {
        format!("{} %{}", self.kind, self.name)
    }

    /// The group of `device` and its position there.
    pub fn group_of(&self, device: DeviceId) -> Option<(&[DeviceId], usize)> {
        self.groups.iter().find_map(|g| {
            g.iter()
                .position(|&d| d == device)
                .map(|i| (g.as_slice(), i))
        })
    }

    /// Reads collective `instr` of `module` on `grid`. `roots` are a dynamic-root
    /// broadcast's source positions (read from its last operand by the caller).
    pub fn from_instruction(
        module: &Module,
        instr: &Instruction,
        grid: &DeviceGrid,
        roots: Option<Vec<usize>>,
    ) -> Result<CollectiveOp, CollectiveError> {
        let opcode = instr.opcode();
        let label = format!("{opcode} %{}", instr.name);
        let bad = |m: String| CollectiveError::BadOp(format!("{label}: {m}"));
        let kind = CollectiveKind::of(opcode)
            .ok_or_else(|| bad("not a collective this runtime runs".into()))?;
        let attrs = CollectiveAttributes::of(instr).map_err(|e| bad(e.message))?;
        let mode = attrs.mode(opcode).map_err(|e| bad(e.message))?;
        let (r, p) = (grid.replicas, grid.partitions);
        let operand_rank = |k: usize| -> Option<usize> {
            // Operand shapes come from the result for the data ops: same rank.
            match (&instr.shape, k) {
                (Shape::Tuple(t), _) => t.get(k).and_then(Shape::as_array).map(|a| a.rank()),
                (Shape::Array(a), 0) => Some(a.rank()),
                _ => None,
            }
        };
        let one_dimension = || -> Result<usize, CollectiveError> {
            match attrs.dimensions.as_slice() {
                [d] if *d >= 0 && operand_rank(0).is_some_and(|rank| (*d as usize) < rank) => {
                    Ok(*d as usize)
                }
                [d] => Err(bad(format!("dimension {d} is out of range"))),
                _ => Err(bad("needs dimensions={d} with one dimension".into())),
            }
        };
        let reduction = match kind {
            CollectiveKind::AllReduce | CollectiveKind::ReduceScatter => Some(
                reducer_of(instr)
                    .map(|c| module.computations[c].name.clone())
                    .ok_or_else(|| bad("needs to_apply=".into()))?,
            ),
            _ => None,
        };
        let to_devices = |groups: Vec<Vec<crate::eval::ProcessId>>| -> Vec<Vec<DeviceId>> {
            groups
                .into_iter()
                .map(|g| {
                    g.into_iter()
                        .map(|q| grid.device(q.replica_id, q.partition_id))
                        .collect()
                })
                .collect()
        };
        let (groups, pattern) = if kind == CollectiveKind::CollectivePermute {
            // Every device meets the others of its replica (with a channel: cross-partition)
            // or of its partition; pairs are positions there.
            let cross_partition = mode == GroupMode::CrossPartition;
            let (count, size) = if cross_partition { (r, p) } else { (p, r) };
            let groups: Vec<Vec<DeviceId>> = (0..count)
                .map(|outer| {
                    (0..size)
                        .map(|inner| {
                            if cross_partition {
                                grid.device(outer, inner)
                            } else {
                                grid.device(inner, outer)
                            }
                        })
                        .collect()
                })
                .collect();
            let mut pairs = Vec::new();
            let mut sources = Vec::new();
            let mut targets = Vec::new();
            for &(s, t) in &attrs.source_target_pairs {
                if s < 0 || t < 0 || s >= i64::from(size) || t >= i64::from(size) {
                    return Err(bad(format!(
                        "pair {{{s},{t}}} is outside the {r}x{p} device grid"
                    )));
                }
                if targets.contains(&t) {
                    return Err(bad(format!(
                        "device {t} is the target of two pairs; each device receives from one"
                    )));
                }
                if sources.contains(&s) {
                    return Err(bad(format!(
                        "device {s} is the source of two pairs; each device sends to one"
                    )));
                }
                sources.push(s);
                targets.push(t);
                pairs.push((s as usize, t as usize));
            }
            (groups, Pattern::CollectivePermute { pairs })
        } else {
            let groups = to_devices(
                process_groups(&attrs.replica_groups, mode, r, p).map_err(|e| bad(e.message))?,
            );
            let pattern = match kind {
                CollectiveKind::AllReduce => Pattern::AllReduce,
                CollectiveKind::AllGather => Pattern::AllGather {
                    dimension: one_dimension()?,
                },
                CollectiveKind::ReduceScatter => Pattern::ReduceScatter {
                    dimension: one_dimension()?,
                },
                CollectiveKind::AllToAll => {
                    if attrs.dimensions.is_empty() && attrs.split_dimension.is_none() {
                        Pattern::AllToAllTuple
                    } else {
                        let split = match attrs.split_dimension {
                            Some(s) if s >= 0 => s as usize,
                            Some(s) => return Err(bad(format!("split dimension {s}"))),
                            None => one_dimension()?,
                        };
                        let concat = match attrs.concat_dimension {
                            Some(c) if c >= 0 => Some(c as usize),
                            Some(c) => return Err(bad(format!("concat dimension {c}"))),
                            None => None,
                        };
                        Pattern::AllToAll { split, concat }
                    }
                }
                CollectiveKind::CollectiveBroadcast => Pattern::CollectiveBroadcast { roots },
                CollectiveKind::CollectivePermute => unreachable!("handled above"),
            };
            (groups, pattern)
        };
        check_groups(&label, &groups, grid, kind)?;
        Ok(CollectiveOp {
            name: instr.name.clone(),
            kind,
            pattern,
            channel_id: attrs.channel_id.filter(|&c| c > 0),
            groups,
            reduction,
        })
    }
}

/// Groups must not overlap; every device must be in one (a broadcast may leave devices out).
fn check_groups(
    label: &str,
    groups: &[Vec<DeviceId>],
    grid: &DeviceGrid,
    kind: CollectiveKind,
) -> Result<(), CollectiveError> {
    let mut owner: Vec<Option<usize>> = vec![None; grid.count()];
    for (gi, g) in groups.iter().enumerate() {
        for &d in g {
            match owner.get(d).copied() {
                None => {
                    return Err(CollectiveError::BadOp(format!(
                        "{label}: device {d} is outside the {}x{} device grid",
                        grid.replicas, grid.partitions
                    )));
                }
                Some(Some(other)) => {
                    return Err(CollectiveError::BadOp(format!(
                        "{label}: device {d} is in two replica groups ({} and {})",
                        format_group(&groups[other]),
                        format_group(g)
                    )));
                }
                Some(None) => owner[d] = Some(gi),
            }
        }
    }
    let missing: Vec<String> = (0..grid.count())
        .filter(|&d| owner[d].is_none())
        .map(|d| d.to_string())
        .collect();
    if !missing.is_empty() && kind != CollectiveKind::CollectiveBroadcast {
        return Err(CollectiveError::BadOp(format!(
            "{label}: device{} {} {} in no replica group",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            if missing.len() == 1 { "is" } else { "are" }
        )));
    }
    Ok(())
}

/// `{0,1,2,3}`.
pub fn format_group(g: &[DeviceId]) -> String {
    let ids: Vec<String> = g.iter().map(|d| d.to_string()).collect();
    format!("{{{}}}", ids.join(","))
}

/// The `to_apply=` computation of a collective.
pub fn reducer_of(instr: &Instruction) -> Option<crate::ir::ComputationId> {
    match &instr.op {
        Op::Unmodeled { called, .. } => called
            .iter()
            .find(|c| c.attribute == "to_apply")
            .and_then(|c| c.computations.first().copied()),
        _ => None,
    }
}
