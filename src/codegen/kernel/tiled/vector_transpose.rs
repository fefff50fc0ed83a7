//! Vectorized tiled loop fusions: the tiles of `tiled_loops.rs`, computed in
//! `L`×`L` blocks of `f32x4` (`L` = 4) or `f64x2` (`L` = 2) vectors, with the operand read
//! across the output's layout transposed in registers.
//!
//! A block is `L` output elements along the output's minor dimension `m` (contiguous in the
//! output) times `L` along the tiled dimension `t`; it is computed as `L` vectors, vector
//! `k` holding the elements `(m..m+L, t+k)`, and stored as `L` contiguous vector stores.
//! Every parameter the fusion reads is classified by its physical strides along `m` and `t`
//! (through the transposes, copies and broadcasts between it and the root):
//! - stride 1 along `m` ("rows"): `L` contiguous vector loads, one per `t + k`;
//! - stride 1 along `t` ("transposed"): `L` contiguous loads along `t`, one per `m + l`,
//!   then an in-register `L`×`L` transpose (for `f32x4`: `punpckldq`/`punpckhdq` then
//!   `punpcklqdq`/`punpckhqdq`, the shuffle masks Cranelift's x64 backend lowers to one
//!   instruction each; for `f64x2`: one `punpcklqdq` and one `punpckhqdq`);
//! - stride 0 along `m` (broadcast along the vector): one scalar per `t + k`, splat.
//!
//! The elementwise rest of the fusion runs on the `L` vectors lane-wise, as in
//! `vectorize.rs`. The last partial blocks of a tile (sizes not multiples of `L`) run the
//! scalar element code; fusions with anything else (other element types, gathers with
//! other strides, slices, ops without a vector form) keep the scalar tiled loops.
//!
//! Tiles: a work unit is a strip of [`TILE`](super::tiled_loops::TILE) indices along `t`
//! (as in the scalar tiled loops), walked in `TILE`×`TILE` tiles along `m`; inside a tile,
//! block rows (`t`) outer, blocks along `m` inner, so the strided operand's lines of one
//! tile (32 rows of 128 bytes) are reused from L1 by the next block row. Measured on
//! transpose_add (2 cores, a loaded machine, so only coarse differences count): 16×16,
//! 16×32 and 64×64 tiles no better than 32×32; `t` as the inner block loop, or 8-high
//! strips, slower.
//!
//! XLA: XLA:CPU emits loop fusions with its elemental emitter in the output's order and
//! leaves vectorization to LLVM; the tiled in-register transpose is what XLA:GPU's
//! `TransposeFusion` (`xla/backends/gpu/codegen/emitters/transpose.cc`, tiles through
//! shared memory) and Eigen's `ptranspose` on a `PacketBlock<Packet4f, 4>` (the SSE
//! `_MM_TRANSPOSE4_PS` unpack sequence used here) do.

use std::collections::HashMap;

use cranelift_codegen::ir::{
    ConstantData, Endianness, InstBuilder, MemFlagsData, Type, Value, types,
};

use super::tiled_loops::TiledSpace;
use crate::codegen::CodegenError;
use crate::codegen::elemental::{Emitter, Frame, Params, data_flags, error};
use crate::codegen::kernel::loops::loop_emitter::VectorPlan;
use crate::ir::{
    ArrayShape, ComparisonType, Computation, InstrId, Instruction, Op, Opcode, PrimitiveType,
};

type R<T> = Result<T, CodegenError>;

/// For each dimension of an instruction, the output dimension its index follows (`None`:
/// a dimension the block does not vary, not reachable here since transposes and
/// broadcasts map dimensions one to one).
type DimMap = Vec<usize>;

