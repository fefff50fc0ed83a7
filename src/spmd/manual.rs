//! `shard_map` over some mesh axes only (partially manual regions). XLA keeps the other
//! (free) axes as ordinary tiled shardings inside the body (`last_tile_dims={manual}`):
//! the body is one SPMD program per manual group (the partitions that differ only along
//! the free axes), partitioned along the free axes. XLA: the grouped partitioning of
//! `spmd_partitioner.cc` (`CreatePerGroupPartitioningState`, `GetManualSubgroupSharding`,
//! hlo_sharding_util's `GroupShardingOnDims`).
//!
//! [`ManualGroups`] numbers the partitions of each group alike (local partition `k` of
//! every group sits at the same place along the free axes), so one tiling over the local
//! partitions describes a body value in every group at once; collectives made inside the
//! body use the local groups in every manual group, and `partition-id` tables are indexed
//! by the global partition.

use crate::ir::sharding::{
    HloSharding, SdyMesh, SdySharding, SubgroupKind, TileAssignment, frontend_attribute,
    parse_frontend_meshes, parse_manual_axes,
};
use crate::ir::{ComputationId, InstrId, Instruction, Module, Op, Opcode, Shape};
use crate::pipeline::PassError;

use super::tiling::Tiling;

/// The manual groups of a partially manual region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManualGroups {
    /// Per manual group, its partitions by local partition (the same free-axes position at
    /// the same index in every group).
    pub groups: Vec<Vec<i64>>,
    /// Per global partition, its (group, local partition).
    pub of: Vec<(usize, usize)>,
}

impl ManualGroups {
    /// The groups of a sharding with a manual subgroup (`devices=[...] last_tile_dims={manual,
    /// ...}`) over `n` partitions: partitions at the same manual coordinate form a group,
    /// ordered row-major over the other device-array dimensions. `None` for a sharding
    /// without a manual subgroup, or one that is manual on every partition at once.
    pub fn of_sharding(s: &HloSharding, n: usize) -> Option<ManualGroups> {
        let s = match s {
            HloSharding::Tuple(v) => v.iter().find(|e| matches!(e, HloSharding::Tiled(_)))?,
            s => s,
        };
        let HloSharding::Tiled(t) = s else {
            return None;
        };
        let k = t
            .last_tile_dims
            .iter()
            .position(|&k| k == SubgroupKind::Manual)?;
        let dims = t.tiles.dims().to_vec();
        let manual_dim = t.data_rank() + usize::from(t.last_tile_dim_replicate) + k;
        let size = *dims.get(manual_dim)? as usize;
        if size <= 1 || size >= n || !n.is_multiple_of(size) {
            return None;
        }
        let devices = t.tiles.devices();
        if devices.len() != n {
            return None;
        }
        let mut groups = vec![Vec::new(); size];
        for (flat, &d) in devices.iter().enumerate() {
            let mut rem = flat;
            let mut coord = vec![0usize; dims.len()];
            for j in (0..dims.len()).rev() {
                coord[j] = rem % dims[j] as usize;
                rem /= dims[j] as usize;
            }
            groups[coord[manual_dim]].push(d);
        }
        ManualGroups::from_groups(groups, n)
    }

    /// The groups of a Shardy mesh (axis sizes in order, partitions numbered row-major)
    /// manual along the axes `manual`: ordered row-major over the free axes.
    pub fn of_mesh(sizes: &[i64], manual: &[usize]) -> Option<ManualGroups> {
        let n: i64 = sizes.iter().product();
        let free: Vec<usize> = (0..sizes.len()).filter(|a| !manual.contains(a)).collect();
        let m: i64 = manual.iter().map(|&a| sizes[a]).product();
        let f: i64 = free.iter().map(|&a| sizes[a]).product();
        if m <= 1 || f <= 1 {
            return None;
        }
        // Device array transposed to [manual axes..., free axes...].
        let mut order = manual.to_vec();
        order.extend(&free);
        let devices = TileAssignment::iota(vec![m, f], sizes, &order).devices();
        let groups: Vec<Vec<i64>> = devices.chunks(f as usize).map(<[i64]>::to_vec).collect();
        ManualGroups::from_groups(groups, n as usize)
    }

