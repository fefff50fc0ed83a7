//! What each collective computes, given every member's operand and result buffers in group
//! order (row-major arrays). The device that completes a rendezvous runs this for the whole
//! group while the others wait, so the arithmetic happens once, in one fixed order: a
//! reduction starts from member 0's operand and folds members 1, 2, ... in, element by
//! element. Large buffers are cut into chunks reduced on the rayon pool; each element still
//! sees the same fold, so results do not depend on thread counts.
//! Semantics: StableHLO spec, "Collective ops"; XLA `xla/service/collective_ops_utils.h`.

use rayon::prelude::*;

use super::op::{CollectiveOp, Pattern};
use super::reduction::Reducer;
use super::{ArrayView, ArrayViewMut};
use crate::ir::ArrayShape;

/// One array in memory, by address (the members' buffers live on their own threads).
#[derive(Clone, Debug)]
pub struct RawArray {
    /// Row-major dimensions and element type.
    pub shape: ArrayShape,
    /// First byte.
    pub ptr: *mut u8,
    /// Byte length.
    pub len: usize,
}

// SAFETY: a RawArray is only dereferenced while its owner waits in the rendezvous that
// holds it, and results of different members never overlap.
unsafe impl Send for RawArray {}
unsafe impl Sync for RawArray {}

