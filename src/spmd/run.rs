//! A partitioned module's device grid and its global values: global arguments sharded by
//! the entry parameters' shardings, global results assembled by the result's sharding.
//! (Running the devices is the runtime's; `xlac run --partitions` strings them together.)

use super::shards;
use crate::ir::sharding::HloSharding;
use crate::ir::{ArrayLiteral, Literal, Module, Shape};

/// The device grid of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Replicas.
    pub replicas: usize,
    /// Partitions per replica.
    pub partitions: usize,
    /// The device each (replica, partition) runs on, in order `replica * partitions +
    /// partition` (identity by default; jax's mesh order otherwise).
    pub device_assignment: Vec<i64>,
}

impl Grid {
    /// Number of devices.
    pub fn devices(&self) -> usize {
        self.replicas * self.partitions
    }
}

/// The entry parameters' shardings (replicated when absent).
pub fn parameter_shardings(module: &Module) -> Vec<HloSharding> {
    let entry = module.entry_computation();
    entry
        .parameters()
        .iter()
        .map(|&p| {
            entry.instrs[p]
                .sharding
                .clone()
                .unwrap_or(HloSharding::Replicated)
        })
        .collect()
}

/// The result's sharding per leaf (depth-first), replicated when absent.
pub fn result_shardings(module: &Module) -> Vec<HloSharding> {
    let entry = module.entry_computation();
    let root = entry.root_instr();
    let leaves = root.shape.leaves().len();
    // A tuple sharding has an entry for every leaf, tokens included.
    let tokens = token_leaves(&root.shape);
    match &root.sharding {
        Some(HloSharding::Tuple(v)) if v.len() == leaves => v.clone(),
        Some(HloSharding::Tuple(v)) if v.len() == tokens.len() => v
            .iter()
            .zip(&tokens)
            .filter(|(_, token)| !**token)
            .map(|(s, _)| s.clone())
            .collect(),
        Some(s) if !matches!(s, HloSharding::Tuple(_)) => vec![s.clone(); leaves],
        _ => vec![HloSharding::Replicated; leaves],
    }
}

/// For every leaf of `shape` in order, tokens included: whether it is a token (or another
/// leaf that holds no array).
fn token_leaves(shape: &Shape) -> Vec<bool> {
    match shape {
        Shape::Tuple(elements) => elements.iter().flat_map(token_leaves).collect(),
        Shape::Array(_) => vec![false],
        _ => vec![true],
    }
}

/// The global shape of a per-partition array held in `sharding` (even splits).
pub fn global_dims(local: &[i64], sharding: &HloSharding) -> Vec<i64> {
    local
        .iter()
        .zip(sharding.tile_counts(local.len()))
        .map(|(&d, t)| d * t)
        .collect()
}

/// Each device's arguments: its shard of every global argument.
pub fn shard_arguments(
    global: &[Literal],
    shardings: &[HloSharding],
    grid: &Grid,
) -> Result<Vec<Vec<Literal>>, String> {
    let n = grid.partitions as i64;
    let mut per_partition: Vec<Vec<Literal>> = vec![Vec::new(); grid.partitions];
    for (i, (arg, s)) in global.iter().zip(shardings).enumerate() {
        match arg {
            Literal::Array(a) => {
                s.validate(a.shape.rank(), n)
                    .map_err(|e| format!("parameter {i}: {e}"))?;
                // An unreduced parameter: the first partition of each group holds the
                // value, the others zeros (their sum is the value).
                let first = s.unreduced_coordinates(a.shape.rank(), n);
                let split = s.without_unreduced();
                for (p, out) in per_partition.iter_mut().enumerate() {
                    let shard = shards::shard(a, &split, n, p as i64);
                    let shard = match &first {
                        Some(u) if u[p] != 0 => ArrayLiteral::zeros(shard.shape),
                        _ => shard,
                    };
                    out.push(Literal::Array(shard));
                }
            }
            other => {
                for out in per_partition.iter_mut() {
                    out.push(other.clone());
                }
            }
        }
    }
    Ok((0..grid.devices())
        .map(|d| per_partition[d % grid.partitions].clone())
        .collect())
}

/// The global result leaves (of `global` shape) from every device's result; replicas after
/// the first are ignored (they computed the same).
pub fn assemble_results(
    per_device: &[Literal],
    shardings: &[HloSharding],
    global: &Shape,
    grid: &Grid,
) -> Result<Vec<ArrayLiteral>, String> {
    let leaves = global.leaves();
    let mut out = Vec::new();
    for (i, (shape, s)) in leaves.iter().zip(shardings).enumerate() {
        if s.has_unreduced() {
            return Err(format!(
                "result {i} is unreduced ({s}): the devices hold partial values, which \
                 are not assembled; reshard it in the program"
            ));
        }
        let shards: Vec<ArrayLiteral> = per_device[..grid.partitions]
            .iter()
            .map(|r| {
                r.leaves()
                    .get(i)
                    .map(|a| (*a).clone())
                    .ok_or_else(|| format!("a device returned no result {i}"))
            })
            .collect::<Result<_, _>>()?;
        out.push(
            shards::assemble(&shards, s, &shape.dims).map_err(|e| format!("result {i}: {e}"))?,
        );
    }
    Ok(out)
}