    fn from_groups(groups: Vec<Vec<i64>>, n: usize) -> Option<ManualGroups> {
        let per = groups.first()?.len();
        let mut of = vec![(usize::MAX, 0); n];
        for (g, members) in groups.iter().enumerate() {
            if members.len() != per {
                return None;
            }
            for (k, &p) in members.iter().enumerate() {
                let slot = of.get_mut(usize::try_from(p).ok()?)?;
                if slot.0 != usize::MAX {
                    return None;
                }
                *slot = (g, k);
            }
        }
        if of.iter().any(|o| o.0 == usize::MAX) {
            return None;
        }
        Some(ManualGroups { groups, of })
    }

    /// Partitions per group (the body's partition count).
    pub fn local_partitions(&self) -> usize {
        self.groups[0].len()
    }

    /// Partitions in all.
    pub fn partitions(&self) -> usize {
        self.of.len()
    }

    /// A global tiling (manual axes as replication) as a tiling over the local partitions,
    /// if every group holds the same tiles at the same local partitions.
    pub fn local_tiling(&self, global: &Tiling) -> Option<Tiling> {
        let coords: Vec<Vec<i64>> = self.groups[0]
            .iter()
            .map(|&p| global.coords[p as usize].clone())
            .collect();
        for g in &self.groups[1..] {
            for (k, &p) in g.iter().enumerate() {
                if global.coords[p as usize] != coords[k] {
                    return None;
                }
            }
        }
        Tiling::from_parts(global.counts.clone(), coords)
    }

    /// A global sharding of an array of `rank` dimensions as the local one (over the local
    /// partitions), if it has one.
    pub fn local_sharding(&self, s: &HloSharding, rank: usize) -> Option<HloSharding> {
        if s.validate(rank, self.partitions() as i64).is_err() {
            return None;
        }
        let t = Tiling::of(s, rank, self.partitions());
        self.local_tiling(&t).map(|t| t.to_sharding())
    }

    /// The global tiling of a value whose manual part is `manual` (a global tiling that
    /// splits the array into the manual groups' pieces) and whose pieces are held in `local`
    /// within each group: per dimension, the manual split major, the local one minor.
    pub fn global_tiling(&self, manual: &Tiling, local: &Tiling) -> Option<Tiling> {
        let rank = manual.rank();
        if local.rank() != rank {
            return None;
        }
        let counts: Vec<i64> = (0..rank)
            .map(|d| manual.counts[d] * local.counts[d])
            .collect();
        let coords = (0..self.partitions())
            .map(|p| {
                let k = self.of[p].1;
                (0..rank)
                    .map(|d| manual.coords[p][d] * local.counts[d] + local.coords[k][d])
                    .collect()
            })
            .collect();
        Tiling::from_parts(counts, coords)
    }

    /// Local replica groups (over the local partitions) as the global groups: each local
    /// group in every manual group.
    pub fn global_groups(&self, local: &[Vec<i64>]) -> Vec<Vec<i64>> {
        let mut out = Vec::new();
        for g in &self.groups {
            for l in local {
                out.push(l.iter().map(|&k| g[k as usize]).collect());
            }
        }
        out.sort();
        out
    }

    /// A per-local-partition table as the per-global-partition one.
    pub fn global_values(&self, local: &[i64]) -> Vec<i64> {
        self.of.iter().map(|&(_, k)| local[k]).collect()
    }
}

