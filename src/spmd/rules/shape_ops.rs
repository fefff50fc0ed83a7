//! `broadcast`, `transpose`, `reshape`: the split moves with the dimensions.

use crate::spmd::tiling::Tiling;

/// The operand tiling a broadcast result tiling needs (operand dim i is result dim
/// `dims[i]`).
pub fn broadcast_operand(result: &Tiling, dims: &[usize]) -> Tiling {
    let map: Vec<Option<usize>> = dims.iter().map(|&d| Some(d)).collect();
    result.project(&map)
}

/// The result tiling a broadcast of `operand` gets: new dimensions unsplit.
pub fn broadcast_result(operand: &Tiling, dims: &[usize], rank: usize) -> Tiling {
    let map: Vec<Option<usize>> = (0..rank)
        .map(|j| dims.iter().position(|&d| d == j))
        .collect();
    operand.project(&map)
}

/// The result tiling of `transpose(operand), dimensions=perm` (result dim i is operand
/// dim `perm[i]`).
pub fn transpose_result(operand: &Tiling, perm: &[usize]) -> Tiling {
    let map: Vec<Option<usize>> = perm.iter().map(|&d| Some(d)).collect();
    operand.project(&map)
}

/// The result tiling of a reshape from `from` to `to` dims, or the operand dimensions that
/// must be unsplit first. A split dimension survives a reshape when it divides evenly and
/// it stays whole, is the major part of a merge (the merged minor dimensions unsplit), or
/// splits into dimensions whose major one its tile count divides.
pub fn reshape_result(from: &[i64], to: &[i64], operand: &Tiling) -> Result<Tiling, Vec<usize>> {
    let mut map: Vec<Option<usize>> = vec![None; to.len()];
    let mut unsplit = Vec::new();
    for i in 0..from.len() {
        let t = operand.counts[i];
        if t == 1 {
            continue;
        }
        let prefix: i64 = from[..i].iter().product();
        let found = (0..to.len())
            .find(|&j| to[..j].iter().product::<i64>() == prefix && to[j] != 1 && map[j].is_none());
        let ok = from[i] % t == 0
            && found.is_some_and(|j| {
                let m = to[j];
                if m == from[i] {
                    true
                } else if m > from[i] && m % from[i] == 0 {
                    // Merge: the minor operand dims that fold into j must be unsplit.
                    let mut span = from[i];
                    let mut k = i + 1;
                    let mut minor_unsplit = true;
                    while span < m && k < from.len() {
                        span *= from[k];
                        minor_unsplit &= operand.counts[k] == 1;
                        k += 1;
                    }
                    span == m && minor_unsplit
                } else {
                    from[i] % m == 0 && m % t == 0
                }
            });
        match (ok, found) {
            (true, Some(j)) => map[j] = Some(i),
            _ => unsplit.push(i),
        }
    }
    if !unsplit.is_empty() {
        return Err(unsplit);
    }
    Ok(operand.project(&map))
}

/// The result tiling of a reshape keeping what splits it can: `(tiling, every split
/// kept)`, or `None` when no split survives and the operand was split.
///
/// Splits are given up minor first, one at a time: a split minor dimension also blocks
/// the major split it would merge with, which survives once the minor one is whole (XLA
/// keeps `[8,8]` split 2x4 as `[64]` split 2, the 4 replicated).
pub fn reshape_keep(from: &[i64], to: &[i64], operand: &Tiling) -> (Option<Tiling>, bool) {
    let (kept, result) = reshape_local(from, to, operand);
    (result, kept == *operand)
}

/// The operand tiling a reshape can run on locally (`operand` with the splits it cannot
/// keep dropped, minor first, see [`reshape_keep`]) and the result tiling it gives
/// (`None` only when even the unsplit operand has no result tiling, which cannot happen
/// for a valid reshape).
pub fn reshape_local(from: &[i64], to: &[i64], operand: &Tiling) -> (Tiling, Option<Tiling>) {
    let mut t = operand.clone();
    loop {
        match reshape_result(from, to, &t) {
            Ok(r) => return (t, Some(r)),
            Err(unsplit) => {
                let Some(&minor) = unsplit.iter().max() else {
                    return (t, None);
                };
                if t.counts[minor] == 1 {
                    return (t, None);
                }
                t = t.without_dim(minor);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(counts: Vec<i64>, coords: Vec<Vec<i64>>) -> Tiling {
        Tiling::from_parts(counts, coords).unwrap()
    }

    #[test]
    fn reshape_keeps_whole_split_and_merged_dimensions() {
        let x = t(vec![4, 1], (0..4).map(|p| vec![p, 0]).collect());
        // Split 64 -> 8x8: the major 8 is split in 4.
        let r = reshape_result(&[64, 16], &[8, 8, 16], &x).unwrap();
        assert_eq!(r.counts, vec![4, 1, 1]);
        // Merge 8x16 -> 128 with the major split.
        let r = reshape_result(&[8, 16], &[128], &x).unwrap();
        assert_eq!(r.counts, vec![4]);
        // The minor dimension split: it cannot survive a merge.
        let y = t(vec![1, 4], (0..4).map(|p| vec![0, p]).collect());
        assert_eq!(reshape_result(&[8, 16], &[128], &y), Err(vec![1]));
        // Not divisible.
        let z = t(vec![4], (0..4).map(|p| vec![p]).collect());
        assert_eq!(reshape_result(&[10], &[2, 5], &z), Err(vec![0]));
    }

    #[test]
    fn reshape_keeps_the_major_split_of_a_merge_when_the_minor_one_is_dropped() {
        // [8,8] split 2x4 over 8 partitions, merged into [64]: the 4-way minor split
        // cannot survive; the 2-way major one can, replicated over the other 4.
        let x = t(vec![2, 4], (0..8).map(|p| vec![p / 4, p % 4]).collect());
        let (r, all) = reshape_keep(
            &[8, 8, 4],
            &[64, 4],
            &t(
                vec![2, 4, 1],
                (0..8).map(|p| vec![p / 4, p % 4, 0]).collect(),
            ),
        );
        assert!(!all);
        let r = r.expect("the major split survives");
        assert_eq!(r.counts, vec![2, 1]);
        assert_eq!(r.coords[5], vec![1, 0]);
        let (r, _) = reshape_keep(&[8, 8], &[64], &x);
        assert_eq!(r.map(|r| r.counts), Some(vec![2]));
    }
}
