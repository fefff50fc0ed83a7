//! Which processes a collective talks to: the attributes of a collective (as XLA prints them
//! in HLO text) and the StableHLO spec's process-group rules.
//! StableHLO spec: "Collective ops" (`cross_replica`, `cross_partition`,
//! `cross_replica_and_partition`, `flattened_ids`); XLA: `xla/service/collective_ops_utils.cc`
//! (`GetCollectiveOpGroupMode`, `GetParticipatingDevices`).
//!
//! Collectives reach the interpreter as `Op::Unmodeled`, with their attributes verbatim in
//! `raw_attributes`: `replica_groups={{0,1},{2,3}}` (or the iota form `[2,2]<=[4]`),
//! `channel_id=1`, `use_global_device_ids=true`, `dimensions={0}`,
//! `source_target_pairs={{0,1},{1,2}}`. This file parses those and turns them into lists
//! of [`ProcessId`]s.
//!
//! Where XLA's HLO and the StableHLO spec disagree (an `all-to-all`, `collective-permute` or
//! `collective-broadcast` with a channel id is cross-replica-and-partition in XLA, but
//! cross-partition in StableHLO), the StableHLO spec wins: the conformance corpus is written
//! against it.

use super::ProcessId;
use crate::eval::{EvalError, EvalResult};
use crate::ir::{Instruction, Opcode};

/// How `replica_groups` is read (StableHLO spec names).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GroupMode {
    /// Groups of replica ids; one copy of the groups per partition.
    CrossReplica,
    /// Groups of partition ids; one copy per replica.
    CrossPartition,
    /// Groups of replica ids, each taken across every partition.
    CrossReplicaAndPartition,
    /// Groups of flattened device ids `replica_id * num_partitions + partition_id`.
    FlattenedIds,
}

/// The attributes shared by the collectives, read from `raw_attributes`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollectiveAttributes {
    /// `replica_groups=`; empty when absent or `{}` (then one group of everything).
    pub replica_groups: Vec<Vec<i64>>,
    /// `channel_id=`; values `<= 0` mean "no channel".
    pub channel_id: Option<i64>,
    /// `use_global_device_ids=true`.
    pub use_global_device_ids: bool,
    /// `dimensions={...}`: the gather/scatter/split dimension.
    pub dimensions: Vec<i64>,
    /// `source_target_pairs={{s,t},...}` (collective-permute).
    pub source_target_pairs: Vec<(i64, i64)>,
    /// `split_dimension=` / `concat_dimension=`, if a converter writes them (not XLA syntax:
    /// XLA's all-to-all has one dimension for both).
    pub split_dimension: Option<i64>,
    /// See `split_dimension`.
    pub concat_dimension: Option<i64>,
    /// `has_dynamic_root=true` (StableHLO collective_broadcast, written by the converter):
    /// the last operand holds, per data operand, the index in the group of its source.
    pub has_dynamic_root: bool,
}

impl CollectiveAttributes {
    /// Reads the attributes of `instr`; unknown attributes are ignored.
    pub fn of(instr: &Instruction) -> EvalResult<CollectiveAttributes> {
        let mut a = CollectiveAttributes::default();
        for raw in &instr.raw_attributes {
            let v = raw.value.trim();
            let bad = || {
                EvalError::new(format!(
                    "cannot read the attribute {}={} of `{}`",
                    raw.name,
                    raw.value,
                    instr.opcode()
                ))
            };
            match raw.name.as_str() {
                "replica_groups" => a.replica_groups = parse_groups(v).ok_or_else(bad)?,
                "channel_id" => a.channel_id = Some(v.parse().map_err(|_| bad())?),
                "use_global_device_ids" => a.use_global_device_ids = v == "true",
                "has_dynamic_root" => a.has_dynamic_root = v == "true",
                "dimensions" => {
                    a.dimensions = parse_list(
                        v.strip_prefix('{')
                            .and_then(|v| v.strip_suffix('}'))
                            .ok_or_else(bad)?,
                    )
                    .ok_or_else(bad)?
                }
                "source_target_pairs" => {
                    a.source_target_pairs = parse_nested(v)
                        .ok_or_else(bad)?
                        .into_iter()
                        .map(|p| match p.as_slice() {
                            [s, t] => Ok((*s, *t)),
                            _ => Err(bad()),
                        })
                        .collect::<EvalResult<_>>()?
                }
                "split_dimension" => a.split_dimension = Some(v.parse().map_err(|_| bad())?),
                "concat_dimension" => a.concat_dimension = Some(v.parse().map_err(|_| bad())?),
                _ => {}
            }
        }
        Ok(a)
    }

    /// True if the op has a (positive) channel id.
    pub fn has_channel(&self) -> bool {
        self.channel_id.is_some_and(|c| c > 0)
    }

