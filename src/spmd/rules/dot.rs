//! `dot`: a local dot of the shards, once both operands agree on how the batch and
//! contracting dimensions are split. Split contracting dimensions leave partial sums,
//! combined by an all-reduce over the partitions that held the other parts (XLA:CPU then
//! slices the sum if the result is wanted split: it has no reduce-scatter creator).
//! XLA: `dot_handler.cc` `PartitionDot` (batch, non-contracting and contracting cases,
//! then resharding an operand to match the other or the output).
//!
//! The candidates, tried against each other by cost (bytes moved): the operands as they
//! are; the rhs resharded to the lhs's batch/contracting split; the lhs to the rhs's;
//! both with contracting dimensions gathered; both taken from the wanted result; both
//! replicated (always possible).

use super::{coords_of, reduction_groups};
use crate::ir::DotDimensionNumbers;
use crate::spmd::tiling::Tiling;

/// The dimension roles of one dot.
#[derive(Clone, Debug)]
pub struct DotDims {
    /// lhs batch dimensions (paired with `rhs_batch`).
    pub lhs_batch: Vec<usize>,
    /// rhs batch dimensions.
    pub rhs_batch: Vec<usize>,
    /// lhs contracting dimensions (paired with `rhs_contracting`).
    pub lhs_contracting: Vec<usize>,
    /// rhs contracting dimensions.
    pub rhs_contracting: Vec<usize>,
    /// lhs dimensions that are neither, ascending (they come after the batch dims in the result).
    pub lhs_free: Vec<usize>,
    /// rhs free dimensions, ascending (last in the result).
    pub rhs_free: Vec<usize>,
}

impl DotDims {
    /// The roles from the dimension numbers and operand ranks.
    pub fn new(d: &DotDimensionNumbers, lhs_rank: usize, rhs_rank: usize) -> DotDims {
        let free = |rank: usize, a: &[usize], b: &[usize]| {
            (0..rank)
                .filter(|x| !a.contains(x) && !b.contains(x))
                .collect::<Vec<_>>()
        };
        DotDims {
            lhs_free: free(
                lhs_rank,
                &d.lhs_batch_dimensions,
                &d.lhs_contracting_dimensions,
            ),
            rhs_free: free(
                rhs_rank,
                &d.rhs_batch_dimensions,
                &d.rhs_contracting_dimensions,
            ),
            lhs_batch: d.lhs_batch_dimensions.clone(),
            rhs_batch: d.rhs_batch_dimensions.clone(),
            lhs_contracting: d.lhs_contracting_dimensions.clone(),
            rhs_contracting: d.rhs_contracting_dimensions.clone(),
        }
    }

    /// The rank of the dot's result.
    pub fn out_rank(&self) -> usize {
        self.lhs_batch.len() + self.lhs_free.len() + self.rhs_free.len()
    }
}

/// What the partitioner does for one dot.
#[derive(Clone, Debug)]
pub struct DotPlan {
    /// Which candidate won.
    pub name: &'static str,
    /// The tiling the lhs is resharded to.
    pub lhs: Tiling,
    /// The tiling the rhs is resharded to.
    pub rhs: Tiling,
    /// The local dot's result tiling (complete after the all-reduce, if any).
    pub out: Tiling,
    /// All-reduce groups for the partial sums of split contracting dimensions.
    pub partial: Option<Vec<Vec<i64>>>,
    /// The estimated cost that won.
    pub cost: i64,
}

/// The local dot's result tiling and partial-sum groups, if `lhs` and `rhs` agree on the
/// batch and contracting split.
fn local(d: &DotDims, lhs: &Tiling, rhs: &Tiling) -> Option<(Tiling, Option<Vec<Vec<i64>>>)> {
    let n = lhs.partitions();
    let pick =
        |t: &Tiling, dims: &[usize]| -> Vec<i64> { dims.iter().map(|&x| t.counts[x]).collect() };
    if pick(lhs, &d.lhs_batch) != pick(rhs, &d.rhs_batch)
        || pick(lhs, &d.lhs_contracting) != pick(rhs, &d.rhs_contracting)
    {
        return None;
    }
    for p in 0..n {
        if coords_of(lhs, p, &d.lhs_batch) != coords_of(rhs, p, &d.rhs_batch)
            || coords_of(lhs, p, &d.lhs_contracting) != coords_of(rhs, p, &d.rhs_contracting)
        {
            return None;
        }
    }
    let mut counts = pick(lhs, &d.lhs_batch);
    counts.extend(pick(lhs, &d.lhs_free));
    counts.extend(pick(rhs, &d.rhs_free));
    let coords: Vec<Vec<i64>> = (0..n)
        .map(|p| {
            let mut c = coords_of(lhs, p, &d.lhs_batch);
            c.extend(coords_of(lhs, p, &d.lhs_free));
            c.extend(coords_of(rhs, p, &d.rhs_free));
            c
        })
        .collect();
    let out = Tiling::from_parts(counts, coords)?;
    let partial = if d.lhs_contracting.iter().any(|&x| lhs.counts[x] > 1) {
        let groups = reduction_groups(
            n,
            |p| out.coords[p].clone(),
            |p| coords_of(lhs, p, &d.lhs_contracting),
        )?;
        // Every result tile must see every part of the contracting dimensions (a tile
        // held by fewer partitions than there are parts would miss some partial sums).
        let parts: i64 = d.lhs_contracting.iter().map(|&x| lhs.counts[x]).product();
        if groups.iter().any(|g| g.len() as i64 != parts) {
            return None;
        }
        Some(groups)
    } else {
        None
    };
    Some((out, partial))
}

