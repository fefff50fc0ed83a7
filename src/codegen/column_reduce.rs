//! Vectorized column reductions: a fusion whose root is a `reduce` that KEEPS the
//! physical minor-most dimension of its input (`f32[4096,2048]{1,0}` summed over dimension
//! 0, the bias gradient of a dense layer) with an `add`/`maximum`/`minimum` reducer on
//! f32/f64 and an input the vector loop can compute.
//!
//! The scalar path would compute each output element by walking its column, one element
//! per row: a strided walk that touches a new cache line (and often a new page) per
//! element. Here a work unit owns a BLOCK of output columns (one page of them), keeps the
//! block's accumulators in the output buffer itself (in L1 while the unit runs), and streams
//! the input row by row: for every row of the reduced dimensions, `out[c] = out[c] ⊕ x[r, c]`
//! for the block's columns as `f32x4`/`f64x2` vectors, [`UNROLL`] per iteration, then one
//! vector at a time, then a scalar tail through the reducer itself. The input is read once,
//! in address order; threads split the column blocks (and any kept major dimensions).
//!
//! Each column is still reduced in the interpreter's order (init first, then the rows in
//! order), so only `add`'s accumulation type differs from the interpreter (the element type
//! here, as XLA:CPU; the interpreter sums f32 in f64).
//!
//! What it is not: a row reduction (the reduced dimension is the minor one: see
//! `vector_reduce.rs`), nor a split of the ROWS across threads with partial sums (a single
//! column block runs on one thread). XLA: the column-reduction tiling of
//! `xla/service/gpu/fusions/reduction.cc` (`ReductionKind::kColumn`) and the vectorized
//! reduction of the old `xla/service/cpu/ir_emitter.cc` (`EmitVectorizedReduce`, which
//! also vectorizes along the kept minor dimension).

use std::collections::HashMap;

use cranelift_codegen::ir::{InstBuilder, Type, Value};

use super::CodegenError;
use super::elemental::{Emitter, Frame, data_flags};
use super::vector_reduce::{Combine, reducer_kind};
use crate::ir::{ArrayShape, Computation, ComputationId, InstrId, Module, Op, PrimitiveType};

type R<T> = Result<T, CodegenError>;

/// Bytes of output columns per work unit: one page of accumulators, which stays in L1
/// while the unit's rows stream by, and 4 KiB contiguous reads per row.
const BLOCK_BYTES: i64 = 4096;

/// Vectors per iteration of the main column loop (independent loads and combines for the
/// out-of-order core).
pub const UNROLL: i64 = 4;

/// How a column-reduction fusion is emitted (see the module doc).
#[derive(Clone, Debug)]
pub struct ColumnReducePlan {
    input: InstrId,
    init: InstrId,
    to_apply: ComputationId,
    combine: Combine,
    vty: Type,
    input_dims: Vec<i64>,
    /// The input's physical minor-most dimension (kept; the vector dimension).
    input_minor: usize,
    /// Reduced input dimensions, physically most-major first (the row loops).
    reduced: Vec<usize>,
    /// `kept[j]`: the input dimension that output dimension `j` is.
    kept: Vec<usize>,
    /// The output's shape and layout.
    output: ArrayShape,
    /// The output dimension that is `input_minor`.
    out_minor: usize,
    /// The other output dimensions, physically most-major first (split into work units).
    out_outer: Vec<usize>,
    /// Columns per work unit.
    block: i64,
    /// Work units per row of the outer output dimensions.
    blocks_per_row: i64,
    /// Work units of a full run.
    pub work_units: u64,
    /// Input elements read per work unit (at most), for the thread split.
    pub elements_per_unit: i64,
}