/// The partially manual sharding of a `SPMDFullToShardShape` / `xla.sdy.GlobalToLocalShape`
/// instruction, if it is one (not manual on every partition).
pub fn region_sharding(instr: &Instruction) -> Option<&HloSharding> {
    let Op::CustomCall(cc) = &instr.op else {
        return None;
    };
    if !matches!(
        cc.target.as_str(),
        "SPMDFullToShardShape" | "xla.sdy.GlobalToLocalShape"
    ) {
        return None;
    }
    let s = instr.sharding.as_ref()?;
    let partial = match s {
        HloSharding::Tiled(t) => t.has_manual_subgroup(),
        HloSharding::Tuple(v) => v
            .iter()
            .any(|e| matches!(e, HloSharding::Tiled(t) if t.has_manual_subgroup())),
        _ => false,
    };
    partial.then_some(s)
}

/// True if a `Sharding` custom call constrains nothing inside a partially manual body:
/// every dimension open (`unspecified_dims` covering all, or Shardy's `{?}` on every
/// dimension with no axes) and no free axis used. XLA turns these into copies.
pub fn is_open_constraint(instr: &Instruction) -> bool {
    let Op::CustomCall(cc) = &instr.op else {
        return false;
    };
    if cc.target != "Sharding" {
        return false;
    }
    let rank = instr.shape.rank();
    if let Some(text) = instr
        .raw_attributes
        .iter()
        .find(|a| a.name == "frontend_attributes")
        .and_then(|a| crate::ir::sharding::frontend_attribute(&a.value, "xla.sdy.sharding"))
        && let Ok(list) = crate::ir::sharding::SdySharding::parse_per_value(&text)
        && let [s] = list.as_slice()
    {
        return s.dims.iter().all(|d| d.open && d.axes.is_empty());
    }
    let config = match &instr.backend_config {
        Some(crate::ir::BackendConfig::Quoted(b) | crate::ir::BackendConfig::Json(b)) => b.as_str(),
        None => "",
    };
    let unspecified = Some(config)
        .and_then(|b| b.trim_matches('"').strip_prefix("unspecified_dims=["))
        .and_then(|b| b.strip_suffix(']'))
        .map(|b| {
            b.split(',')
                .filter_map(|x| x.trim().parse::<usize>().ok())
                .collect::<Vec<usize>>()
        })
        .unwrap_or_default();
    let all_open = (0..rank).all(|d| unspecified.contains(&d));
    all_open
        && instr.sharding.as_ref().is_some_and(|s| {
            s.tile_counts(rank).iter().all(|&c| c == 1) || matches!(s, HloSharding::Replicated)
        })
}

/// A partially manual `shard_map` of a computation: the `call` of its body and the groups.
#[derive(Clone, Debug)]
pub struct Region {
    /// The `call` instruction (in the computation searched).
    pub call: InstrId,
    /// The body computation.
    pub body: ComputationId,
    /// The manual groups.
    pub groups: ManualGroups,
}

/// The module's Shardy meshes (`frontend_attributes={xla.sdy.meshes=...}`).
pub fn module_meshes(module: &Module) -> Result<Vec<SdyMesh>, PassError> {
    module
        .config
        .raw_attributes
        .iter()
        .find(|a| a.name == "frontend_attributes")
        .map(|a| parse_frontend_meshes(&a.value))
        .transpose()
        .map_err(|e| PassError::new(format!("xla.sdy.meshes: {e}")))
        .map(Option::unwrap_or_default)
}

