//! Halo exchange: the rows a partition needs from its neighbours along one split dimension,
//! moved with `collective-permute`s instead of gathering the dimension whole. XLA:
//! `ExchangeHalo` and `ExchangeHaloAndGetValidData` (spmd_partitioner_util.cc), used by
//! `HandleSlice`, `HandleConcatenate` (its rotate pattern) and the spatial case of
//! `HandleConvolution`.
//!
//! This file plans only (which rows of which neighbour's shard each partition receives);
//! `spmd_partitioning/halo_handler.rs` emits the slices, collective-permutes and concatenates.

use super::tiling::Tiling;
use crate::ir::sharding::shard_size;

/// Where one piece of a partition's extended shard comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PieceSource {
    /// The partition's own shard.
    Local,
    /// Another partition's shard: `collective-permute` with these (source, target) pairs,
    /// sorted by source; a partition that is no target receives zeros.
    Permute(Vec<(i64, i64)>),
    /// No partition has a neighbour that far away: zeros.
    Zeros,
}

/// Rows `[start, limit)` (along the exchanged dimension) of some partition's shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HaloPiece {
    /// First row taken from the source's shard.
    pub start: i64,
    /// One past the last row taken.
    pub limit: i64,
    /// Whose shard.
    pub source: PieceSource,
}

impl HaloPiece {
    /// Rows in the piece.
    pub fn len(&self) -> i64 {
        self.limit - self.start
    }

    /// True if the piece has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A window of `size` rows per partition, built from its shard and its neighbours' halos.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowedInput {
    /// Concatenated in order along the dimension: the extended shard.
    pub pieces: Vec<HaloPiece>,
    /// Per partition, where its window starts in the extended shard.
    pub offsets: Vec<i64>,
    /// Per partition, the global index of its window's first row (negative or past the
    /// dimension where the window reaches beyond the array).
    pub window_starts: Vec<i64>,
    /// Rows in each window.
    pub size: i64,
}

impl WindowedInput {
    /// Rows in the extended shard.
    pub fn extended_len(&self) -> i64 {
        self.pieces.iter().map(HaloPiece::len).sum()
    }
}

/// The partition holding the tile of `p` moved to coordinate `c` along `dim`, with the
/// same place among the partitions holding one tile (replicas pair up in order).
fn partner(t: &Tiling, p: usize, dim: usize, c: i64) -> Option<usize> {
    let replica = |q: usize| (0..q).filter(|&r| t.coords[r] == t.coords[q]).count();
    let mut want = t.coords[p].clone();
    want[dim] = c;
    let k = replica(p);
    (0..t.partitions()).filter(|&q| t.coords[q] == want).nth(k)
}

/// A piece taken from the neighbour `delta` tiles along `dim` (wrapping around when
/// `cyclic`), as its source is for every partition.
fn from_neighbour(
    t: &Tiling,
    dim: usize,
    delta: i64,
    cyclic: bool,
    start: i64,
    limit: i64,
) -> HaloPiece {
    let k = t.counts[dim];
    let delta = if cyclic { delta.rem_euclid(k) } else { delta };
    let source = if delta == 0 {
        PieceSource::Local
    } else {
        let mut pairs: Vec<(i64, i64)> = (0..t.partitions())
            .filter_map(|p| {
                let c = t.coords[p][dim] + delta;
                let c = if cyclic { c.rem_euclid(k) } else { c };
                if !(0..k).contains(&c) {
                    return None;
                }
                partner(t, p, dim, c).map(|q| (q as i64, p as i64))
            })
            .collect();
        pairs.sort();
        if pairs.is_empty() {
            PieceSource::Zeros
        } else {
            PieceSource::Permute(pairs)
        }
    };
    HaloPiece {
        start,
        limit,
        source,
    }
}

/// Each partition's window of `size` rows along `dim` of an array of `dims` held in `t`,
/// starting at the global row `starts[p]` (`None` for a partition whose window holds no
/// valid data: it takes whatever fits). The left halo comes from the partitions before
/// (`ceil(left / shard)` of them), the right halo from those after; rows before the array
/// are zeros, rows past its end are the last shard's padding (callers mask both where
/// they matter).
pub fn windowed_input(
    t: &Tiling,
    dims: &[i64],
    dim: usize,
    starts: &[Option<i64>],
    size: i64,
) -> WindowedInput {
    let s = shard_size(dims[dim], t.counts[dim]);
    let own = |p: usize| t.coords[p][dim] * s;
    let mut left = 0;
    let mut right = 0;
    for (p, w) in starts.iter().enumerate() {
        if let Some(w) = w {
            left = left.max(own(p) - w);
            right = right.max(w + size - own(p) - s);
        }
    }
    let mut pieces = Vec::new();
    let far_left = (left + s - 1) / s;
    for j in (1..=far_left).rev() {
        pieces.push(from_neighbour(t, dim, -j, false, (j * s - left).max(0), s));
    }
    pieces.push(HaloPiece {
        start: 0,
        limit: s,
        source: PieceSource::Local,
    });
    let far_right = (right + s - 1) / s;
    for j in 1..=far_right {
        pieces.push(from_neighbour(
            t,
            dim,
            j,
            false,
            0,
            s.min(right - (j - 1) * s),
        ));
    }
    let extended = left + s + right;
    let offsets: Vec<i64> = starts
        .iter()
        .enumerate()
        .map(|(p, w)| match w {
            Some(w) => w - (own(p) - left),
            None => left.min(extended - size).max(0),
        })
        .collect();
    let window_starts = offsets
        .iter()
        .enumerate()
        .map(|(p, o)| own(p) - left + o)
        .collect();
    let mut w = WindowedInput {
        pieces,
        offsets,
        window_starts,
        size,
    };
    trim(&mut w);
    w
}