    /// The group mode of `opcode` with these attributes (StableHLO spec, per op).
    pub fn mode(&self, opcode: Opcode) -> EvalResult<GroupMode> {
        use Opcode::*;
        match opcode {
            AllReduce | AllGather | ReduceScatter => {
                match (self.has_channel(), self.use_global_device_ids) {
                    (false, false) => Ok(GroupMode::CrossReplica),
                    (true, false) => Ok(GroupMode::CrossReplicaAndPartition),
                    (true, true) => Ok(GroupMode::FlattenedIds),
                    (false, true) => {
                        Err(EvalError::new("use_global_device_ids needs a channel id"))
                    }
                }
            }
            _ if self.has_channel() => Ok(GroupMode::CrossPartition),
            _ => Ok(GroupMode::CrossReplica),
        }
    }
}

/// The process groups that `replica_groups` (with `-1` padding removed) describes on a
/// `num_replicas x num_partitions` grid. An empty list means one group of every replica
/// (or partition, for [`GroupMode::CrossPartition`]).
pub fn process_groups(
    groups: &[Vec<i64>],
    mode: GroupMode,
    num_replicas: u32,
    num_partitions: u32,
) -> EvalResult<Vec<Vec<ProcessId>>> {
    let all = |n: u32| vec![(0..i64::from(n)).collect::<Vec<i64>>()];
    let groups: Vec<Vec<i64>> = if groups.is_empty() {
        match mode {
            GroupMode::CrossPartition => all(num_partitions),
            GroupMode::FlattenedIds => all(num_replicas * num_partitions),
            _ => all(num_replicas),
        }
    } else {
        groups
            .iter()
            .map(|g| g.iter().copied().filter(|&i| i >= 0).collect())
            .collect()
    };
    let id = |i: i64, n: u32, what: &str| -> EvalResult<u32> {
        u32::try_from(i).ok().filter(|&i| i < n).ok_or_else(|| {
            EvalError::new(format!(
                "{what} {i} is outside the {num_replicas}x{num_partitions} process grid"
            ))
        })
    };
    let mut out = Vec::new();
    match mode {
        GroupMode::CrossReplica => {
            for p in 0..num_partitions {
                for g in &groups {
                    out.push(
                        g.iter()
                            .map(|&r| Ok(ProcessId::new(id(r, num_replicas, "replica")?, p)))
                            .collect::<EvalResult<_>>()?,
                    );
                }
            }
        }
        GroupMode::CrossPartition => {
            for r in 0..num_replicas {
                for g in &groups {
                    out.push(
                        g.iter()
                            .map(|&p| Ok(ProcessId::new(r, id(p, num_partitions, "partition")?)))
                            .collect::<EvalResult<_>>()?,
                    );
                }
            }
        }
        GroupMode::CrossReplicaAndPartition => {
            for g in &groups {
                let mut group = Vec::new();
                for p in 0..num_partitions {
                    for &r in g {
                        group.push(ProcessId::new(id(r, num_replicas, "replica")?, p));
                    }
                }
                out.push(group);
            }
        }
        GroupMode::FlattenedIds => {
            let n = num_replicas * num_partitions;
            for g in &groups {
                out.push(
                    g.iter()
                        .map(|&d| {
                            let d = id(d, n, "device id")?;
                            Ok(ProcessId::new(d / num_partitions, d % num_partitions))
                        })
                        .collect::<EvalResult<_>>()?,
                );
            }
        }
    }
    Ok(out)
}

/// `{{0,1},{2,3}}`, `{}`, or XLA's iota form `[G,S]<=[N]` / `[G,S]<=[a,b]T(1,0)`.
pub fn parse_groups(v: &str) -> Option<Vec<Vec<i64>>> {
    if v.starts_with('[') {
        return parse_iota_groups(v);
    }
    parse_nested(v)
}

/// `{{1,2},{3}}` (or `{}`) as nested lists.
fn parse_nested(v: &str) -> Option<Vec<Vec<i64>>> {
    let inner = v.trim().strip_prefix('{')?.strip_suffix('}')?.trim();
    let mut out = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let open = rest.strip_prefix('{')?;
        let close = open.find('}')?;
        out.push(parse_list(&open[..close])?);
        rest = open[close + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    Some(out)
}

/// `0,1, 2` as integers (empty text is an empty list).
fn parse_list(v: &str) -> Option<Vec<i64>> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect()
}