/// The plan for `fused` (whose result is `output`) if its root is a column reduction this
/// emitter handles.
pub fn plan(module: &Module, fused: &Computation, output: &ArrayShape) -> Option<ColumnReducePlan> {
    let root = fused.root_instr();
    let Op::Reduce {
        dimensions,
        to_apply,
    } = &root.op
    else {
        return None;
    };
    if root.operands.len() != 2 || dimensions.is_empty() {
        return None;
    }
    let (input, init) = (root.operands[0], root.operands[1]);
    let shape = fused.instr(input).shape.as_array()?;
    if !matches!(shape.element_type, PrimitiveType::F32 | PrimitiveType::F64)
        || output.element_type != shape.element_type
        || fused.instr(init).shape.rank() != 0
    {
        return None;
    }
    let combine = reducer_kind(module, *to_apply)?;
    let input_minor = *shape.layout.minor_to_major.first()?;
    if dimensions.contains(&input_minor) {
        return None;
    }
    let kept: Vec<usize> = (0..shape.rank())
        .filter(|d| !dimensions.contains(d))
        .collect();
    if kept.len() != output.rank() {
        return None;
    }
    let out_minor = *output.layout.minor_to_major.first()?;
    if kept[out_minor] != input_minor || output.dims[out_minor] != shape.dims[input_minor] {
        return None;
    }
    let vty = super::vectorize::vector_tree_type(fused, input, shape)?;
    let lanes = i64::from(vty.lane_count());
    let cols = shape.dims[input_minor];
    if cols < lanes {
        return None;
    }
    let reduced: Vec<usize> = shape
        .layout
        .minor_to_major
        .iter()
        .rev()
        .copied()
        .filter(|d| dimensions.contains(d))
        .collect();
    let out_outer: Vec<usize> = output
        .layout
        .minor_to_major
        .iter()
        .skip(1)
        .rev()
        .copied()
        .collect();
    let block = (BLOCK_BYTES / shape.element_type.byte_size() as i64).min(cols);
    let blocks_per_row = (cols + block - 1) / block;
    let outer_rows: i64 = out_outer.iter().map(|&d| output.dims[d].max(0)).product();
    let rows: i64 = reduced.iter().map(|&d| shape.dims[d].max(0)).product();
    Some(ColumnReducePlan {
        input,
        init,
        to_apply: *to_apply,
        combine,
        vty,
        input_dims: shape.dims.clone(),
        input_minor,
        reduced,
        kept,
        output: output.clone(),
        out_minor,
        out_outer,
        block,
        blocks_per_row,
        work_units: (outer_rows * blocks_per_row) as u64,
        elements_per_unit: block.saturating_mul(rows.max(1)),
    })
}

/// A column-loop body: the column, and whether it starts a vector (else one scalar).
type ColumnBody<'a, E> = dyn FnMut(&mut E, Value, bool) -> R<()> + 'a;

