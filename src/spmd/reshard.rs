//! The reshard table: how a value held in one tiling gets to another.
//! XLA: `PartitionedHlo::ReshardNoCache` (spmd_partitioner.cc).
//!
//! | from → to | how |
//! |---|---|
//! | the same tiling | nothing |
//! | every partition already holds its new tile | local `dynamic-slice` at offsets from a table indexed by `partition-id` (padded first when a split is uneven) |
//! | one dimension split less | `all-gather` along it within the groups that hold the other parts (then a `slice` off the padding) |
//! | a split moves from dimension a to b | `reshape` + `all-to-all` + `transpose` + `reshape` |
//! | anything else | one dimension gathered first (the one after which a direct step exists, cheapest), else every split dimension gathered, then a local slice |
//! | unreduced → anything else | `all-reduce` (sum) over the unreduced groups first, then the rows above |
//! | → unreduced | the rows above to the reduced split, then the first partition of each unreduced group keeps the value and the others hold zeros (`select` on the partition id): no collective |
//! | unreduced → the same unreduced groups | nothing |

use super::rules::reduction_groups;
use super::tiling::Tiling;

/// One step of a reshard.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Each partition slices its new tile out of what it holds.
    LocalSlice {
        /// The tiling after the step.
        to: Tiling,
    },
    /// All-gather along `dim` within `groups` (each in concatenation order).
    AllGather {
        /// The gathered dimension.
        dim: usize,
        /// Replica groups.
        groups: Vec<Vec<i64>>,
        /// The tiling after the step.
        to: Tiling,
    },
    /// The split moves from dimension `from_dim` to `to_dim`.
    AllToAll {
        /// The dimension that was split.
        from_dim: usize,
        /// The dimension that will be.
        to_dim: usize,
        /// Replica groups, each in chunk order.
        groups: Vec<Vec<i64>>,
        /// The tiling after the step.
        to: Tiling,
    },
    /// Partial values summed over the unreduced groups (`all-reduce`).
    AllReduce {
        /// Replica groups: the unreduced groups.
        groups: Vec<Vec<i64>>,
        /// The tiling after the step (reduced).
        to: Tiling,
    },
    /// A complete value made unreduced: partitions whose unreduced coordinate is 0 keep it,
    /// the others hold zeros.
    KeepOnFirst {
        /// The tiling after the step (unreduced).
        to: Tiling,
    },
}

impl Step {
    /// The tiling after this step.
    pub fn to(&self) -> &Tiling {
        match self {
            Step::LocalSlice { to }
            | Step::AllGather { to, .. }
            | Step::AllToAll { to, .. }
            | Step::AllReduce { to, .. }
            | Step::KeepOnFirst { to } => to,
        }
    }
}

fn shard(n: i64, t: i64) -> i64 {
    crate::ir::sharding::shard_size(n, t)
}

/// True if every partition's new tile lies inside what it holds (padding allowed where the
/// old tiling is unsplit).
fn local_slice_ok(dims: &[i64], from: &Tiling, to: &Tiling) -> bool {
    (0..from.partitions()).all(|p| {
        (0..dims.len()).all(|d| {
            if from.counts[d] == 1 {
                return true;
            }
            let (fs, fsz) = (from.start(dims, p, d), shard(dims[d], from.counts[d]));
            let (ts, tsz) = (to.start(dims, p, d), shard(dims[d], to.counts[d]));
            ts >= fs && ts + tsz <= fs + fsz
        })
    })
}

/// The all-gather step from `from` to `to` along `dim`, if that is the only difference.
fn all_gather(dims: &[i64], from: &Tiling, to: &Tiling) -> Option<Step> {
    let n = from.partitions();
    let differing: Vec<usize> = (0..dims.len())
        .filter(|&d| {
            (0..n).any(|p| from.coords[p][d] != to.coords[p][d]) || from.counts[d] != to.counts[d]
        })
        .collect();
    let [dim] = differing.as_slice() else {
        return None;
    };
    let dim = *dim;
    let (ft, tt) = (from.counts[dim], to.counts[dim]);
    if tt >= ft || ft % tt != 0 {
        return None;
    }
    let g = ft / tt;
    let (fsz, tsz) = (shard(dims[dim], ft), shard(dims[dim], tt));
    if tsz > g * fsz {
        return None;
    }
    // Each of `to`'s tiles must start where its first gathered piece does.
    if (0..n).any(|p| to.coords[p][dim] * tsz != to.coords[p][dim] * g * fsz) {
        return None;
    }
    let mut groups = reduction_groups(n, |p| to.coords[p].clone(), |p| vec![from.coords[p][dim]])?;
    for grp in &mut groups {
        grp.sort_by_key(|&p| from.coords[p as usize][dim]);
        let base = to.coords[grp[0] as usize][dim] * g;
        if grp.len() as i64 != g
            || grp
                .iter()
                .enumerate()
                .any(|(k, &p)| from.coords[p as usize][dim] != base + k as i64)
        {
            return None;
        }
    }
    groups.sort();
    Some(Step::AllGather {
        dim,
        groups,
        to: to.clone(),
    })
}