/// XLA's iota replica-group list: `[G,S]<=[dims]` optionally followed by `T(perm)`: the ids
/// `0..N` laid out with `dims`, transposed by `perm`, reshaped to G groups of S.
fn parse_iota_groups(v: &str) -> Option<Vec<Vec<i64>>> {
    let (shape, rest) = v.split_once("<=")?;
    let shape = parse_list(shape.trim().strip_prefix('[')?.strip_suffix(']')?)?;
    let rest = rest.trim();
    let (dims, perm) = match rest.split_once('T') {
        Some((d, p)) => (
            d.trim(),
            Some(parse_list(p.trim().strip_prefix('(')?.strip_suffix(')')?)?),
        ),
        None => (rest, None),
    };
    let dims = parse_list(dims.strip_prefix('[')?.strip_suffix(']')?)?;
    let [groups, size] = shape.as_slice() else {
        return None;
    };
    let perm = perm.unwrap_or_else(|| (0..dims.len() as i64).collect());
    if perm.len() != dims.len() {
        return None;
    }
    // Walk the transposed array in row-major order, reading ids from the original layout.
    let tdims: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
    let count: i64 = tdims.iter().product();
    if count != groups * size {
        return None;
    }
    let mut strides = vec![1i64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    let mut ids = Vec::with_capacity(count as usize);
    let mut index = vec![0i64; tdims.len()];
    for _ in 0..count {
        ids.push(
            index
                .iter()
                .zip(&perm)
                .map(|(&i, &p)| i * strides[p as usize])
                .sum(),
        );
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < tdims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Some(ids.chunks(*size as usize).map(<[i64]>::to_vec).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pid(r: u32, p: u32) -> ProcessId {
        ProcessId::new(r, p)
    }

    #[test]
    fn parses_group_syntaxes() {
        assert_eq!(
            parse_groups("{{0,1},{2,3}}"),
            Some(vec![vec![0, 1], vec![2, 3]])
        );
        assert_eq!(parse_groups("{}"), Some(vec![]));
        assert_eq!(parse_groups("{{0,1},{2,-1}}").unwrap()[1], vec![2, -1]);
        // XLA: [2,2]<=[4] is {{0,1},{2,3}}; [2,2]<=[2,2]T(1,0) is {{0,2},{1,3}}.
        assert_eq!(
            parse_groups("[2,2]<=[4]"),
            Some(vec![vec![0, 1], vec![2, 3]])
        );
        assert_eq!(
            parse_groups("[2,2]<=[2,2]T(1,0)"),
            Some(vec![vec![0, 2], vec![1, 3]])
        );
        assert_eq!(parse_groups("{{0,1}"), None);
    }

    #[test]
    fn spec_group_modes() {
        // StableHLO spec examples on a 2x2 grid with replica_groups = [[0, 1]].
        let g = vec![vec![0, 1]];
        assert_eq!(
            process_groups(&g, GroupMode::CrossReplica, 2, 2).unwrap(),
            vec![vec![pid(0, 0), pid(1, 0)], vec![pid(0, 1), pid(1, 1)]]
        );
        assert_eq!(
            process_groups(&g, GroupMode::CrossPartition, 2, 2).unwrap(),
            vec![vec![pid(0, 0), pid(0, 1)], vec![pid(1, 0), pid(1, 1)]]
        );
        assert_eq!(
            process_groups(&g, GroupMode::CrossReplicaAndPartition, 2, 2).unwrap(),
            vec![vec![pid(0, 0), pid(1, 0), pid(0, 1), pid(1, 1)]]
        );
        // Flattened ids: device 1 is (replica 0, partition 1) on a 2x2 grid.
        assert_eq!(
            process_groups(&g, GroupMode::FlattenedIds, 2, 2).unwrap(),
            vec![vec![pid(0, 0), pid(0, 1)]]
        );
        // Padding and out-of-grid ids.
        assert_eq!(
            process_groups(&[vec![0, 1], vec![2, -1]], GroupMode::CrossReplica, 3, 1).unwrap(),
            vec![vec![pid(0, 0), pid(1, 0)], vec![pid(2, 0)]]
        );
        assert!(process_groups(&g, GroupMode::CrossReplica, 1, 1).is_err());
        assert_eq!(
            process_groups(&[], GroupMode::CrossReplica, 1, 1).unwrap(),
            vec![vec![pid(0, 0)]]
        );
    }

    #[test]
    fn modes_follow_the_spec() {
        let mut a = CollectiveAttributes::default();
        assert_eq!(a.mode(Opcode::AllReduce).unwrap(), GroupMode::CrossReplica);
        a.channel_id = Some(0);
        assert_eq!(a.mode(Opcode::AllGather).unwrap(), GroupMode::CrossReplica);
        a.channel_id = Some(1);
        assert_eq!(
            a.mode(Opcode::AllGather).unwrap(),
            GroupMode::CrossReplicaAndPartition
        );
        assert_eq!(a.mode(Opcode::AllToAll).unwrap(), GroupMode::CrossPartition);
        a.use_global_device_ids = true;
        assert_eq!(
            a.mode(Opcode::ReduceScatter).unwrap(),
            GroupMode::FlattenedIds
        );
        a.channel_id = None;
        assert!(a.mode(Opcode::AllReduce).is_err());
    }
}