impl RawArray {
    fn bytes(&self) -> &[u8] {
        // SAFETY: see the Send impl; ptr..ptr+len is the owner's buffer.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    #[allow(clippy::mut_from_ref)]
    fn bytes_mut(&self) -> &mut [u8] {
        // SAFETY: results are written by one task at a time (by construction below).
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

/// One member of a group: its operands and its results.
#[derive(Clone, Debug, Default)]
pub struct Member {
    /// Operand arrays.
    pub operands: Vec<RawArray>,
    /// Result arrays.
    pub results: Vec<RawArray>,
    /// Another process holds this member's results (an MPI rank computes only its own):
    /// their shapes are checked, nothing is written to them.
    pub elsewhere: bool,
}

impl Member {
    /// A device's operand and result views as addresses, for a rendezvous that hands them to
    /// whichever thread runs the exchange.
    pub fn from_views(operands: &[ArrayView<'_>], results: &mut [ArrayViewMut<'_>]) -> Member {
        Member {
            operands: operands
                .iter()
                .map(|v| RawArray {
                    shape: v.shape.clone(),
                    ptr: v.data.as_ptr() as *mut u8,
                    len: v.data.len(),
                })
                .collect(),
            results: results
                .iter_mut()
                .map(|v| RawArray {
                    shape: v.shape.clone(),
                    ptr: v.data.as_mut_ptr(),
                    len: v.data.len(),
                })
                .collect(),
            elsewhere: false,
        }
    }
}

/// Chunk of a reduction: small enough to stay in cache while the members fold in.
const CHUNK_BYTES: usize = 64 << 10;
/// Below this many bytes a collective runs on the calling thread only.
const PARALLEL_BYTES: usize = 1 << 20;

/// Runs `op` for every member. Shapes were checked by the caller against each other;
/// here every result is checked against what the pattern makes of the operands.
pub fn run(
    op: &CollectiveOp,
    members: &[Member],
    reducer: Option<&dyn Reducer>,
) -> Result<(), String> {
    let n = members.len();
    let Some(first) = members.first() else {
        return Ok(());
    };
    let operands = first.operands.len();
    for (k, m) in members.iter().enumerate() {
        if m.operands.len() != operands || m.results.len() != operands {
            return Err(format!(
                "member {k} has {} operands and {} results, member 0 {operands}",
                m.operands.len(),
                m.results.len()
            ));
        }
    }
    match &op.pattern {
        Pattern::AllReduce => {
            let reducer = reducer.ok_or("all-reduce needs a reduction")?;
            for j in 0..operands {
                for (k, m) in members.iter().enumerate() {
                    expect_shape(&m.results[j], &first.operands[j].shape, k, j)?;
                }
                reduce_into(members, j, reducer)?;
            }
            Ok(())
        }
        Pattern::ReduceScatter { dimension } => {
            let reducer = reducer.ok_or("reduce-scatter needs a reduction")?;
            for j in 0..operands {
                let x = &first.operands[j].shape;
                let d = *dimension;
                let size = *x.dims.get(d).ok_or("dimension out of range")?;
                if size % n as i64 != 0 {
                    return Err(format!(
                        "dimension {d} of size {size} does not split {n} ways"
                    ));
                }
                let mut dims = x.dims.clone();
                dims[d] = size / n as i64;
                let block = ArrayShape::new(x.element_type, &dims);
                for (k, m) in members.iter().enumerate() {
                    expect_shape(&m.results[j], &block, k, j)?;
                }
                // Member k's block k is the same slab of every operand: outer rows of
                // `block_row` bytes at stride `row`.
                let inner: usize = x.dims[d + 1..].iter().product::<i64>() as usize;
                let s = x.element_type.byte_size();
                let block_row = dims[d] as usize * inner * s;
                let row = size as usize * inner * s;
                let outer: usize = x.dims[..d].iter().product::<i64>() as usize;
                for k in (0..n).filter(|&k| !members[k].elsewhere) {
                    for o in 0..outer {
                        let from = o * row + k * block_row;
                        reduce_range(
                            members,
                            j,
                            reducer,
                            from,
                            block_row,
                            &members[k].results[j],
                            o * block_row,
                        )?;
                    }
                }
            }
            Ok(())
        }
        Pattern::AllGather { dimension } => {
            for j in 0..operands {
                let x = &first.operands[j].shape;
                same_operands(members, j)?;
                let d = *dimension;
                let mut dims = x.dims.clone();
                *dims.get_mut(d).ok_or("dimension out of range")? *= n as i64;
                let out = ArrayShape::new(x.element_type, &dims);
                for (k, m) in members.iter().enumerate() {
                    expect_shape(&m.results[j], &out, k, j)?;
                }
                let copies: Vec<(usize, usize)> =
                    (0..n).flat_map(|k| (0..n).map(move |m| (k, m))).collect();
                let run_copy = |&(k, m): &(usize, usize)| {
                    let mut start = vec![0i64; dims.len()];
                    start[d] = m as i64 * x.dims[d];
                    copy_block(
                        &members[m].operands[j],
                        &vec![0; dims.len()],
                        &members[k].results[j],
                        &start,
                        &x.dims,
                    );
                };
                // Parallel by recipient only: two tasks never write one result.
                if x.byte_size() * n >= PARALLEL_BYTES {
                    (0..n)
                        .into_par_iter()
                        .filter(|&k| !members[k].elsewhere)
                        .for_each(|k| copies[k * n..(k + 1) * n].iter().for_each(run_copy));
                } else {
                    copies
                        .iter()
                        .filter(|&&(k, _)| !members[k].elsewhere)
                        .for_each(run_copy);
                }
            }
            Ok(())
        }
        Pattern::AllToAll { split, concat } => {
            for j in 0..operands {
                let x = &first.operands[j].shape;
                same_operands(members, j)?;
                let s = *split;
                let size = *x.dims.get(s).ok_or("split dimension out of range")?;
                if size % n as i64 != 0 {
                    return Err(format!(
                        "dimension {s} of size {size} does not split {n} ways"
                    ));
                }
                let mut block = x.dims.clone();
                block[s] = size / n as i64;
                let result_dims = &first.results[j].shape.dims;
                let c = match concat {
                    Some(c) => *c,
                    None => concat_dimension(&block, result_dims, s, n),
                };
                let mut out = block.clone();
                *out.get_mut(c).ok_or("concat dimension out of range")? *= n as i64;
                let out = ArrayShape::new(x.element_type, &out);
                for (k, m) in members.iter().enumerate() {
                    expect_shape(&m.results[j], &out, k, j)?;
                }
                for k in (0..n).filter(|&k| !members[k].elsewhere) {
                    for m in 0..n {
                        let mut from = vec![0i64; block.len()];
                        from[s] = k as i64 * block[s];
                        let mut to = vec![0i64; block.len()];
                        to[c] = m as i64 * block[c];
                        copy_block(
                            &members[m].operands[j],
                            &from,
                            &members[k].results[j],
                            &to,
                            &block,
                        );
                    }
                }
            }
            Ok(())
        }
        Pattern::AllToAllTuple => {
            if operands != n {
                return Err(format!(
                    "tuple all-to-all: {operands} operands for a group of {n}"
                ));
            }
            for k in 0..n {
                for m in 0..n {
                    let x = &members[m].operands[k];
                    let r = &members[k].results[m];
                    expect_shape(r, &x.shape, k, m)?;
                    if !members[k].elsewhere {
                        r.bytes_mut().copy_from_slice(x.bytes());
                    }
                }
            }
            Ok(())
        }
        Pattern::CollectivePermute { pairs } => {
            for j in 0..operands {
                for (k, m) in members.iter().enumerate() {
                    expect_shape(&m.results[j], &members[k].operands[j].shape, k, j)?;
                }
                for (k, m) in members.iter().enumerate().filter(|(_, m)| !m.elsewhere) {
                    match pairs.iter().find(|&&(_, t)| t == k) {
                        Some(&(s, _)) if s < n => {
                            let from = &members[s].operands[j];
                            expect_shape(&m.results[j], &from.shape, k, j)?;
                            m.results[j].bytes_mut().copy_from_slice(from.bytes());
                        }
                        _ => m.results[j].bytes_mut().fill(0),
                    }
                }
            }
            Ok(())
        }
        Pattern::CollectiveBroadcast { roots } => {
            for j in 0..operands {
                let root = roots.as_ref().map_or(0, |r| r.get(j).copied().unwrap_or(0));
                let from = members
                    .get(root)
                    .ok_or_else(|| format!("root {root} is outside the group of {n}"))?;
                let from = &from.operands[j];
                for (k, m) in members.iter().enumerate() {
                    expect_shape(&m.results[j], &from.shape, k, j)?;
                    if !m.elsewhere {
                        m.results[j].bytes_mut().copy_from_slice(from.bytes());
                    }
                }
            }
            Ok(())
        }
    }
}

/// Fails unless result `j` of member `k` has `want`'s dimensions and element type.
fn expect_shape(r: &RawArray, want: &ArrayShape, k: usize, j: usize) -> Result<(), String> {
    if r.shape.dims != want.dims
        || r.shape.element_type != want.element_type
        || r.len != want.byte_size()
    {
        return Err(format!(
            "result {j} of group member {k} is {}, the collective makes {}",
            crate::ir::Shape::Array(r.shape.clone()),
            crate::ir::Shape::Array(want.clone())
        ));
    }
    Ok(())
}

/// Fails unless operand `j` has one shape on every member.
fn same_operands(members: &[Member], j: usize) -> Result<(), String> {
    let x = &members[0].operands[j].shape;
    for (k, m) in members.iter().enumerate() {
        let y = &m.operands[j].shape;
        if y.dims != x.dims || y.element_type != x.element_type {
            return Err(format!(
                "operand {j} of group member {k} has another shape than member 0's"
            ));
        }
    }
    Ok(())
}

/// The dimension an all-to-all result grows along (`n` times the block's); the split
/// dimension when none does.
fn concat_dimension(block: &[i64], output: &[i64], split: usize, n: usize) -> usize {
    (0..block.len().min(output.len()))
        .find(|&c| output[c] == block[c] * n as i64 && output[c] != block[c])
        .unwrap_or(split)
}

/// All-reduce of operand `j`: every member's result gets the fold of all operands.
fn reduce_into(members: &[Member], j: usize, reducer: &dyn Reducer) -> Result<(), String> {
    let x = &members[0].operands[j];
    let s = x.shape.element_type.byte_size().max(1);
    let chunk = (CHUNK_BYTES / s).max(1) * s;
    let len = x.len;
    let chunks = len.div_ceil(chunk);
    let one = |c: usize, reducer: &dyn Reducer| -> Result<(), String> {
        let from = c * chunk;
        let size = chunk.min(len - from);
        let mut acc = x.bytes()[from..from + size].to_vec();
        for m in &members[1..] {
            reducer.combine(
                x.shape.element_type,
                &mut acc,
                &m.operands[j].bytes()[from..from + size],
            )?;
        }
        for m in members.iter().filter(|m| !m.elsewhere) {
            m.results[j].bytes_mut()[from..from + size].copy_from_slice(&acc);
        }
        Ok(())
    };
    match reducer.shared() {
        Some(shared) if len * members.len() >= PARALLEL_BYTES => {
            (0..chunks).into_par_iter().try_for_each(|c| one(c, shared))
        }
        _ => (0..chunks).try_for_each(|c| one(c, reducer)),
    }
}

/// Reduces bytes `from..from+size` of operand `j` over all members into `out` at `at`.
fn reduce_range(
    members: &[Member],
    j: usize,
    reducer: &dyn Reducer,
    from: usize,
    size: usize,
    out: &RawArray,
    at: usize,
) -> Result<(), String> {
    let x = &members[0].operands[j];
    let ty = x.shape.element_type;
    let mut acc = x.bytes()[from..from + size].to_vec();
    for m in &members[1..] {
        reducer.combine(ty, &mut acc, &m.operands[j].bytes()[from..from + size])?;
    }
    out.bytes_mut()[at..at + size].copy_from_slice(&acc);
    Ok(())
}

/// Copies the box of extent `block` at `from` in `src` to `to` in `dst` (row-major),
/// in runs as long as the trailing dimensions both arrays share whole allow.
fn copy_block(src: &RawArray, from: &[i64], dst: &RawArray, to: &[i64], block: &[i64]) {
    let rank = block.len();
    let s = src.shape.element_type.byte_size();
    if rank == 0 {
        dst.bytes_mut()[..s].copy_from_slice(&src.bytes()[..s]);
        return;
    }
    if block.contains(&0) {
        return;
    }
    let (sd, dd) = (&src.shape.dims, &dst.shape.dims);
    // Merge trailing dimensions the box covers whole in both arrays into one run.
    let mut run = s;
    let mut split = rank;
    while split > 0 {
        let d = split - 1;
        run *= block[d] as usize;
        let whole = block[d] == sd[d] && block[d] == dd[d];
        split -= 1;
        if !whole {
            break;
        }
    }
    let strides = |dims: &[i64]| {
        let mut st = vec![s; dims.len()];
        for d in (0..dims.len().saturating_sub(1)).rev() {
            st[d] = st[d + 1] * dims[d + 1] as usize;
        }
        st
    };
    let (ss, ds) = (strides(sd), strides(dd));
    let (src_bytes, dst_bytes) = (src.bytes(), dst.bytes_mut());
    let mut index = vec![0i64; split];
    loop {
        let mut so = 0;
        let mut doff = 0;
        for d in 0..rank {
            let i = if d < split { index[d] } else { 0 };
            so += (from[d] + i) as usize * ss[d];
            doff += (to[d] + i) as usize * ds[d];
        }
        dst_bytes[doff..doff + run].copy_from_slice(&src_bytes[so..so + run]);
        let mut d = split;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < block[d] {
                break;
            }
            index[d] = 0;
        }
    }
}