/// The all-to-all step moving a split from one dimension to another, if that is the only
/// difference and both divide evenly.
fn all_to_all(dims: &[i64], from: &Tiling, to: &Tiling) -> Option<Step> {
    let n = from.partitions();
    let differing: Vec<usize> = (0..dims.len())
        .filter(|&d| {
            (0..n).any(|p| from.coords[p][d] != to.coords[p][d]) || from.counts[d] != to.counts[d]
        })
        .collect();
    let &[x, y] = differing.as_slice() else {
        return None;
    };
    // a: split less afterwards; b: split more.
    let (a, b) = if from.counts[x] > to.counts[x] {
        (x, y)
    } else {
        (y, x)
    };
    if from.counts[a] <= to.counts[a] || to.counts[b] <= from.counts[b] {
        return None;
    }
    if from.counts[a] % to.counts[a] != 0 || to.counts[b] % from.counts[b] != 0 {
        return None;
    }
    let g = from.counts[a] / to.counts[a];
    if to.counts[b] / from.counts[b] != g
        || dims[a] % from.counts[a] != 0
        || dims[b] % to.counts[b] != 0
    {
        return None;
    }
    let k_of = |p: usize| -> Option<i64> {
        let ka = from.coords[p][a] - to.coords[p][a] * g;
        let kb = to.coords[p][b] - from.coords[p][b] * g;
        (ka == kb && (0..g).contains(&ka)).then_some(ka)
    };
    if (0..n).any(|p| k_of(p).is_none()) {
        return None;
    }
    let others: Vec<usize> = (0..dims.len()).filter(|&d| d != a && d != b).collect();
    let mut groups = reduction_groups(
        n,
        |p| {
            let mut key: Vec<i64> = others.iter().map(|&d| from.coords[p][d]).collect();
            key.push(to.coords[p][a]);
            key.push(from.coords[p][b]);
            key
        },
        |p| vec![k_of(p).unwrap_or(0)],
    )?;
    for grp in &mut groups {
        grp.sort_by_key(|&p| k_of(p as usize).unwrap_or(0));
        if grp.len() as i64 != g {
            return None;
        }
    }
    groups.sort();
    Some(Step::AllToAll {
        from_dim: a,
        to_dim: b,
        groups,
        to: to.clone(),
    })
}

/// One step from `from` to `to`, if one exists.
fn direct(dims: &[i64], from: &Tiling, to: &Tiling) -> Option<Step> {
    if local_slice_ok(dims, from, to) {
        return Some(Step::LocalSlice { to: to.clone() });
    }
    all_gather(dims, from, to).or_else(|| all_to_all(dims, from, to))
}

/// Bytes a step moves between partitions, per partition (the table's cost model).
pub fn step_cost(dims: &[i64], elem_bytes: i64, from: &Tiling, step: &Step) -> i64 {
    let bytes = |t: &Tiling| t.shard_dims(dims).iter().product::<i64>() * elem_bytes;
    match step {
        Step::LocalSlice { .. } | Step::KeepOnFirst { .. } => 0,
        Step::AllGather { to, .. } => bytes(to),
        Step::AllToAll { .. } | Step::AllReduce { .. } => bytes(from),
    }
}

/// The steps from `from` to `to` (empty when they hold the value the same way).
pub fn plan(dims: &[i64], elem_bytes: i64, from: &Tiling, to: &Tiling) -> Vec<Step> {
    if from.same_as(to) {
        return Vec::new();
    }
    if !from.is_unreduced() && !to.is_unreduced() {
        return plan_reduced(dims, elem_bytes, from, to);
    }
    let mut steps = Vec::new();
    let mut cur = from.clone();
    if from.is_unreduced() {
        cur = from.reduced();
        steps.push(Step::AllReduce {
            groups: from.unreduced_groups(),
            to: cur.clone(),
        });
    }
    let split = to.reduced();
    steps.extend(plan_reduced(dims, elem_bytes, &cur, &split));
    if to.is_unreduced() {
        steps.push(Step::KeepOnFirst { to: to.clone() });
    }
    steps
}

