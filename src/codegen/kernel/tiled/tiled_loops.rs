//! Cache-blocked (tiled) iteration for loop fusions that read an operand across its layout:
//! `out{0,1} = transpose(x{1,0}) + y{1,0}` walks the output along its minor
//! dimension, so one operand is read with a stride of a whole row per element: a new cache
//! line per element, each line fetched again for every one of its 16 floats.
//!
//! Here the output's minor dimension `m0` and the dimension `d` along which the strided
//! operand is contiguous are cut into [`TILE`]×[`TILE`] tiles: a work unit is a strip of
//! `TILE` indices along `d` (for one index of the other dimensions), walked tile by tile;
//! inside a tile, `d` is the outer loop and `m0` the inner one. The output and the operands
//! that follow the output's layout still advance contiguously in the inner loop, and the
//! strided operand's `TILE` cache lines (one per `m0`) stay in L1 while `d` runs over the
//! tile, so every line is fetched once.
//!
//! The element code here is the ordinary scalar element emitter: any order of computing a
//! loop fusion's elements gives the same result. Float fusions whose instructions all have
//! a vector form run the same tiles in 4×4 (`f32x4`) or 2×2 (`f64x2`) blocks with
//! in-register transposes instead (`vector_transpose.rs`, which uses this file's
//! [`TiledSpace`] and keeps the scalar element code for the tile edges); this file's loops
//! are the fallback for everything else (integers, f16/bf16, converts, slices, ...). What
//! it is not: a tiling of more than two dimensions.
//! XLA: the tiled transpose emitters (`xla/backends/gpu/codegen/emitters/transpose.cc`);
//! XLA:CPU leaves the order to LLVM.

use cranelift_codegen::ir::{InstBuilder, Value};

use crate::codegen::CodegenError;
use crate::codegen::elemental::Emitter;
use crate::ir::{ArrayShape, Computation, InstrId, Op};

type R<T> = Result<T, CodegenError>;

/// Tile edge in elements: 32 f32 are two cache lines; a 32×32 tile of the strided operand
/// touches 64 lines (4 KiB), well inside L1.
pub const TILE: i64 = 32;

/// The iteration space of a tiled loop fusion (see the module doc).
#[derive(Clone, Debug)]
pub struct TiledSpace {
    /// The output shape.
    pub shape: ArrayShape,
    /// The output's physical minor-most dimension (the inner loop).
    pub minor: usize,
    /// The dimension along which a strided operand is contiguous (tiled with `minor`).
    pub tiled: usize,
    /// The other dimensions, physically most-major first.
    pub rest: Vec<usize>,
    /// Strips along `tiled`.
    pub strips: i64,
    /// Strip height along `tiled`.
    pub tile: i64,
    /// Work units: strips times the product of `rest`.
    pub work_units: u64,
}

impl TiledSpace {
    /// Elements computed per work unit (at most).
    pub fn elements_per_unit(&self) -> i64 {
        self.tile * self.shape.dims[self.minor].max(1)
    }
}

/// The tiled space for a loop fusion computing `fused` into `output`, when some parameter
/// is read (through elementwise ops, copies, transposes, broadcasts, reverses and slices)
/// contiguously along an output dimension other than the output's minor one.
pub fn tiled_space(fused: &Computation, output: &ArrayShape) -> Option<TiledSpace> {
    if output.rank() < 2 {
        return None;
    }
    let minor = *output.layout.minor_to_major.first()?;
    let tiled = strided_read_dimension(fused, output.rank(), minor)?;
    if output.dims[minor] < 2 || output.dims[tiled] < 2 {
        return None;
    }
    let rest: Vec<usize> = output
        .layout
        .minor_to_major
        .iter()
        .rev()
        .copied()
        .filter(|&d| d != minor && d != tiled)
        .collect();
    let strips = (output.dims[tiled] + TILE - 1) / TILE;
    let rows: i64 = rest.iter().map(|&d| output.dims[d].max(0)).product();
    Some(TiledSpace {
        shape: output.clone(),
        minor,
        tiled,
        rest,
        strips,
        tile: TILE,
        work_units: (rows * strips) as u64,
    })
}

/// The first output dimension (≠ `minor`) along which some parameter's physical minor
/// dimension runs, following index maps from the root down.
fn strided_read_dimension(fused: &Computation, rank: usize, minor: usize) -> Option<usize> {
    // Each entry: an instruction and, per its dimension, the output dimension it follows.
    let mut stack: Vec<(InstrId, Vec<Option<usize>>)> =
        vec![(fused.root, (0..rank).map(Some).collect())];
    let mut seen = std::collections::HashSet::new();
    while let Some((id, map)) = stack.pop() {
        if !seen.insert((id, map.clone())) {
            continue;
        }
        let i = fused.instr(id);
        match &i.op {
            Op::Parameter { .. } => {
                let shape = i.shape.as_array()?;
                if let Some(&m) = shape.layout.minor_to_major.first()
                    && let Some(Some(d)) = map.get(m)
                    && *d != minor
                {
                    return Some(*d);
                }
            }
            Op::Transpose { dimensions } => {
                let mut operand = vec![None; map.len()];
                for (r, &o) in dimensions.iter().enumerate() {
                    if let (Some(slot), Some(&m)) = (operand.get_mut(o), map.get(r)) {
                        *slot = m;
                    }
                }
                stack.push((i.operands[0], operand));
            }
            Op::Broadcast { dimensions } => {
                let operand = dimensions.iter().map(|&r| map.get(r).copied().flatten());
                stack.push((i.operands[0], operand.collect()));
            }
            Op::Reverse { .. } | Op::Slice { .. } => stack.push((i.operands[0], map)),
            Op::Compare { .. } => push_same_rank(fused, i, &map, &mut stack),
            Op::Plain(op) if op.is_elementwise() => push_same_rank(fused, i, &map, &mut stack),
            _ => {}
        }
    }
    None
}