/// The groups of a Shardy `xla.sdy.GlobalToLocalShape` manual along some mesh axes only.
fn sdy_groups(instr: &Instruction, meshes: &[SdyMesh]) -> Result<Option<ManualGroups>, PassError> {
    let Some(fa) = instr
        .raw_attributes
        .iter()
        .find(|a| a.name == "frontend_attributes")
    else {
        return Ok(None);
    };
    let (Some(axes), Some(ins)) = (
        frontend_attribute(&fa.value, "xla.sdy.manual_axes"),
        frontend_attribute(&fa.value, "xla.sdy.in_shardings"),
    ) else {
        return Ok(None);
    };
    let axes = parse_manual_axes(&axes).map_err(|e| PassError::new(e.to_string()))?;
    let list = SdySharding::parse_per_value(&ins).map_err(|e| PassError::new(e.to_string()))?;
    let Some(mesh) = list
        .first()
        .and_then(|s| meshes.iter().find(|m| m.name == s.mesh))
    else {
        return Ok(None);
    };
    let sizes: Vec<i64> = mesh.axes.iter().map(|a| a.1).collect();
    let manual: Vec<usize> = (0..sizes.len())
        .filter(|&i| axes.contains(&mesh.axes[i].0))
        .collect();
    if (0..sizes.len()).all(|i| manual.contains(&i) || sizes[i] == 1) {
        return Ok(None);
    }
    if mesh
        .device_ids
        .as_ref()
        .is_some_and(|ids| ids.iter().enumerate().any(|(i, &d)| d != i as i64))
    {
        return Err(PassError::new(format!(
            "`{}`: a shard_map over some axes of a mesh with its own device order is not supported",
            instr.name
        ))
        .unsupported());
    }
    ManualGroups::of_mesh(&sizes, &manual)
        .map(Some)
        .ok_or_else(|| {
            PassError::new(format!(
                "`{}`: no manual groups for axes {axes:?} of @{}",
                instr.name, mesh.name
            ))
        })
}

/// The partially manual `shard_map`s of computation `comp`: calls whose operands come from
/// `SPMDFullToShardShape` with a manual subgroup, or from a Shardy
/// `xla.sdy.GlobalToLocalShape` manual along some mesh axes only.
pub fn regions(
    module: &Module,
    comp: ComputationId,
    meshes: &[SdyMesh],
    n: usize,
) -> Result<Vec<Region>, PassError> {
    let c = &module.computations[comp];
    let mut out: Vec<Region> = Vec::new();
    for (id, instr) in c.iter() {
        let Op::Call { to_apply } = instr.op else {
            continue;
        };
        let mut found: Option<ManualGroups> = None;
        for &o in &instr.operands {
            let mut src = &c.instrs[o];
            if matches!(src.op, Op::GetTupleElement { .. }) {
                src = &c.instrs[src.operands[0]];
            }
            let g = match &src.op {
                Op::CustomCall(cc) if cc.target == "SPMDFullToShardShape" => {
                    match region_sharding(src) {
                        Some(s) => Some(ManualGroups::of_sharding(s, n).ok_or_else(|| {
                            PassError::new(format!(
                                "`{}`: sharding {s} has no manual groups",
                                src.name
                            ))
                        })?),
                        None => None,
                    }
                }
                Op::CustomCall(cc) if cc.target == "xla.sdy.GlobalToLocalShape" => {
                    sdy_groups(src, meshes)?
                }
                _ => None,
            };
            match (&found, g) {
                (_, None) => {}
                (None, Some(g)) => found = Some(g),
                (Some(f), Some(g)) if *f == g => {}
                (Some(_), Some(_)) => {
                    return Err(PassError::new(format!(
                        "`{}`: shard_map operands manual along different axes",
                        instr.name
                    ))
                    .unsupported());
                }
            }
        }
        let Some(groups) = found else {
            continue;
        };
        let calls = module
            .reachable_computations()
            .into_iter()
            .flat_map(|k| module.computations[k].iter().map(|(_, i)| i))
            .filter(|i| i.op.called_computations().contains(&to_apply))
            .count();
        if calls != 1 {
            return Err(PassError::new(format!(
                "`{}`: a partially manual shard_map body called from {calls} places",
                instr.name
            ))
            .unsupported());
        }
        out.push(Region {
            call: id,
            body: to_apply,
            groups,
        });
    }
    Ok(out)
}

