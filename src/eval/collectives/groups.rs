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

/// `{{0,1},{2,3}}`, `{}`, XLA's iota form `[G,S]<=[N]` / `[G,S]<=[a,b]T(1,0)`, or its mesh
/// form `mesh['a'=4,'b'=2] {'b'}` (optionally `, device_ids=(...)` after the mesh).
pub fn parse_groups(v: &str) -> Option<Vec<Vec<i64>>> {
    let v = v.trim();
    if v.starts_with('[') {
        return parse_iota_groups(v);
    }
    if let Some(rest) = v.strip_prefix("mesh") {
        return parse_mesh_groups(rest.trim_start());
    }
    parse_nested(v)
}

/// The ids `0..prod(dims)` laid out with `dims`, transposed by `perm`, read row-major.
fn iota_ids(dims: &[i64], perm: &[i64]) -> Option<Vec<i64>> {
    if perm.len() != dims.len() || dims.iter().any(|&d| d < 0) {
        return None;
    }
    let mut seen = vec![false; dims.len()];
    for &p in perm {
        let p = usize::try_from(p).ok().filter(|&p| p < dims.len())?;
        if std::mem::replace(&mut seen[p], true) {
            return None;
        }
    }
    let tdims: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
    let count = tdims.iter().try_fold(1i64, |a, &d| a.checked_mul(d))?;
    // Group lists are small; refuse absurd sizes rather than allocate them.
    if count > 1 << 20 {
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
                .zip(perm)
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
    Some(ids)
}

/// `[R...]` or `[R...]T(p...)` (an iota array), or a plain comma list of ids.
fn parse_id_array(v: &str) -> Option<Vec<i64>> {
    let v = v.trim();
    let Some(body) = v.strip_prefix('[') else {
        return parse_list(v);
    };
    let close = body.find(']')?;
    let dims = parse_list(&body[..close])?;
    let rest = body[close + 1..].trim();
    let perm = match rest.strip_prefix('T') {
        Some(p) => parse_list(p.trim().strip_prefix('(')?.strip_suffix(')')?)?,
        None if rest.is_empty() => (0..dims.len() as i64).collect(),
        None => return None,
    };
    iota_ids(&dims, &perm)
}

/// XLA's mesh form (after `mesh`): `['a'=4,'b'=2][, device_ids=(...)] {'b'[, ...]}`, where
/// an axis reference may name a sub-axis `'a':(pre)size`. The groups are the device array,
/// shaped like the mesh, with the named axes moved last, cut into rows of their size.
fn parse_mesh_groups(v: &str) -> Option<Vec<Vec<i64>>> {
    let body = v.strip_prefix('[')?;
    let close = body.find(']')?;
    let mut axes: Vec<(String, i64)> = Vec::new();
    for part in body[..close]
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let (name, size) = part.split_once('=')?;
        let name = name.trim().trim_matches('\'').to_string();
        let size: i64 = size.trim().parse().ok().filter(|&s| s > 0)?;
        axes.push((name, size));
    }
    let mut rest = body[close + 1..].trim_start();
    let total = axes.iter().try_fold(1i64, |a, (_, s)| a.checked_mul(*s))?;
    // Device meshes are small; refuse absurd sizes rather than allocate them.
    if total > 1 << 20 {
        return None;
    }
    let ids = match rest.strip_prefix(',') {
        Some(r) => {
            let r = r.trim_start().strip_prefix("device_ids")?.trim_start();
            let r = r.strip_prefix('=')?.trim_start().strip_prefix('(')?;
            let end = r.find(')').and_then(|i| {
                // `T(...)` nests one pair of parentheses.
                let after = &r[i + 1..];
                if r[..i].contains("T(") {
                    after.find(')').map(|j| i + 1 + j)
                } else {
                    Some(i)
                }
            })?;
            let ids = parse_id_array(&r[..end])?;
            rest = r[end + 1..].trim_start();
            ids
        }
        None => (0..total).collect(),
    };
    if ids.len() as i64 != total {
        return None;
    }
    let refs = rest.strip_prefix('{')?.strip_suffix('}')?;
    // Factor dims: each axis split into [pre, size, post] when a sub-axis names it.
    let mut factors: Vec<i64> = Vec::new();
    let mut axis_factor: Vec<(usize, usize)> = Vec::new(); // first factor, count
    let mut group_factors: Vec<usize> = Vec::new();
    let mut subs: Vec<(usize, i64, i64)> = Vec::new();
    for r in refs.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        let (name, sub) = match r.find(":(") {
            Some(i) => (&r[..i], Some(&r[i + 2..])),
            None => (r, None),
        };
        let name = name.trim().trim_matches('\'');
        let axis = axes.iter().position(|(n, _)| n == name)?;
        if let Some(sub) = sub {
            let (pre, size) = sub.split_once(')')?;
            let pre: i64 = pre.trim().parse().ok().filter(|&p| p > 0)?;
            let size: i64 = size.trim().parse().ok().filter(|&s| s > 0)?;
            if axes[axis].1 % pre.checked_mul(size)? != 0 {
                return None;
            }
            subs.push((axis, pre, size));
        }
    }
    for (a, (_, size)) in axes.iter().enumerate() {
        let first = factors.len();
        match subs.iter().find(|s| s.0 == a) {
            Some(&(_, pre, sub)) => {
                factors.extend([pre, sub, size / (pre * sub)]);
                axis_factor.push((first, 3));
            }
            None => {
                factors.push(*size);
                axis_factor.push((first, 1));
            }
        }
    }
    // Group axes in the order the braces list them.
    for r in refs.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        let name = r.split(":(").next()?.trim().trim_matches('\'');
        let axis = axes.iter().position(|(n, _)| n == name)?;
        let (first, count) = axis_factor[axis];
        group_factors.push(if count == 3 { first + 1 } else { first });
    }
    let mut perm: Vec<i64> = (0..factors.len())
        .filter(|f| !group_factors.contains(f))
        .map(|f| f as i64)
        .collect();
    perm.extend(group_factors.iter().map(|&f| f as i64));
    let size: i64 = group_factors.iter().map(|&f| factors[f]).product();
    let order = iota_ids(&factors, &perm)?;
    let devices: Vec<i64> = order.iter().map(|&i| ids[i as usize]).collect();
    Some(
        devices
            .chunks(size.max(1) as usize)
            .map(<[i64]>::to_vec)
            .collect(),
    )
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
    let ids = parse_id_array(rest)?;
    let [groups, size] = shape.as_slice() else {
        return None;
    };
    if Some(ids.len() as i64) != groups.checked_mul(*size) || *size <= 0 {
        return None;
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
        // XLA's mesh form.
        assert_eq!(
            parse_groups("mesh['axis_0'=4,'axis_1'=2] {'axis_1'}"),
            Some(vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]])
        );
        assert_eq!(
            parse_groups("mesh['axis_0'=4,'axis_1'=2] {'axis_0'}"),
            Some(vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]])
        );
        assert_eq!(
            parse_groups(
                "mesh['axis_0'=2,'axis_1'=1,'axis_2'=4], device_ids=([4,2]T(1,0)) {'axis_2'}"
            ),
            Some(vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]])
        );
        assert_eq!(
            parse_groups("mesh['x'=8] {'x':(2)2}"),
            Some(vec![vec![0, 2], vec![1, 3], vec![4, 6], vec![5, 7]])
        );
        assert_eq!(parse_groups("mesh['x'=8] {'y'}"), None);
        assert_eq!(parse_groups("mesh['x'=1000000000] {'x'}"), None);
    }

    /// A bounded fuzz loop over the replica-group parser: mutations of valid texts
    /// (truncations, byte flips, repeats) never panic, hang or allocate absurd lists.
    #[test]
    fn group_parser_survives_mutations() {
        let seeds = [
            "{{0,1},{2,3}}",
            "[2,4]<=[4,2]T(1,0)",
            "mesh['axis_0'=4,'axis_1'=2] {'axis_1'}",
            "mesh['axis_0'=2,'axis_1'=1,'axis_2'=4], device_ids=([4,2]T(1,0)) {'axis_2'}",
            "mesh['x'=8] {'x':(2)2}",
        ];
        let alphabet: &[u8] = b"{}[](),=:'T<-0123456789xmesh ";
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let mut t: Vec<u8> = seeds[(next() % seeds.len() as u64) as usize]
                .as_bytes()
                .to_vec();
            for _ in 0..(next() % 4 + 1) {
                let i = (next() % (t.len() as u64 + 1)) as usize;
                match next() % 4 {
                    0 => t.truncate(i),
                    1 if i < t.len() => t[i] = alphabet[(next() % alphabet.len() as u64) as usize],
                    2 => t.insert(
                        i.min(t.len()),
                        alphabet[(next() % alphabet.len() as u64) as usize],
                    ),
                    _ => {
                        let tail = t[i.min(t.len())..].to_vec();
                        t.extend_from_slice(&tail);
                    }
                }
            }
            if let Ok(text) = std::str::from_utf8(&t)
                && let Some(groups) = parse_groups(text)
            {
                assert!(groups.iter().map(Vec::len).sum::<usize>() <= 1 << 20);
            }
        }
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