/// The vector type of the blocks of a tiled fusion computing `fused` into `space`'s
/// output, if every instruction has a block form (see the module doc).
pub fn vector_transpose_type(fused: &Computation, space: &TiledSpace) -> Option<Type> {
    let output = &space.shape;
    let (t, vty) = match output.element_type {
        PrimitiveType::F32 => (PrimitiveType::F32, types::F32X4),
        PrimitiveType::F64 => (PrimitiveType::F64, types::F64X2),
        _ => return None,
    };
    let lanes = i64::from(vty.lane_count());
    if output.dims[space.minor] < lanes || output.dims[space.tiled] < lanes {
        return None;
    }
    let mut stack: Vec<(InstrId, DimMap)> = vec![(fused.root, (0..output.rank()).collect())];
    let mut seen = std::collections::HashSet::new();
    while let Some((id, map)) = stack.pop() {
        if !seen.insert((id, map.clone())) {
            continue;
        }
        let i = fused.instr(id);
        let a = i.shape.as_array()?;
        let is_t = a.element_type == t;
        match &i.op {
            Op::Parameter { .. } => {
                if !is_t {
                    return None;
                }
                if a.rank() > 0 {
                    let (s_m, s_t) = strides(a, &map, space);
                    // Block loads use immediate offsets up to `L` strides away.
                    let reach =
                        (s_m.max(s_t) * lanes).saturating_mul(a.element_type.byte_size() as i64);
                    if !(s_m <= 1 || s_t == 1) || reach > i64::from(i32::MAX) {
                        return None;
                    }
                }
            }
            Op::Constant { .. } => {
                if !is_t || a.rank() != 0 {
                    return None;
                }
            }
            Op::Broadcast { dimensions } => {
                if !is_t {
                    return None;
                }
                let operand: DimMap = dimensions.iter().map(|&d| map[d]).collect();
                stack.push((i.operands[0], operand));
            }
            Op::Transpose { dimensions } => {
                if !is_t {
                    return None;
                }
                let mut operand = vec![0; map.len()];
                for (r, &o) in dimensions.iter().enumerate() {
                    *operand.get_mut(o)? = map[r];
                }
                stack.push((i.operands[0], operand));
            }
            Op::Compare {
                comparison_type, ..
            } => {
                // A lane mask that only feeds `select` (as in `vectorize.rs`).
                let float = matches!(comparison_type, None | Some(ComparisonType::Float));
                let only_select = fused.iter().all(|(_, u)| {
                    !u.operands.contains(&id)
                        || (u.op.opcode() == Opcode::Select
                            && u.operands[1..].iter().all(|&o| o != id))
                });
                if !float || !only_select {
                    return None;
                }
                push_operands(fused, &i.operands, &map, t, &mut stack)?;
            }
            Op::Plain(Opcode::Select) => {
                if !is_t || !matches!(fused.instr(i.operands[0]).op, Op::Compare { .. }) {
                    return None;
                }
                // The mask (checked as a compare above), then the values.
                stack.push((i.operands[0], map.clone()));
                push_operands(fused, &i.operands[1..], &map, t, &mut stack)?;
            }
            Op::Plain(op)
                if *op == Opcode::Copy
                    || crate::codegen::kernel::loops::vectorize::vector_op(*op) =>
            {
                if !is_t {
                    return None;
                }
                push_operands(fused, &i.operands, &map, t, &mut stack)?;
            }
            _ => return None,
        }
    }
    Some(vty)
}

/// Pushes `operands` of an elementwise instruction (same map; rank-0 operands, which
/// are splat, with an empty map). Fails on operands of another element type.
fn push_operands(
    fused: &Computation,
    operands: &[InstrId],
    map: &DimMap,
    t: PrimitiveType,
    stack: &mut Vec<(InstrId, DimMap)>,
) -> Option<()> {
    for &o in operands {
        let s = fused.instr(o).shape.as_array()?;
        if s.element_type != t {
            return None;
        }
        if s.rank() == 0 {
            stack.push((o, Vec::new()));
        } else if s.rank() == map.len() {
            stack.push((o, map.clone()));
        } else {
            return None;
        }
    }
    Some(())
}

/// A parameter's physical strides (in elements) along the output's minor and tiled
/// dimensions, when its dimension `p` follows output dimension `map[p]`.
fn strides(shape: &ArrayShape, map: &[usize], space: &TiledSpace) -> (i64, i64) {
    let s = shape.physical_strides();
    let along = |d: usize| -> i64 {
        map.iter()
            .zip(&s)
            .filter(|(m, _)| **m == d)
            .map(|(_, &st)| st as i64)
            .sum()
    };
    (along(space.minor), along(space.tiled))
}