/// Rewrites a partially manual body for propagation over its local partitions: its
/// parameters arrive whole within each group (replicated), open `Sharding` constraints
/// become copies (as XLA makes them), and every other sharding becomes the local one.
pub fn prepare_body(module: &mut Module, r: &Region) -> Result<(), PassError> {
    // The reducers of the body's collectives may carry sharding annotations of their own
    // (Shardy writes one on a psum's add): copies, as XLA makes them.
    let called: Vec<ComputationId> = module.computations[r.body]
        .iter()
        .flat_map(|(_, i)| i.op.called_computations())
        .collect();
    for c in called {
        for (_, instr) in module.computations[c].instrs.iter_mut() {
            if matches!(&instr.op, Op::CustomCall(cc) if cc.target == "Sharding")
                && instr.operands.len() == 1
            {
                instr.op = Op::Plain(Opcode::Copy);
                instr.sharding = None;
                instr.backend_config = None;
            }
        }
    }
    let comp = &mut module.computations[r.body];
    let order = comp.order.clone();
    for id in order {
        let instr = &mut comp.instrs[id];
        if matches!(instr.op, Op::Parameter { .. }) {
            instr.sharding = Some(HloSharding::Replicated);
            continue;
        }
        if is_open_constraint(instr) {
            instr.op = Op::Plain(Opcode::Copy);
            instr.sharding = None;
            instr.backend_config = None;
            continue;
        }
        let Some(s) = instr.sharding.clone() else {
            continue;
        };
        let local = local_of(&r.groups, &s, &instr.shape).ok_or_else(|| {
            PassError::new(format!(
                "`{}`: sharding {s} inside a shard_map body splits along its manual axes",
                instr.name
            ))
        })?;
        instr.sharding = Some(local);
    }
    Ok(())
}

fn local_of(g: &ManualGroups, s: &HloSharding, shape: &Shape) -> Option<HloSharding> {
    match shape {
        Shape::Tuple(elems) => Some(HloSharding::Tuple(
            elems
                .iter()
                .enumerate()
                .map(|(i, e)| local_of(g, s.element(i)?, e))
                .collect::<Option<Vec<_>>>()?,
        )),
        _ => match s {
            HloSharding::Tuple(v) if v.len() == 1 => g.local_sharding(&v[0], shape.rank()),
            _ => g.local_sharding(s, shape.rank()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_a_manual_subgroup_sharding_and_of_a_mesh_agree() {
        // 2x4 mesh (x, y), manual over x.
        let s = HloSharding::parse("{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}")
            .unwrap();
        let g = ManualGroups::of_sharding(&s, 8).unwrap();
        assert_eq!(g.groups, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        assert_eq!(ManualGroups::of_mesh(&[2, 4], &[0]).unwrap(), g);
        // Manual over y.
        let s = HloSharding::parse(
            "{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}",
        )
        .unwrap();
        let g = ManualGroups::of_sharding(&s, 8).unwrap();
        assert_eq!(
            g.groups,
            vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]
        );
        assert_eq!(ManualGroups::of_mesh(&[2, 4], &[1]).unwrap(), g);
        assert_eq!(
            g.global_groups(&[vec![0, 1]]),
            vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]
        );
        // Fully manual: no groups.
        assert!(ManualGroups::of_sharding(&HloSharding::Manual, 8).is_none());
    }

    #[test]
    fn a_free_axis_split_becomes_local() {
        let g = ManualGroups::of_mesh(&[2, 4], &[0]).unwrap();
        // Rows split on y inside the body (manual x as replication).
        let s =
            HloSharding::parse("{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dims={manual}}").unwrap();
        let l = g.local_sharding(&s, 2).unwrap();
        assert_eq!(l.to_string(), "{devices=[4,1]<=[4]}");
        // Split on x (a manual axis): no local tiling.
        let x = HloSharding::parse("{devices=[2,1,4]<=[8] last_tile_dim_replicate}").unwrap();
        assert!(g.local_sharding(&x, 2).is_none());
        // The global tiling: x major (manual), y minor (local).
        let manual = Tiling::of(&x, 2, 8);
        let local = Tiling::of(&l, 2, 4);
        let t = g.global_tiling(&manual, &local).unwrap();
        assert_eq!(t.to_sharding().to_string(), "{devices=[8,1]<=[8]}");
    }
}