/// When every partition's window starts at the same offset, drops the rows before and
/// after it from the pieces (no partition reads them).
fn trim(w: &mut WindowedInput) {
    let o = w.offsets[0];
    if w.offsets.iter().any(|&x| x != o) || w.extended_len() < o + w.size {
        return;
    }
    let mut skip = o;
    let mut keep = w.size;
    let mut pieces = Vec::new();
    for mut piece in std::mem::take(&mut w.pieces) {
        let cut = skip.min(piece.len());
        piece.start += cut;
        skip -= cut;
        let take = keep.min(piece.len());
        piece.limit = piece.start + take;
        keep -= take;
        if !piece.is_empty() {
            pieces.push(piece);
        }
    }
    w.pieces = pieces;
    for x in &mut w.offsets {
        *x = 0;
    }
}

/// A rotate along `dim` (`concatenate(x[D-shift:], x[:D-shift])`: row `i` of the result is
/// row `i - shift` of `x`, wrapping), for a dimension `t` splits evenly: each partition's
/// shard is the end of one neighbour's and the start of the next's. `None` for an uneven
/// split.
pub fn rotate(t: &Tiling, dims: &[i64], dim: usize, shift: i64) -> Option<Vec<HaloPiece>> {
    let k = t.counts[dim];
    if k <= 1 || dims[dim] % k != 0 || dims[dim] == 0 {
        return None;
    }
    let s = dims[dim] / k;
    let shift = shift.rem_euclid(dims[dim]);
    let (q, r) = (shift / s, shift % s);
    let mut pieces = Vec::new();
    if r > 0 {
        pieces.push(from_neighbour(t, dim, -q - 1, true, s - r, s));
    }
    if s - r > 0 {
        pieces.push(from_neighbour(t, dim, -q, true, 0, s - r));
    }
    Some(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(k: i64) -> Tiling {
        Tiling::from_parts(vec![k, 1], (0..k).map(|p| vec![p, 0]).collect()).unwrap()
    }

    #[test]
    fn a_shift_by_one_takes_one_row_from_the_next_partition() {
        // x[1:16] of 16 rows on 4: shards of 4, each window starts one row later.
        let t = rows(4);
        let starts: Vec<Option<i64>> = (0..4).map(|c| Some(c * 4 + 1)).collect();
        let w = windowed_input(&t, &[16, 4], 0, &starts, 4);
        assert_eq!(
            w.pieces,
            vec![
                HaloPiece {
                    start: 1,
                    limit: 4,
                    source: PieceSource::Local
                },
                HaloPiece {
                    start: 0,
                    limit: 1,
                    source: PieceSource::Permute(vec![(1, 0), (2, 1), (3, 2)])
                },
            ]
        );
        assert_eq!(w.offsets, vec![0; 4]);
    }

    #[test]
    fn a_window_wider_than_a_shard_reaches_two_neighbours() {
        // Windows of 5 starting 3 rows before each shard of 2: two partitions back, one on.
        let t = rows(4);
        let starts: Vec<Option<i64>> = (0..4).map(|c| Some(c * 2 - 3)).collect();
        let w = windowed_input(&t, &[8], 0, &starts, 5);
        let sources: Vec<(i64, i64, PieceSource)> = w
            .pieces
            .iter()
            .map(|p| (p.start, p.limit, p.source.clone()))
            .collect();
        assert_eq!(
            sources,
            vec![
                (1, 2, PieceSource::Permute(vec![(0, 2), (1, 3)])),
                (0, 2, PieceSource::Permute(vec![(0, 1), (1, 2), (2, 3)])),
                (0, 2, PieceSource::Local),
            ]
        );
        assert_eq!(w.window_starts, vec![-3, -1, 1, 3]);
    }

    #[test]
    fn a_roll_is_one_permute_and_a_local_slice() {
        let t = rows(4);
        let pieces = rotate(&t, &[16, 4], 0, 3).unwrap();
        assert_eq!(
            pieces,
            vec![
                HaloPiece {
                    start: 1,
                    limit: 4,
                    source: PieceSource::Permute(vec![(0, 1), (1, 2), (2, 3), (3, 0)])
                },
                HaloPiece {
                    start: 0,
                    limit: 1,
                    source: PieceSource::Local
                },
            ]
        );
        assert!(rotate(&t, &[15, 4], 0, 3).is_none());
    }

    #[test]
    fn replicas_pair_with_their_own_replica() {
        // 2 tiles along rows, each held by 2 partitions ({0,2} and {1,3}).
        let t = Tiling::from_parts(vec![2], vec![vec![0], vec![1], vec![0], vec![1]]).unwrap();
        let starts: Vec<Option<i64>> = (0..4).map(|p| Some(t.coords[p][0] * 4 + 1)).collect();
        let w = windowed_input(&t, &[8], 0, &starts, 4);
        assert_eq!(
            w.pieces[1].source,
            PieceSource::Permute(vec![(1, 0), (3, 2)])
        );
    }
}
