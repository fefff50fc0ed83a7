//! Elementwise ops (and convert, compare, select, clamp, copy): every operand in the
//! result's tiling, the op applied shard by shard.

use crate::spmd::tiling::Tiling;

/// The result tiling propagation picks: the operand split into the most tiles (the
/// first such), as XLA prefers the most specific operand sharding.
pub fn choose(operands: &[&Tiling]) -> Option<Tiling> {
    let mut best: Option<&Tiling> = None;
    for &t in operands {
        let tiles: i64 = t.counts.iter().product();
        if best.is_none_or(|b| tiles > b.counts.iter().product::<i64>()) {
            best = Some(t);
        }
    }
    best.cloned()
}
