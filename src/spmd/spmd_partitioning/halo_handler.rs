//! Halo exchange: slices, rotates and spatially split convolutions along a split dimension,
//! with the neighbours' edge rows moved by `collective-permute` (XLA: `HandleSlice`,
//! `HandleConcatenate`'s rotate, `HandleConvolution`'s spatial case).

use super::*;

/// Neighbour pieces a halo exchange may take before the split dimension is gathered
/// instead (a window reaching further moves more than the gather).
const MAX_HALO_PIECES: usize = 4;

// Halo exchange: slices, rotates and spatially split convolutions along a split dimension
// (XLA: `HandleSlice`, `HandleConcatenate`'s rotate, `HandleConvolution`'s spatial case).
impl Partitioner<'_> {
    /// An elementwise program result whose operands share a split that propagation dropped
    /// from the result for being uneven (XLA's outputs take such dimensions whole): computed
    /// on the shards and gathered once, as XLA's partitioner does (the split stays on the
    /// instruction, the output reshards it), rather than every operand gathered. `None`
    /// when that is not the case.
    pub(super) fn elementwise_before_output_gather(
        &mut self,
        instr: &Instruction,
    ) -> Result<Option<(PValue, &'static str)>, PassError> {
        if self.groups.is_some() || self.current != self.old.root || !instr.shape.is_array() {
            return Ok(None);
        }
        let target = self.target(instr)?;
        let mut common: Option<Tiling> = None;
        let mut ops = Vec::with_capacity(instr.operands.len());
        for i in 0..instr.operands.len() {
            let Some((x, t)) = self.operand_tiling(instr, i) else {
                return Ok(None);
            };
            if t.is_unreduced() || common.as_ref().is_some_and(|c| *c != t) {
                return Ok(None);
            }
            ops.push(x);
            common = Some(t);
        }
        let Some(t) = common else {
            return Ok(None);
        };
        let dims = instr.shape.dims().to_vec();
        let mut dropped = t.clone();
        for d in 0..dims.len() {
            if t.is_uneven(&dims, d) {
                dropped = dropped.without_dim(d);
            }
        }
        if dropped == t || !dropped.same_as(&target) {
            return Ok(None);
        }
        let id = self.emit_clone(instr, with_dims(&instr.shape, t.shard_dims(&dims)), ops);
        self.reshard_to_target(
            instr,
            id,
            &dims,
            &t,
            "program result to its sharding (the uneven split dropped)",
            "elementwise: on the operands' shards, the result gathered once",
        )
        .map(Some)
    }

    /// `x`'s extended shard along `dim`: `pieces` (own rows and neighbours' halos)
    /// concatenated in order.
    pub(super) fn exchange_halo(
        &mut self,
        x: InstrId,
        dim: usize,
        pieces: &[HaloPiece],
        why: &str,
    ) -> InstrId {
        let a = self.array_shape(x);
        let mut parts = Vec::with_capacity(pieces.len());
        for piece in pieces {
            let mut dims = a.dims.clone();
            dims[dim] = piece.len();
            let shape = Shape::array(a.element_type, &dims);
            let rows = if piece.start == 0 && piece.limit == a.dims[dim] {
                x
            } else {
                let slice = a
                    .dims
                    .iter()
                    .enumerate()
                    .map(|(d, &n)| SliceDimension {
                        start: if d == dim { piece.start } else { 0 },
                        limit: if d == dim { piece.limit } else { n },
                        stride: 1,
                    })
                    .collect();
                self.emit(shape.clone(), Op::Slice { slice }, vec![x])
            };
            let part = match &piece.source {
                PieceSource::Local => rows,
                PieceSource::Permute(pairs) => {
                    let text =
                        groups_text(&pairs.iter().map(|&(s, t)| vec![s, t]).collect::<Vec<_>>());
                    self.actions.push(format!(
                        "collective-permute {shape} source_target_pairs={text} ({why})"
                    ));
                    self.collective(
                        Opcode::CollectivePermute,
                        shape,
                        rows,
                        vec![("source_target_pairs", text)],
                        None,
                    )
                }
                PieceSource::Zeros => {
                    let zero = self.zero(a.element_type);
                    self.emit(shape, Op::Broadcast { dimensions: vec![] }, vec![zero])
                }
            };
            parts.push(part);
        }
        if parts.len() == 1 {
            return parts[0];
        }
        let mut dims = a.dims.clone();
        dims[dim] = pieces.iter().map(HaloPiece::len).sum();
        self.emit(
            Shape::array(a.element_type, &dims),
            Op::Concatenate { dimension: dim },
            parts,
        )
    }

    /// Each partition's window of `w` along `dim` (XLA's `ExchangeHaloAndGetValidData`):
    /// the halo exchange, then a slice (a dynamic-slice when the windows start at
    /// different places in the extended shards).
    pub(super) fn windowed(
        &mut self,
        x: InstrId,
        dim: usize,
        w: &WindowedInput,
        why: &str,
    ) -> InstrId {
        let ext = self.exchange_halo(x, dim, &w.pieces, why);
        let a = self.array_shape(ext);
        if a.dims[dim] == w.size && w.offsets.iter().all(|&o| o == 0) {
            return ext;
        }
        let mut dims = a.dims.clone();
        dims[dim] = w.size;
        let shape = Shape::array(a.element_type, &dims);
        if w.offsets.iter().all(|&o| o == w.offsets[0]) {
            let slice = a
                .dims
                .iter()
                .enumerate()
                .map(|(d, &n)| SliceDimension {
                    start: if d == dim { w.offsets[0] } else { 0 },
                    limit: if d == dim { w.offsets[0] + w.size } else { n },
                    stride: 1,
                })
                .collect();
            return self.emit(shape, Op::Slice { slice }, vec![ext]);
        }
        let mut operands = vec![ext];
        for d in 0..a.dims.len() {
            let start = if d == dim {
                self.per_partition(&w.offsets)
            } else {
                self.s32(0)
            };
            operands.push(start);
        }
        self.emit(shape, Op::DynamicSlice { sizes: dims }, operands)
    }

    /// Zeros where `x`'s rows along `dim` (starting at global row `starts[p]` on partition
    /// `p`) fall outside `[0, size)`: the convolution's padding, where the exchange left
    /// zeros from no neighbour or the last shard's padding.
    pub(super) fn mask_outside(
        &mut self,
        x: InstrId,
        dim: usize,
        starts: &[i64],
        size: i64,
    ) -> InstrId {
        let a = self.array_shape(x);
        let s32 = Shape::array(PrimitiveType::S32, &a.dims);
        let pred = Shape::array(PrimitiveType::Pred, &a.dims);
        let iota = self.emit(s32.clone(), Op::Iota { dimension: dim }, vec![]);
        let off = self.per_partition(starts);
        let off = self.emit(s32.clone(), Op::Broadcast { dimensions: vec![] }, vec![off]);
        let pos = self.emit(s32.clone(), Op::Plain(Opcode::Add), vec![iota, off]);
        let compare = |this: &mut Self, bound: i64, direction: ComparisonDirection| {
            let b = this.s32(bound);
            let b = this.emit(s32.clone(), Op::Broadcast { dimensions: vec![] }, vec![b]);
            this.emit(
                pred.clone(),
                Op::Compare {
                    direction,
                    comparison_type: None,
                },
                vec![pos, b],
            )
        };
        let ge = compare(self, 0, ComparisonDirection::Ge);
        let lt = compare(self, size, ComparisonDirection::Lt);
        let inside = self.emit(pred, Op::Plain(Opcode::And), vec![ge, lt]);
        let zero = self.zero(a.element_type);
        let zeros = self.emit(
            Shape::Array(a.clone()),
            Op::Broadcast { dimensions: vec![] },
            vec![zero],
        );
        self.actions
            .push("select: zeros outside the array (padding)".to_string());
        self.emit(
            Shape::Array(a),
            Op::Plain(Opcode::Select),
            vec![inside, x, zeros],
        )
    }

    /// The array operand `i` of `instr` and its tiling, if it is a complete (reduced) array
    /// outside any manual region (collective-permute pairs are over all partitions).
    pub(super) fn halo_operand(&self, instr: &Instruction, i: usize) -> Option<(InstrId, Tiling)> {
        if self.groups.is_some() {
            return None;
        }
        self.operand_tiling(instr, i)
            .filter(|(_, t)| !t.is_unreduced())
    }

    /// `slice`: along a split dimension with stride 1, each partition's rows of the result
    /// from its shard and its neighbours' halos; other dimensions sliced locally where
    /// whole. Else computed whole (the fallback).
    pub(super) fn slice(
        &mut self,
        instr: &Instruction,
        slice: &[SliceDimension],
    ) -> Result<(PValue, &'static str), PassError> {
        if self.read_only_by_rotates(instr) {
            // The rotate reads the slices' operand itself; this value is never read.
            let t = self
                .operand_tiling(instr, 0)
                .expect("checked by rotate_pattern")
                .1;
            let ty = self
                .array_shape(self.operand_tiling(instr, 0).unwrap().0)
                .element_type;
            let zero = self.zero(ty);
            let dims = t.shard_dims(instr.shape.dims());
            let id = self.emit(
                Shape::array(ty, &dims),
                Op::Broadcast { dimensions: vec![] },
                vec![zero],
            );
            return Ok((
                PValue::Array { id, tiling: t },
                "slice: read only by a rotate (concatenate), which reads its operand",
            ));
        }
        let Some((x, t)) = self.halo_operand(instr, 0) else {
            return self.fallback(instr);
        };
        let global = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let full =
            |d: usize, s: &SliceDimension| s.start == 0 && s.limit == global[d] && s.stride == 1;
        let split: Vec<usize> = (0..global.len())
            .filter(|&d| t.counts[d] > 1 && !full(d, &slice[d]))
            .collect();
        let [dim] = split[..] else {
            return self.fallback(instr);
        };
        let result = instr.shape.dims().to_vec();
        if slice[dim].stride != 1 || result[dim] == 0 {
            return self.fallback(instr);
        }
        // Dimensions held whole: sliced locally first.
        let local = self.array_shape(x).dims;
        let mut sliced = global.clone();
        let mut x = x;
        if (0..global.len()).any(|d| d != dim && t.counts[d] == 1 && !full(d, &slice[d])) {
            let mut shard = local.clone();
            let dims = (0..global.len())
                .map(|d| {
                    if d != dim && t.counts[d] == 1 {
                        sliced[d] = result[d];
                        shard[d] = result[d];
                        slice[d].clone()
                    } else {
                        SliceDimension {
                            start: 0,
                            limit: local[d],
                            stride: 1,
                        }
                    }
                })
                .collect();
            let ty = self.array_shape(x).element_type;
            x = self.emit(Shape::array(ty, &shard), Op::Slice { slice: dims }, vec![x]);
        }
        let k = t.counts[dim];
        let size = shard_size(result[dim], k);
        let starts: Vec<Option<i64>> = (0..self.n)
            .map(|p| {
                let first = t.coords[p][dim] * size;
                (first < result[dim]).then_some(slice[dim].start + first)
            })
            .collect();
        let w = halo_exchange::windowed_input(&t, &sliced, dim, &starts, size);
        if w.pieces.len() > MAX_HALO_PIECES + 1 {
            self.actions
                .push("the halo reaches past the neighbours: gathered instead".to_string());
            return self.fallback(instr);
        }
        let id = self.windowed(x, dim, &w, "slice along a split dimension: halo exchange");
        self.reshard_to_target(
            instr,
            id,
            &result,
            &t,
            "slice result to its sharding",
            "slice: halo exchange along the split dimension (collective-permute)",
        )
    }

    /// `concatenate(x[D-shift:], x[:D-shift])` along a dimension of `x` split evenly
    /// (`jnp.roll`): (the original `x`, the dimension, the shift).
    pub(super) fn rotate_pattern(&self, instr: &Instruction) -> Option<(InstrId, usize, i64)> {
        let Op::Concatenate { dimension: dim } = instr.op else {
            return None;
        };
        let [a, b] = instr.operands[..] else {
            return None;
        };
        let (Op::Slice { slice: sa }, Op::Slice { slice: sb }) =
            (&self.old.instrs[a].op, &self.old.instrs[b].op)
        else {
            return None;
        };
        let x = self.old.instrs[a].operands[0];
        if self.old.instrs[b].operands[0] != x || a == b {
            return None;
        }
        let global = self.old.instrs[x].shape.dims();
        let whole_elsewhere = |s: &[SliceDimension]| {
            s.iter()
                .enumerate()
                .all(|(d, s)| s.stride == 1 && (d == dim || (s.start == 0 && s.limit == global[d])))
        };
        let size = *global.get(dim)?;
        let shift = size - sa[dim].start;
        if !whole_elsewhere(sa)
            || !whole_elsewhere(sb)
            || sa[dim].limit != size
            || sb[dim].start != 0
            || sb[dim].limit != size - shift
            || shift <= 0
            || shift >= size
        {
            return None;
        }
        for s in [a, b] {
            if self.users[s].iter().any(|&u| u != self.current) {
                return None;
            }
        }
        let (_, t) = match self.values.get(&x)? {
            PValue::Array { id, tiling } if self.groups.is_none() && !tiling.is_unreduced() => {
                (*id, tiling.clone())
            }
            _ => return None,
        };
        halo_exchange::rotate(&t, global, dim, shift)?;
        Some((x, dim, shift))
    }

    /// True if `instr` (a slice) is read only by concatenates that are rotates.
    pub(super) fn read_only_by_rotates(&mut self, instr: &Instruction) -> bool {
        let users = self.users[self.current].clone();
        let me = self.current;
        let ok = !users.is_empty()
            && users.iter().all(|&u| {
                let user = self.old.instrs[u].clone();
                self.current = u;
                let r = self.rotate_pattern(&user).is_some();
                self.current = me;
                r
            });
        ok && matches!(instr.op, Op::Slice { .. })
    }

    /// A rotate along an evenly split dimension: each partition's shard is the end of one
    /// neighbour's shard and the start of the next's, moved with collective-permutes.
    pub(super) fn rotate(
        &mut self,
        instr: &Instruction,
    ) -> Result<(PValue, &'static str), PassError> {
        let (x_old, dim, shift) = self.rotate_pattern(instr).expect("checked by the caller");
        let Some(PValue::Array { id: x, tiling: t }) = self.values.get(&x_old).cloned() else {
            return Err(err(instr, "the rotated operand is not an array"));
        };
        let global = self.old.instrs[x_old].shape.dims().to_vec();
        let pieces = halo_exchange::rotate(&t, &global, dim, shift)
            .ok_or_else(|| err(instr, "the rotate's dimension is not split evenly"))?;
        // The operand slices' placeholders are not read: dropped.
        for &o in &instr.operands {
            if let Some(PValue::Array { id, .. }) = self.values.get(&o).cloned() {
                let zero = self.new.instrs[id].operands.first().copied();
                self.new.order.retain(|&i| i != id && Some(i) != zero);
            }
        }
        let id = self.exchange_halo(x, dim, &pieces, "rotate along a split dimension");
        self.reshard_to_target(
            instr,
            id,
            instr.shape.dims(),
            &t,
            "rotate result to its sharding",
            "concatenate: a rotate, halo exchange with the neighbours (collective-permute)",
        )
    }

    /// A convolution whose input is split along one spatial dimension (stride 1, no base
    /// dilation) and whose result is wanted split the same way: each partition convolves
    /// its rows plus the halos the window reaches into, the padding zeros masked in and
    /// removed from the local convolution. `None` when it does not apply.
    pub(super) fn spatial_convolution(
        &mut self,
        instr: &Instruction,
        d: &ConvolutionDimensionNumbers,
    ) -> Result<Option<(PValue, &'static str)>, PassError> {
        let Op::Convolution { window, .. } = &instr.op else {
            return Ok(None);
        };
        let Some((x, t)) = self.halo_operand(instr, 0) else {
            return Ok(None);
        };
        let split: Vec<usize> = (0..d.input_spatial_dimensions.len())
            .filter(|&i| t.counts[d.input_spatial_dimensions[i]] > 1)
            .collect();
        let [i] = split[..] else {
            return Ok(None);
        };
        let wd = &window.dimensions[i];
        if t.counts[d.input_feature_dimension] > 1 || wd.stride != 1 || wd.base_dilation != 1 {
            return Ok(None);
        }
        let out_rank = instr.shape.rank();
        let mut map = vec![None; out_rank];
        map[d.output_batch_dimension] = Some(d.input_batch_dimension);
        for (o, s) in d
            .output_spatial_dimensions
            .iter()
            .zip(&d.input_spatial_dimensions)
        {
            map[*o] = Some(*s);
        }
        let out = t.project(&map);
        if !self.target(instr)?.same_as(&out) {
            return Ok(None);
        }
        let in_dim = d.input_spatial_dimensions[i];
        let out_dim = d.output_spatial_dimensions[i];
        let global = self.old.instrs[instr.operands[0]].shape.dims().to_vec();
        let out_dims = instr.shape.dims().to_vec();
        if global[in_dim] == 0 {
            return Ok(None);
        }
        let k = t.counts[in_dim];
        let size = shard_size(out_dims[out_dim], k);
        let extent = (wd.size - 1) * wd.window_dilation + 1;
        let starts: Vec<Option<i64>> = (0..self.n)
            .map(|p| {
                let first = t.coords[p][in_dim] * size;
                (first < out_dims[out_dim]).then_some(first - wd.padding_low)
            })
            .collect();
        let w = halo_exchange::windowed_input(&t, &global, in_dim, &starts, size + extent - 1);
        if w.pieces.len() > MAX_HALO_PIECES + 1 || size == 0 {
            self.actions
                .push("the halo reaches past the neighbours: gathered instead".to_string());
            return Ok(None);
        }
        let kernel = self.operand_in(
            instr,
            1,
            &Tiling::replicated(self.old.instrs[instr.operands[1]].shape.rank(), self.n),
            "kernel whole for a spatially split convolution",
        )?;
        let why = "convolution split along a spatial dimension: halo exchange";
        let mut input = self.windowed(x, in_dim, &w, why);
        let outside = starts
            .iter()
            .zip(&w.window_starts)
            .any(|(s, &ws)| s.is_some() && (ws < 0 || ws + w.size > global[in_dim]));
        if outside {
            input = self.mask_outside(input, in_dim, &w.window_starts, global[in_dim]);
        }
        let id = self.emit_clone(
            instr,
            with_dims(&instr.shape, out.shard_dims(&out_dims)),
            vec![input, kernel],
        );
        if let Op::Convolution { window, .. } = &mut self.new.instrs[id].op {
            window.dimensions[i].padding_low = 0;
            window.dimensions[i].padding_high = 0;
        }
        self.reshard_to_target(
            instr,
            id,
            &out_dims,
            &out,
            "convolution result to its sharding",
            "convolution: spatial split, halo exchange (collective-permute), local convolution",
        )
        .map(Some)
    }
}