impl<'m> Emitter<'m, '_, '_> {
    /// Emits work units `begin..end` of `plan` over `frame` (the fused computation's frame),
    /// writing the reduced values to `out`.
    pub fn emit_column_reduce(
        &mut self,
        frame: &Frame<'m>,
        plan: &ColumnReducePlan,
        out: Value,
        begin: Value,
        end: Value,
    ) -> R<()> {
        let cols = plan.output.dims[plan.out_minor];
        let mut unit_body = |this: &mut Self, u: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            let (mut row, lo, hi) = if plan.blocks_per_row == 1 {
                (u, this.i64c(0), this.i64c(cols))
            } else {
                let row = this.b.ins().udiv_imm_s(u, plan.blocks_per_row);
                let blk = this.b.ins().urem_imm_s(u, plan.blocks_per_row);
                let lo = this.b.ins().imul_imm_s(blk, plan.block);
                let hi = this.b.ins().iadd_imm_s(lo, plan.block);
                let n = this.i64c(cols);
                let hi = this.b.ins().smin(hi, n);
                (row, lo, hi)
            };
            let zero = this.i64c(0);
            let mut out_index = vec![zero; plan.output.rank()];
            for (k, &d) in plan.out_outer.iter().enumerate().rev() {
                if k == 0 {
                    out_index[d] = row;
                } else {
                    out_index[d] = this.b.ins().urem_imm_s(row, plan.output.dims[d]);
                    row = this.b.ins().udiv_imm_s(row, plan.output.dims[d]);
                }
            }
            // The block's accumulators start at the init value.
            let init = this.emit1(frame, plan.init, &[])?;
            let init_v = this.b.ins().splat(plan.vty, init);
            let mut fill = |this: &mut Self, c: Value, vector: bool| -> R<()> {
                let mut at = out_index.clone();
                at[plan.out_minor] = c;
                let offset = this.physical_offset(&plan.output, &at);
                if vector {
                    let addr = this.vector_address(out, &plan.output, offset);
                    this.b.ins().store(data_flags(), init_v, addr, 0);
                } else {
                    this.store_element(out, offset, plan.output.element_type, init);
                }
                Ok(())
            };
            this.column_loops(plan, lo, hi, &mut fill)?;
            // Every row of the reduced dimensions, in physical order.
            let sizes: Vec<i64> = plan.reduced.iter().map(|&d| plan.input_dims[d]).collect();
            let mut row_body = |this: &mut Self, ivs: &[Value], accs: Vec<Value>| {
                let mut at = vec![zero; plan.input_dims.len()];
                for (&d, &iv) in plan.reduced.iter().zip(ivs) {
                    at[d] = iv;
                }
                for (&d, &i) in plan.kept.iter().zip(&out_index) {
                    at[d] = i;
                }
                let mut step = |this: &mut Self, c: Value, vector: bool| -> R<()> {
                    let mut o = out_index.clone();
                    o[plan.out_minor] = c;
                    let mut x_at = at.clone();
                    x_at[plan.input_minor] = c;
                    let offset = this.physical_offset(&plan.output, &o);
                    if vector {
                        let addr = this.vector_address(out, &plan.output, offset);
                        let acc = this.b.ins().load(plan.vty, data_flags(), addr, 0);
                        let mut memo = HashMap::new();
                        let x = this.emit_vector(frame, plan.input, &x_at, plan.vty, &mut memo)?;
                        let r = this.combine(plan.combine, plan.vty, acc, x);
                        this.b.ins().store(data_flags(), r, addr, 0);
                    } else {
                        let t = plan.output.element_type;
                        let input = frame.comp.instr(plan.input);
                        let acc = this.load_element(out, offset, t, input)?;
                        let x = this.emit1(frame, plan.input, &x_at)?;
                        let r = this.inline_computation(plan.to_apply, vec![vec![acc], vec![x]])?;
                        this.store_element(out, offset, t, r[0]);
                    }
                    Ok(())
                };
                this.column_loops(plan, lo, hi, &mut step)?;
                Ok(accs)
            };
            let mut ivs = Vec::new();
            this.loop_nest(&sizes, &mut ivs, Vec::new(), &mut row_body)?;
            Ok(accs)
        };
        self.rotated_loop(begin, end, true, Vec::new(), &mut unit_body)?;
        Ok(())
    }

    /// Columns `lo..hi` of one row: [`UNROLL`] vectors per iteration, then single vectors,
    /// then single elements; `body` emits one vector or element at its column.
    fn column_loops(
        &mut self,
        plan: &ColumnReducePlan,
        lo: Value,
        hi: Value,
        body: &mut ColumnBody<'_, Self>,
    ) -> R<()> {
        let lanes = i64::from(plan.vty.lane_count());
        let len = self.b.ins().isub(hi, lo);
        // lanes and UNROLL are powers of two, so the masks round down to multiples.
        let whole_u = self.b.ins().band_imm_s(len, -(UNROLL * lanes));
        let vend_u = self.b.ins().iadd(lo, whole_u);
        let whole = self.b.ins().band_imm_s(len, -lanes);
        let vend = self.b.ins().iadd(lo, whole);
        let mut unrolled = |this: &mut Self, c: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            for k in 0..UNROLL {
                let ck = if k == 0 {
                    c
                } else {
                    this.b.ins().iadd_imm_s(c, k * lanes)
                };
                body(this, ck, true)?;
            }
            Ok(accs)
        };
        self.stepped_loop(lo, vend_u, UNROLL * lanes, true, Vec::new(), &mut unrolled)?;
        let mut single = |this: &mut Self, c: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            body(this, c, true)?;
            Ok(accs)
        };
        self.stepped_loop(vend_u, vend, lanes, true, Vec::new(), &mut single)?;
        let mut scalar = |this: &mut Self, c: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            body(this, c, false)?;
            Ok(accs)
        };
        self.rotated_loop(vend, hi, true, Vec::new(), &mut scalar)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::plan;
    use crate::ir::hlo_text::parse_module;

    /// Which reduces take this emitter (the outputs are checked against the interpreter in
    /// `codegen/tests/reduce.rs`).
    fn planned(input: &str, result: &str, dims: &str, t: &str) -> Option<(u64, i64)> {
        let text = format!(
            "HloModule m\n\nadd {{\n  x = {t}[] parameter(0)\n  y = {t}[] parameter(1)\n  ROOT s = {t}[] add(x, y)\n}}\n\nENTRY main {{\n  p0 = {input} parameter(0)\n  c = {t}[] constant(0)\n  ROOT r = {result} reduce(p0, c), dimensions={dims}, to_apply=add\n}}\n"
        );
        let module = parse_module(&text, "t").unwrap().module;
        let entry = module.entry_computation();
        let output = entry.root_instr().shape.as_array().unwrap().clone();
        plan(&module, entry, &output).map(|p| (p.work_units, p.elements_per_unit))
    }

    #[test]
    fn column_reductions_are_planned_in_page_sized_blocks() {
        // 2048 f32 columns: two blocks of 1024, each reading 4096 rows.
        assert_eq!(
            planned("f32[4096,2048]{1,0}", "f32[2048]{0}", "{0}", "f32"),
            Some((2, 1024 * 4096))
        );
        // A kept major dimension multiplies the units.
        assert_eq!(
            planned("f64[3,5,600]{2,1,0}", "f64[3,600]{1,0}", "{1}", "f64"),
            Some((6, 512 * 5))
        );
    }

    #[test]
    fn other_reductions_are_not() {
        // The minor dimension is reduced: a row reduction.
        assert_eq!(planned("f32[8,64]{1,0}", "f32[8]{0}", "{1}", "f32"), None);
        // Physically the same: dimension 0 is minor here.
        assert_eq!(planned("f32[64,8]{0,1}", "f32[8]{0}", "{0}", "f32"), None);
        // Fewer columns than lanes.
        assert_eq!(planned("f32[64,3]{1,0}", "f32[3]{0}", "{0}", "f32"), None);
        // Integers take the scalar path.
        assert_eq!(planned("s32[64,8]{1,0}", "s32[8]{0}", "{0}", "s32"), None);
        // The output lays the kept dimensions out differently from the input.
        assert_eq!(
            planned("f32[6,5,18]{2,1,0}", "f32[6,18]{0,1}", "{1}", "f32"),
            None
        );
    }
}