/// Elementwise operands follow the same map (rank-0 operands of `select`/`clamp` follow none).
fn push_same_rank(
    fused: &Computation,
    i: &crate::ir::Instruction,
    map: &[Option<usize>],
    stack: &mut Vec<(InstrId, Vec<Option<usize>>)>,
) {
    for &o in &i.operands {
        if fused.instr(o).shape.rank() == map.len() {
            stack.push((o, map.to_vec()));
        }
    }
}

impl<'m> Emitter<'m, '_, '_> {
    /// Work unit `u` of a tiled space: its index over the untiled dimensions (the tiled
    /// and minor entries are left zero for the caller) and its strip `t_lo..t_hi` of the
    /// tiled dimension.
    pub(super) fn tiled_unit(
        &mut self,
        space: &TiledSpace,
        u: Value,
    ) -> (Vec<Value>, Value, Value) {
        let dims = &space.shape.dims;
        let strip = self.b.ins().urem_imm_s(u, space.strips);
        let mut row = self.b.ins().udiv_imm_s(u, space.strips);
        let zero = self.i64c(0);
        let mut index = vec![zero; dims.len()];
        for (k, &d) in space.rest.iter().enumerate().rev() {
            if k == 0 {
                index[d] = row;
            } else {
                index[d] = self.b.ins().urem_imm_s(row, dims[d]);
                row = self.b.ins().udiv_imm_s(row, dims[d]);
            }
        }
        let t_lo = self.b.ins().imul_imm_s(strip, space.tile);
        let t_hi = self.b.ins().iadd_imm_s(t_lo, space.tile);
        let n = self.i64c(dims[space.tiled]);
        let t_hi = self.b.ins().smin(t_hi, n);
        (index, t_lo, t_hi)
    }

    /// The tiled loop nest over work units `begin..end` of `space`: `element(index)` for
    /// every output element of those units (logical dimension order).
    pub fn tiled_loops(
        &mut self,
        space: &TiledSpace,
        begin: Value,
        end: Value,
        element: &mut dyn FnMut(&mut Self, &[Value]) -> R<()>,
    ) -> R<()> {
        let dims = space.shape.dims.clone();
        let n_minor = dims[space.minor];
        let mut unit_body = |this: &mut Self, u: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            let (index, t_lo, t_hi) = this.tiled_unit(space, u);
            let tiles = (n_minor + TILE - 1) / TILE;
            let mut tile = |this: &mut Self, k: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                let m_lo = this.b.ins().imul_imm_s(k, TILE);
                let m_hi = this.b.ins().iadd_imm_s(m_lo, TILE);
                let n = this.i64c(n_minor);
                let m_hi = this.b.ins().smin(m_hi, n);
                let mut outer = |this: &mut Self, t: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                    let mut inner = |this: &mut Self, m: Value, accs: Vec<Value>| {
                        let mut at = index.clone();
                        at[space.tiled] = t;
                        at[space.minor] = m;
                        element(this, &at)?;
                        Ok(accs)
                    };
                    this.rotated_loop(m_lo, m_hi, false, accs, &mut inner)
                };
                this.rotated_loop(t_lo, t_hi, false, accs, &mut outer)
            };
            this.counted_loop(tiles, accs, &mut tile)
        };
        self.rotated_loop(begin, end, true, Vec::new(), &mut unit_body)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::tiled_space;
    use crate::front::hlo_text::parse_module;

    fn space(body: &str, result: &str) -> Option<(usize, usize, u64)> {
        let text = format!("HloModule m\n\nENTRY main {{\n{body}  ROOT r = {result}\n}}\n");
        let module = parse_module(&text, "t").unwrap().module;
        let entry = module.entry_computation();
        let output = entry.root_instr().shape.as_array().unwrap().clone();
        tiled_space(entry, &output).map(|s| (s.minor, s.tiled, s.work_units))
    }

    #[test]
    fn transposed_reads_are_tiled() {
        // transpose_add's fusion: x read through a transpose, y across the output layout.
        let body = "  x = f32[2048,2048]{1,0} parameter(0)\n  y = f32[2048,2048]{1,0} parameter(1)\n  t = f32[2048,2048]{1,0} transpose(x), dimensions={1,0}\n  a = f32[2048,2048]{1,0} add(t, y)\n";
        assert_eq!(
            space(body, "f32[2048,2048]{0,1} copy(a)"),
            Some((0, 1, 2048 / 32))
        );
    }

    #[test]
    fn layout_following_reads_are_not() {
        let body = "  x = f32[64,64]{1,0} parameter(0)\n  y = f32[64,64]{1,0} parameter(1)\n";
        assert_eq!(space(body, "f32[64,64]{1,0} add(x, y)"), None);
        // A transpose whose operand's minor dimension maps to the output's minor one.
        let body = "  x = f32[64,32]{0,1} parameter(0)\n";
        assert_eq!(
            space(body, "f32[32,64]{1,0} transpose(x), dimensions={1,0}"),
            None
        );
    }
}