/// An operand tiling built per partition from parts: `(operand dims, source tiling,
/// source dims)` triples; dimensions not listed are unsplit.
pub fn assemble(rank: usize, n: usize, parts: &[(&[usize], &Tiling, &[usize])]) -> Option<Tiling> {
    let mut counts = vec![1i64; rank];
    for (dims, src, sdims) in parts {
        for (&d, &s) in dims.iter().zip(sdims.iter()) {
            counts[d] = src.counts[s];
        }
    }
    let coords = (0..n)
        .map(|p| {
            let mut c = vec![0i64; rank];
            for (dims, src, sdims) in parts {
                for (&d, &s) in dims.iter().zip(sdims.iter()) {
                    c[d] = src.coords[p][s];
                }
            }
            c
        })
        .collect();
    Tiling::from_parts(counts, coords)
}

/// Picks the cheapest plan. `cost(operand, from, to)` estimates resharding operand 0
/// (lhs), 1 (rhs) or 2 (the result, to `target`); `partial_cost` is the all-reduce's.
pub fn plan(
    d: &DotDims,
    lhs: &Tiling,
    rhs: &Tiling,
    target: Option<&Tiling>,
    cost: &dyn Fn(usize, &Tiling, &Tiling) -> i64,
    partial_cost: &dyn Fn(&Tiling) -> i64,
) -> DotPlan {
    let n = lhs.partitions();
    let (lr, rr) = (lhs.rank(), rhs.rank());
    let nb = d.lhs_batch.len();
    let nlf = d.lhs_free.len();
    let out_batch: Vec<usize> = (0..nb).collect();
    let out_lfree: Vec<usize> = (nb..nb + nlf).collect();
    let out_rfree: Vec<usize> = (nb + nlf..d.out_rank()).collect();
    let mut candidates: Vec<(&'static str, Tiling, Tiling)> =
        vec![("operands as they are", lhs.clone(), rhs.clone())];
    if let Some(r2) = assemble(
        rr,
        n,
        &[
            (&d.rhs_batch, lhs, &d.lhs_batch),
            (&d.rhs_contracting, lhs, &d.lhs_contracting),
            (&d.rhs_free, rhs, &d.rhs_free),
        ],
    ) {
        candidates.push((
            "rhs resharded to the lhs's batch/contracting split",
            lhs.clone(),
            r2,
        ));
    }
    if let Some(l3) = assemble(
        lr,
        n,
        &[
            (&d.lhs_batch, rhs, &d.rhs_batch),
            (&d.lhs_contracting, rhs, &d.rhs_contracting),
            (&d.lhs_free, lhs, &d.lhs_free),
        ],
    ) {
        candidates.push((
            "lhs resharded to the rhs's batch/contracting split",
            l3,
            rhs.clone(),
        ));
    }
    let l4 = assemble(
        lr,
        n,
        &[
            (&d.lhs_batch, lhs, &d.lhs_batch),
            (&d.lhs_free, lhs, &d.lhs_free),
        ],
    );
    if let Some(l4) = l4
        && let Some(r4) = assemble(
            rr,
            n,
            &[
                (&d.rhs_batch, lhs, &d.lhs_batch),
                (&d.rhs_free, rhs, &d.rhs_free),
            ],
        )
    {
        candidates.push(("contracting dimensions gathered", l4, r4));
    }
    // One operand as it is and the other's free dimensions gathered: what XLA does when
    // both operands split their free dimensions over the same mesh axis (`z @ x.T` with
    // `z` and `x` split on 'x' by rows), which no result tiling can hold twice; the lhs's
    // split wins a tie, as in XLA.
    if let Some(r6) = assemble(
        rr,
        n,
        &[
            (&d.rhs_batch, lhs, &d.lhs_batch),
            (&d.rhs_contracting, lhs, &d.lhs_contracting),
        ],
    ) {
        candidates.push(("the rhs's free dimensions gathered", lhs.clone(), r6));
    }
    if let Some(l7) = assemble(
        lr,
        n,
        &[
            (&d.lhs_batch, rhs, &d.rhs_batch),
            (&d.lhs_contracting, rhs, &d.rhs_contracting),
        ],
    ) {
        candidates.push(("the lhs's free dimensions gathered", l7, rhs.clone()));
    }
    if let Some(t) = target
        && let (Some(l5), Some(r5)) = (
            assemble(
                lr,
                n,
                &[(&d.lhs_batch, t, &out_batch), (&d.lhs_free, t, &out_lfree)],
            ),
            assemble(
                rr,
                n,
                &[(&d.rhs_batch, t, &out_batch), (&d.rhs_free, t, &out_rfree)],
            ),
        )
    {
        candidates.push(("operands resharded to the wanted result", l5, r5));
    }
    candidates.push((
        "both operands replicated",
        Tiling::replicated(lr, n),
        Tiling::replicated(rr, n),
    ));
    let mut best: Option<DotPlan> = None;
    for (name, l, r) in candidates {
        let Some((out, partial)) = local(d, &l, &r) else {
            continue;
        };
        let mut c = cost(0, lhs, &l) + cost(1, rhs, &r);
        if partial.is_some() {
            c += partial_cost(&out);
        }
        if let Some(t) = target {
            c += cost(2, &out, t);
        }
        if best.as_ref().is_none_or(|b| c < b.cost) {
            best = Some(DotPlan {
                name,
                lhs: l,
                rhs: r,
                out,
                partial,
                cost: c,
            });
        }
    }
    best.expect("the replicated candidate always works")
}

/// Propagation, forward with one operand known (`which`: 0 lhs, 1 rhs): the result keeps
/// that operand's batch and free splits (Shardy's factor rule; a split contracting
/// dimension says nothing about the result).
pub fn result_from_operand(d: &DotDims, which: usize, t: &Tiling) -> Option<Tiling> {
    let nb = d.lhs_batch.len();
    let nlf = d.lhs_free.len();
    let out_batch: Vec<usize> = (0..nb).collect();
    let (batch, free, out_free): (&[usize], &[usize], Vec<usize>) = if which == 0 {
        (&d.lhs_batch[..], &d.lhs_free[..], (nb..nb + nlf).collect())
    } else {
        (
            &d.rhs_batch[..],
            &d.rhs_free[..],
            (nb + nlf..d.out_rank()).collect(),
        )
    };
    assemble(
        d.out_rank(),
        t.partitions(),
        &[(&out_batch, t, batch), (&out_free, t, free)],
    )
}

/// Propagation, backward: the tiling an unsharded operand (`which`: 0 lhs, 1 rhs) takes
/// from the dot's result (batch and its free dimensions) and, when known, the other
/// operand (the contracting split, so the local dot needs no reshard). XLA:
/// `InferDotOperandSharding`; Shardy's factor rule read from the result side.
pub fn operand_from_users(
    d: &DotDims,
    which: usize,
    other: Option<&Tiling>,
    out: &Tiling,
    rank: usize,
) -> Option<Tiling> {
    let nb = d.lhs_batch.len();
    let nlf = d.lhs_free.len();
    let out_batch: Vec<usize> = (0..nb).collect();
    // (batch, free, contracting) of this operand, the other's contracting, the result's free.
    let (batch, free, contracting, other_contracting) = if which == 0 {
        (
            &d.lhs_batch[..],
            &d.lhs_free[..],
            &d.lhs_contracting[..],
            &d.rhs_contracting[..],
        )
    } else {
        (
            &d.rhs_batch[..],
            &d.rhs_free[..],
            &d.rhs_contracting[..],
            &d.lhs_contracting[..],
        )
    };
    let out_free: Vec<usize> = if which == 0 {
        (nb..nb + nlf).collect()
    } else {
        (nb + nlf..d.out_rank()).collect()
    };
    let n = out.partitions();
    let from_out = [(batch, out, &out_batch[..]), (free, out, &out_free[..])];
    if let Some(o) = other {
        let mut parts = from_out.to_vec();
        parts.push((contracting, o, other_contracting));
        if let Some(t) = assemble(rank, n, &parts) {
            return Some(t);
        }
    }
    assemble(rank, n, &from_out)
}