/// [`plan`] between two reduced tilings.
fn plan_reduced(dims: &[i64], elem_bytes: i64, from: &Tiling, to: &Tiling) -> Vec<Step> {
    if from == to {
        return Vec::new();
    }
    if let Some(s) = direct(dims, from, to) {
        return vec![s];
    }
    // Gather one dimension, then one direct step: the cheapest such pair.
    let mut best: Option<(i64, Vec<Step>)> = None;
    for d in 0..dims.len() {
        if from.counts[d] == 1 {
            continue;
        }
        let mid = from.without_dim(d);
        let Some(g) = all_gather(dims, from, &mid) else {
            continue;
        };
        let second = if mid == *to {
            None
        } else {
            match direct(dims, &mid, to) {
                Some(s) => Some(s),
                None => continue,
            }
        };
        let mut cost = step_cost(dims, elem_bytes, from, &g);
        if let Some(s) = &second {
            cost += step_cost(dims, elem_bytes, &mid, s);
        }
        if best.as_ref().is_none_or(|(c, _)| cost < *c) {
            best = Some((cost, std::iter::once(g).chain(second).collect()));
        }
    }
    if let Some((_, steps)) = best {
        return steps;
    }
    // Replicate (gather every split dimension), then slice.
    let mut steps = Vec::new();
    let mut cur = from.clone();
    for d in 0..dims.len() {
        if cur.counts[d] == 1 {
            continue;
        }
        let next = cur.without_dim(d);
        match all_gather(dims, &cur, &next) {
            Some(s) => steps.push(s),
            None => {
                // Uneven pieces that do not concatenate in place: gather along the padded
                // shards anyway (the slice below takes the valid part).
                steps.push(Step::AllGather {
                    dim: d,
                    groups: gather_groups(&cur, d),
                    to: next.clone(),
                });
            }
        }
        cur = next;
    }
    if cur != *to {
        steps.push(Step::LocalSlice { to: to.clone() });
    }
    steps
}

/// Groups that gather dimension `d` completely, in coordinate order.
fn gather_groups(t: &Tiling, d: usize) -> Vec<Vec<i64>> {
    let n = t.partitions();
    let others: Vec<usize> = (0..t.rank()).filter(|&x| x != d).collect();
    let mut groups = reduction_groups(
        n,
        |p| others.iter().map(|&x| t.coords[p][x]).collect(),
        |p| vec![t.coords[p][d]],
    )
    .unwrap_or_else(|| vec![(0..n as i64).collect()]);
    for g in &mut groups {
        g.sort_by_key(|&p| t.coords[p as usize][d]);
    }
    groups.sort();
    groups
}

/// Total cost of [`plan`].
pub fn cost(dims: &[i64], elem_bytes: i64, from: &Tiling, to: &Tiling) -> i64 {
    let mut cur = from.clone();
    let mut total = 0;
    for s in plan(dims, elem_bytes, from, to) {
        total += step_cost(dims, elem_bytes, &cur, &s);
        cur = s.to().clone();
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::HloSharding;

    fn t(s: &str, rank: usize, n: usize) -> Tiling {
        Tiling::of(&HloSharding::parse(s).unwrap(), rank, n)
    }

    #[test]
    fn table_cases() {
        let dims = [64, 32];
        let xy = t("{devices=[4,2]<=[8]}", 2, 8);
        let x_ = t("{devices=[4,1,2]<=[8] last_tile_dim_replicate}", 2, 8);
        let rep = Tiling::replicated(2, 8);
        // Replicated -> split: local slice.
        assert!(matches!(
            plan(&dims, 4, &rep, &xy)[..],
            [Step::LocalSlice { .. }]
        ));
        // Split -> less split: all-gather over y, groups {0,1},{2,3},...
        match &plan(&dims, 4, &xy, &x_)[..] {
            [Step::AllGather { dim: 1, groups, .. }] => {
                assert_eq!(
                    groups,
                    &vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]]
                )
            }
            p => panic!("{p:?}"),
        }
        // wsc_reshard: P('x','y') -> P(None,'x'): gather y, then all-to-all x from 0 to 1.
        let to = t("{devices=[1,4,2]<=[8] last_tile_dim_replicate}", 2, 8);
        match &plan(&dims, 4, &xy, &to)[..] {
            [
                Step::AllGather { dim: 1, .. },
                Step::AllToAll {
                    from_dim: 0,
                    to_dim: 1,
                    groups,
                    ..
                },
            ] => {
                assert_eq!(groups, &vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]])
            }
            p => panic!("{p:?}"),
        }
        // Unreduced along y (x=4,y=2) -> P('x'): one all-reduce over the y pairs.
        let xu = t("{devices=[4,1,2]<=[8] last_tile_dims={unreduced}}", 2, 8);
        match &plan(&dims, 4, &xu, &x_)[..] {
            [Step::AllReduce { groups, .. }] => {
                assert_eq!(
                    groups,
                    &vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]]
                )
            }
            p => panic!("{p:?}"),
        }
        // P('x') -> unreduced along y: no collective.
        assert!(matches!(
            plan(&dims, 4, &x_, &xu)[..],
            [Step::KeepOnFirst { .. }]
        ));
        // Unreduced -> the same: nothing.
        assert!(plan(&dims, 4, &xu, &xu).is_empty());
        // Uneven 10 on 4 -> replicated: all-gather (12), then the slice is part of the step.
        let u = t("{devices=[4]<=[4]}", 1, 4);
        assert!(matches!(
            plan(&[10], 4, &u, &Tiling::replicated(1, 4))[..],
            [Step::AllGather { dim: 0, .. }]
        ));
    }
}