impl<'m> Emitter<'m, '_, '_> {
    /// The tiled loop nest of [`Emitter::tiled_loops`] with `L`×`L` vector blocks inside each
    /// tile (`plan.vty` from [`vector_transpose_type`]); the partial blocks at the tile
    /// edges run `element`, the scalar element code.
    pub fn vector_tiled_loops(
        &mut self,
        space: &TiledSpace,
        plan: &VectorPlan<'_, 'm>,
        begin: Value,
        end: Value,
        element: &mut dyn FnMut(&mut Self, &[Value]) -> R<()>,
    ) -> R<()> {
        let lanes = i64::from(plan.vty.lane_count());
        let dims = space.shape.dims.clone();
        let n_minor = dims[space.minor];
        let (minor, tiled) = (space.minor, space.tiled);
        let mut unit_body = |this: &mut Self, u: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            let (index, t_lo, t_hi) = this.tiled_unit(space, u);
            // t_lo..t_vec in whole blocks, t_vec..t_hi scalar.
            let t_len = this.b.ins().isub(t_hi, t_lo);
            let t_whole = this.b.ins().band_imm_s(t_len, -lanes);
            let t_vec = this.b.ins().iadd(t_lo, t_whole);
            // Square tiles (see the module doc for the sizes measured).
            let m_tile = space.tile;
            let tiles = (n_minor + m_tile - 1) / m_tile;
            let mut tile = |this: &mut Self, k: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                let m_lo = this.b.ins().imul_imm_s(k, m_tile);
                let m_hi = this.b.ins().iadd_imm_s(m_lo, m_tile);
                let n = this.i64c(n_minor);
                let m_hi = this.b.ins().smin(m_hi, n);
                let m_len = this.b.ins().isub(m_hi, m_lo);
                let m_whole = this.b.ins().band_imm_s(m_len, -lanes);
                let m_vec = this.b.ins().iadd(m_lo, m_whole);
                // Whole blocks.
                let mut block_rows = |this: &mut Self, t: Value, accs: Vec<Value>| {
                    let mut blocks = |this: &mut Self, m: Value, accs: Vec<Value>| {
                        let mut at = index.clone();
                        at[tiled] = t;
                        at[minor] = m;
                        this.emit_block(space, plan, &at)?;
                        Ok(accs)
                    };
                    this.stepped_loop(m_lo, m_vec, lanes, true, accs, &mut blocks)
                };
                let accs = this.stepped_loop(t_lo, t_vec, lanes, true, accs, &mut block_rows)?;
                // The scalar edges: the columns right of the blocks, then the rows below.
                let mut scalar = |this: &mut Self, t0: Value, t1: Value, m0: Value, accs| {
                    let mut outer = |this: &mut Self, t: Value, accs: Vec<Value>| {
                        let mut inner = |this: &mut Self, m: Value, accs: Vec<Value>| {
                            let mut at = index.clone();
                            at[tiled] = t;
                            at[minor] = m;
                            element(this, &at)?;
                            Ok(accs)
                        };
                        this.rotated_loop(m0, m_hi, true, accs, &mut inner)
                    };
                    this.rotated_loop(t0, t1, true, accs, &mut outer)
                };
                let accs = scalar(this, t_lo, t_vec, m_vec, accs)?;
                scalar(this, t_vec, t_hi, m_lo, accs)
            };
            this.counted_loop(tiles, accs, &mut tile)
        };
        self.rotated_loop(begin, end, true, Vec::new(), &mut unit_body)?;
        Ok(())
    }

    /// One `L`×`L` block whose first element is output index `at`: computes the root as `L`
    /// vectors and stores vector `k` at `at` + `k` along the tiled dimension.
    fn emit_block(&mut self, space: &TiledSpace, plan: &VectorPlan<'_, 'm>, at: &[Value]) -> R<()> {
        let rank = space.shape.rank();
        let mut memo = HashMap::new();
        let map: DimMap = (0..rank).collect();
        // One result: the tiled strategy plans single-output fusions only.
        let &(root, out, shape) = plan.results.first().ok_or_else(|| CodegenError {
            kind: crate::ir::ErrorKind::Internal,
            instruction: plan.frame.comp.root_instr().name.clone(),
            message: "a vector block with no result".into(),
        })?;
        let vectors =
            self.emit_block_instr(space, plan.frame, root, &map, at, plan.vty, &mut memo)?;
        let offset = self.physical_offset(shape, at);
        let size = shape.element_type.byte_size() as i64;
        let bytes = self.b.ins().imul_imm_s(offset, size);
        let addr = self.b.ins().iadd(out, bytes);
        let row = shape.physical_strides()[space.tiled] as i64 * size;
        for (k, v) in vectors.into_iter().enumerate() {
            let a = self.b.ins().iadd_imm_s(addr, k as i64 * row);
            self.b.ins().store(data_flags(), v, a, 0);
        }
        Ok(())
    }

    /// Instruction `id` (whose dimension `p` follows output dimension `map[p]`) over the
    /// block at `at`, as `L` vectors (vector `k`: tiled index + `k`).
    #[allow(clippy::too_many_arguments)]
    fn emit_block_instr(
        &mut self,
        space: &TiledSpace,
        frame: &Frame<'m>,
        id: InstrId,
        map: &DimMap,
        at: &[Value],
        vty: Type,
        memo: &mut HashMap<(InstrId, DimMap), Vec<Value>>,
    ) -> R<Vec<Value>> {
        if let Some(v) = memo.get(&(id, map.clone())) {
            return Ok(v.clone());
        }
        let instr = frame.comp.instr(id);
        self.enter_instruction(&instr.name);
        let v = self.emit_block_uncached(space, frame, id, instr, map, at, vty, memo);
        self.leave_instruction();
        let v = v?;
        memo.insert((id, map.clone()), v.clone());
        Ok(v)
    }

    #[allow(clippy::too_many_arguments)]
    fn emit_block_uncached(
        &mut self,
        space: &TiledSpace,
        frame: &Frame<'m>,
        id: InstrId,
        instr: &'m Instruction,
        map: &DimMap,
        at: &[Value],
        vty: Type,
        memo: &mut HashMap<(InstrId, DimMap), Vec<Value>>,
    ) -> R<Vec<Value>> {
        let lanes = vty.lane_count() as usize;
        let t = if vty == types::F64X2 {
            PrimitiveType::F64
        } else {
            PrimitiveType::F32
        };
        let splat = |this: &mut Self, s: Value| -> Vec<Value> {
            let v = this.b.ins().splat(vty, s);
            vec![v; lanes]
        };
        let v = match &instr.op {
            Op::Parameter { number } if instr.shape.rank() > 0 => {
                let Params::Buffers(buffers) = &frame.params else {
                    return Err(error(instr, "block parameters come from buffers"));
                };
                let buffer = buffers[*number].clone();
                let index: Vec<Value> = map.iter().map(|&d| at[d]).collect();
                let (s_m, s_t) = strides(&buffer.shape, map, space);
                let offset = self.physical_offset(&buffer.shape, &index);
                let size = t.byte_size() as i64;
                let bytes = self.b.ins().imul_imm_s(offset, size);
                let addr = self.b.ins().iadd(buffer.base, bytes);
                let load = |this: &mut Self, ty: Type, k: i64| {
                    this.b.ins().load(ty, data_flags(), addr, (k * size) as i32)
                };
                if s_m == 1 {
                    // Rows: one contiguous vector per tiled index (the same one if the
                    // parameter does not vary along the tiled dimension).
                    (0..lanes as i64)
                        .map(|k| load(self, vty, k * s_t))
                        .collect()
                } else if s_m == 0 {
                    // Constant along the vector: one scalar per tiled index, splat.
                    (0..lanes as i64)
                        .map(|k| {
                            let s = load(self, vty.lane_type(), k * s_t);
                            self.b.ins().splat(vty, s)
                        })
                        .collect()
                } else if s_t == 1 {
                    // Transposed: one vector along the tiled dimension per minor index.
                    let rows: Vec<Value> = (0..lanes as i64)
                        .map(|l| load(self, vty, l * s_m))
                        .collect();
                    self.transpose_block(&rows)
                } else {
                    return Err(error(instr, "parameter strides have no block form"));
                }
            }
            Op::Parameter { .. } | Op::Constant { .. } => {
                let s = self.emit1(frame, id, &[])?;
                splat(self, s)
            }
            Op::Broadcast { .. } if frame.comp.instr(instr.operands[0]).shape.rank() == 0 => {
                let s = self.emit1(frame, instr.operands[0], &[])?;
                splat(self, s)
            }
            Op::Broadcast { dimensions } => {
                let operand: DimMap = dimensions.iter().map(|&d| map[d]).collect();
                self.emit_block_instr(space, frame, instr.operands[0], &operand, at, vty, memo)?
            }
            Op::Transpose { dimensions } => {
                let mut operand = vec![0; map.len()];
                for (r, &o) in dimensions.iter().enumerate() {
                    operand[o] = map[r];
                }
                self.emit_block_instr(space, frame, instr.operands[0], &operand, at, vty, memo)?
            }
            Op::Compare { direction, .. } => {
                let a = self.block_operand(space, frame, instr, 0, map, at, vty, memo)?;
                let b = self.block_operand(space, frame, instr, 1, map, at, vty, memo)?;
                (0..lanes)
                    .map(|k| self.float_compare(*direction, a[k], b[k]))
                    .collect()
            }
            Op::Plain(_) if self.contraction(frame, id).is_some() => {
                let c = self.contraction(frame, id).expect("checked");
                let multiply = frame.comp.instr(c.multiply);
                let x = self.block_operand(space, frame, multiply, 0, map, at, vty, memo)?;
                let y = self.block_operand(space, frame, multiply, 1, map, at, vty, memo)?;
                let other = 1 - c.product.index();
                let z = self.block_operand(space, frame, instr, other, map, at, vty, memo)?;
                (0..lanes)
                    .map(|k| self.fma_for(c, x[k], y[k], z[k]))
                    .collect()
            }
            Op::Plain(op) => {
                let mut args = Vec::with_capacity(instr.operands.len());
                for k in 0..instr.operands.len() {
                    args.push(self.block_operand(space, frame, instr, k, map, at, vty, memo)?);
                }
                let mut out = Vec::with_capacity(lanes);
                for k in 0..lanes {
                    let a: Vec<Value> = args.iter().map(|v| v[k]).collect();
                    out.push(self.float_lanes(instr, *op, t, &a)?);
                }
                out
            }
            _ => return Err(error(instr, "no block form")),
        };
        Ok(v)
    }

    /// Operand `k` of elementwise `instr` as block vectors (a rank-0 operand splat).
    #[allow(clippy::too_many_arguments)]
    fn block_operand(
        &mut self,
        space: &TiledSpace,
        frame: &Frame<'m>,
        instr: &Instruction,
        k: usize,
        map: &DimMap,
        at: &[Value],
        vty: Type,
        memo: &mut HashMap<(InstrId, DimMap), Vec<Value>>,
    ) -> R<Vec<Value>> {
        let o = instr.operands[k];
        let map = if frame.comp.instr(o).shape.rank() == 0 {
            Vec::new()
        } else {
            map.clone()
        };
        self.emit_block_instr(space, frame, o, &map, at, vty, memo)
    }

    /// The in-register transpose of an `L`×`L` block given as `L` vectors: result vector `k`
    /// holds lane `k` of every input vector.
    fn transpose_block(&mut self, rows: &[Value]) -> Vec<Value> {
        let vty = self.b.func.dfg.value_type(rows[0]);
        let flags = MemFlagsData::new().with_endianness(Endianness::Little);
        let bytes: Vec<Value> = rows
            .iter()
            .map(|&r| self.b.ins().bitcast(types::I8X16, flags, r))
            .collect();
        let shuffle = |this: &mut Self, a: Value, b: Value, mask: [u8; 16]| -> Value {
            let mask = this
                .b
                .func
                .dfg
                .immediates
                .push(ConstantData::from(&mask[..]));
            this.b.ins().shuffle(a, b, mask)
        };
        let out = if rows.len() == 4 {
            // punpckldq / punpckhdq: interleave 32-bit lanes of rows 0,1 and 2,3.
            let t0 = shuffle(self, bytes[0], bytes[1], UNPACK_LO_32);
            let t1 = shuffle(self, bytes[2], bytes[3], UNPACK_LO_32);
            let t2 = shuffle(self, bytes[0], bytes[1], UNPACK_HI_32);
            let t3 = shuffle(self, bytes[2], bytes[3], UNPACK_HI_32);
            // punpcklqdq / punpckhqdq: combine 64-bit halves.
            vec![
                shuffle(self, t0, t1, UNPACK_LO_64),
                shuffle(self, t0, t1, UNPACK_HI_64),
                shuffle(self, t2, t3, UNPACK_LO_64),
                shuffle(self, t2, t3, UNPACK_HI_64),
            ]
        } else {
            vec![
                shuffle(self, bytes[0], bytes[1], UNPACK_LO_64),
                shuffle(self, bytes[0], bytes[1], UNPACK_HI_64),
            ]
        };
        out.into_iter()
            .map(|v| self.b.ins().bitcast(vty, flags, v))
            .collect()
    }
}

/// `shuffle` byte masks (0..15 the first operand's bytes, 16..31 the second's).
/// `[a0, b0, a1, b1]` of 32-bit lanes: x64 `punpckldq`.
const UNPACK_LO_32: [u8; 16] = [0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23];
/// `[a2, b2, a3, b3]` of 32-bit lanes: x64 `punpckhdq`.
const UNPACK_HI_32: [u8; 16] = [8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31];
/// `[a0, b0]` of 64-bit lanes: x64 `punpcklqdq`.
const UNPACK_LO_64: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
/// `[a1, b1]` of 64-bit lanes: x64 `punpckhqdq`.
const UNPACK_HI_64: [u8; 16] = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];
