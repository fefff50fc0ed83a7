//! Vectorized column reductions: a fusion whose root is a `reduce` that KEEPS the
//! physical minor-most dimension of its input (`f32[4096,2048]{1,0}` summed over dimension
//! 0, the bias gradient of a dense layer; `[B,H,W,C]` summed over `B,H,W`, batch norm's
//! statistics) with an `add`/`maximum`/`minimum` reducer on f32/f64 and an input the
//! vector loop can compute.
//!
//! The scalar path would compute each output element by walking its column, one element
//! per row: a strided walk that touches a new cache line (and often a new page) per
//! element. Here the input is streamed row by row instead, `acc[c] = acc[c] ⊕ x[r, c]` for a
//! block of columns as `f32x4`/`f64x2` vectors ([`UNROLL`] per iteration, then one vector
//! at a time, then a scalar tail through the reducer itself), with the block's accumulators
//! in memory that stays in L1. Two ways to split the work, chosen by size alone:
//!
//! - **Column blocks** (small inputs): a work unit owns a page of output columns and walks
//!   every row; its accumulators are the output itself, and each column is reduced in the
//!   interpreter's order (init first, then the rows in order).
//! - **Row chunks** (inputs of more than [`CHUNK_BYTES`] per column block): the rows are cut
//!   into chunks of a fixed number of rows, which depends on the shape only. In a first
//!   phase every work unit reduces one chunk of rows of one column block into its own
//!   partial row in a scratch buffer, starting from the chunk's first row and reading
//!   whole rows (up to [`SPLIT_BLOCK_BYTES`]) contiguously, [`ROW_UNROLL`] rows per load
//!   and store of the accumulators; the threads share the chunks, so the input streams on
//!   every core. A second phase (after all of the first) combines each column's partials
//!   in chunk order, starting from the init value. The order of every combine is fixed
//!   by the shape, so the result is the same whatever the thread count.
//!
//! Only `add`'s accumulation type differs from the interpreter (the element type here, as
//! XLA:CPU; the interpreter sums f32 in f64), and with row chunks also its association.
//!
//! What it is not: a row reduction (the reduced dimension is the minor one: see
//! `vector_reduce.rs`). XLA: the column-reduction tiling of
//! `xla/service/gpu/fusions/reduction.cc` (`ReductionKind::kColumn`, whose tiles also split
//! the rows and combine partial results) and the vectorized reduction of the old
//! `xla/service/cpu/ir_emitter.cc` (`EmitVectorizedReduce`, which also vectorizes along the
//! kept minor dimension).

use std::collections::HashMap;

use cranelift_codegen::ir::{InstBuilder, Type, Value};

use super::vector_reduce::{Combine, reducer_kind};
use crate::codegen::CodegenError;
use crate::codegen::elemental::{Emitter, Frame, data_flags};
use crate::ir::{ArrayShape, Computation, ComputationId, InstrId, Module, Op, PrimitiveType};

type R<T> = Result<T, CodegenError>;

/// Bytes of output columns per work unit of column blocks: one page of accumulators, which
/// stays in L1 while the unit's rows stream by, and 4 KiB contiguous reads per row.
const BLOCK_BYTES: i64 = 4096;

/// Bytes of columns per work unit of row chunks: whole rows up to this width (the partial
/// row stays in L1 beside the rows streaming by), so the input is read in address order.
pub const SPLIT_BLOCK_BYTES: i64 = 16 * 1024;

/// Input bytes per row chunk: big enough that the partial rows (one per chunk) are a small
/// share of the traffic, small enough that a few chunks per thread balance the load.
pub const CHUNK_BYTES: i64 = 1 << 20;

/// Vectors per iteration of the main column loop (independent loads and combines for the
/// out-of-order core).
pub const UNROLL: i64 = 4;

/// Rows combined into the accumulators per load and store of them (row chunks): the same
/// order as one row at a time, a quarter of the accumulator traffic.
pub const ROW_UNROLL: i64 = 4;

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
    /// Rows of the reduced dimensions (their product).
    rows: i64,
    /// Rows of the outer output dimensions (their product).
    outer_rows: i64,
    /// The split of the rows into chunks, if any.
    pub row_chunks: Option<RowChunks>,
    /// Work units of a full run (both phases with row chunks).
    pub work_units: u64,
    /// Input elements read per work unit (at most), for the thread split.
    pub elements_per_unit: i64,
}

/// Rows cut into chunks reduced separately, then combined (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowChunks {
    /// Rows per chunk (the last one may be shorter).
    pub rows_per_chunk: i64,
    /// Chunks (at least 2).
    pub chunks: i64,
    /// Work units of the first phase: units `0..first_phase_units` must all finish before
    /// any later unit starts.
    pub first_phase_units: u64,
    /// Bytes of scratch for the partial rows.
    pub scratch_bytes: u64,
}

impl ColumnReducePlan {
    /// The scratch buffer of the partial rows: one row of columns per outer row and chunk.
    fn partials_shape(&self, chunks: &RowChunks) -> ArrayShape {
        ArrayShape::new(
            self.output.element_type,
            &[
                self.outer_rows * chunks.chunks,
                self.output.dims[self.out_minor],
            ],
        )
    }
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
    let vty = crate::codegen::kernel::loops::vectorize::vector_tree_type(fused, input, shape)?;
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
    let bytes = shape.element_type.byte_size() as i64;
    let outer_rows: i64 = out_outer.iter().map(|&d| output.dims[d].max(0)).product();
    let rows: i64 = reduced.iter().map(|&d| shape.dims[d].max(0)).product();
    let mut plan = ColumnReducePlan {
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
        block: 0,
        blocks_per_row: 0,
        rows,
        outer_rows,
        row_chunks: None,
        work_units: 0,
        elements_per_unit: 0,
    };
    // Row chunks when a column block of whole rows holds more than two chunks' worth.
    let split_block = (SPLIT_BLOCK_BYTES / bytes).min(cols);
    let rows_per_chunk = (CHUNK_BYTES / (split_block * bytes)).max(1);
    if rows > rows_per_chunk {
        plan.block = split_block;
        plan.blocks_per_row = (cols + split_block - 1) / split_block;
        let chunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
        let first = outer_rows * chunks * plan.blocks_per_row;
        let second = outer_rows * plan.blocks_per_row;
        plan.row_chunks = Some(RowChunks {
            rows_per_chunk,
            chunks,
            first_phase_units: first as u64,
            scratch_bytes: (outer_rows * chunks * cols * bytes) as u64,
        });
        plan.work_units = (first + second) as u64;
        // A second-phase unit reads one partial per chunk: fewer elements than a chunk.
        plan.elements_per_unit = split_block.saturating_mul(rows_per_chunk);
    } else {
        plan.block = (BLOCK_BYTES / bytes).min(cols);
        plan.blocks_per_row = (cols + plan.block - 1) / plan.block;
        plan.work_units = (outer_rows * plan.blocks_per_row) as u64;
        plan.elements_per_unit = plan.block.saturating_mul(rows.max(1));
    }
    Some(plan)
}

impl ColumnReducePlan {
    /// The input index of output index `out_index` (its kept dimensions) at `ivs` (the
    /// reduced dimensions, in `reduced` order).
    fn input_index(&self, out_index: &[Value], ivs: &[Value]) -> Vec<Value> {
        let mut at = vec![out_index[self.out_minor]; self.input_dims.len()];
        for (&d, &iv) in self.reduced.iter().zip(ivs) {
            at[d] = iv;
        }
        for (&d, &i) in self.kept.iter().zip(out_index) {
            at[d] = i;
        }
        at
    }
}

/// A place holding a column block's accumulators, or a partial to combine.
#[derive(Clone)]
enum Place {
    /// The output at this index (its minor entry is the column).
    Output(Vec<Value>),
    /// This row of the partials' scratch buffer.
    Partial(Value),
}

/// One value combined into a column's accumulator.
#[derive(Clone)]
enum Term {
    /// The reduce's init value.
    Init,
    /// The input at this index (its minor entry is the column).
    Input(Vec<Value>),
    /// What a place holds.
    Stored(Place),
}

/// The buffers a column reduction writes: the output and, with row chunks, the partials.
struct Targets {
    out: Value,
    partials: Option<(Value, ArrayShape)>,
}

/// A column-loop body: the column, and whether it starts a vector (else one scalar).
type ColumnBody<'a, E> = dyn FnMut(&mut E, Value, bool) -> R<()> + 'a;

impl<'m> Emitter<'m, '_, '_> {
    /// Emits work units `begin..end` of `plan` over `frame` (the fused computation's frame),
    /// writing the reduced values to `out`; `scratch` is the partials' buffer (row chunks).
    pub fn emit_column_reduce(
        &mut self,
        frame: &Frame<'m>,
        plan: &ColumnReducePlan,
        out: Value,
        scratch: Option<Value>,
        begin: Value,
        end: Value,
    ) -> R<()> {
        let Some(chunks) = plan.row_chunks else {
            let targets = Targets {
                out,
                partials: None,
            };
            return self.emit_column_blocks(frame, plan, &targets, begin, end);
        };
        let Some(scratch) = scratch else {
            return Err(CodegenError {
                kind: crate::ir::ErrorKind::Internal,
                instruction: frame.comp.root_instr().name.clone(),
                message: "a column reduction in row chunks has no scratch buffer".to_string(),
            });
        };
        let targets = Targets {
            out,
            partials: Some((scratch, plan.partials_shape(&chunks))),
        };
        // Units of the first phase, then (renumbered from 0) of the second.
        let split = self.i64c(chunks.first_phase_units as i64);
        let end1 = self.b.ins().smin(end, split);
        self.emit_partial_rows(frame, plan, &chunks, &targets, begin, end1)?;
        let begin2 = self.b.ins().smax(begin, split);
        let begin2 = self.b.ins().isub(begin2, split);
        let end2 = self.b.ins().isub(end, split);
        self.emit_combine_partials(frame, plan, &chunks, &targets, begin2, end2)
    }

    /// Column blocks: each unit reduces every row of its columns into the output.
    fn emit_column_blocks(
        &mut self,
        frame: &Frame<'m>,
        plan: &ColumnReducePlan,
        targets: &Targets,
        begin: Value,
        end: Value,
    ) -> R<()> {
        let mut unit_body = |this: &mut Self, u: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            let (row, lo, hi) = this.unit_columns(plan, u);
            let out_index = this.outer_index(plan, row);
            let dest = Place::Output(out_index.clone());
            this.column_steps(frame, plan, targets, &dest, &[Term::Init], false, lo, hi)?;
            // Every row of the reduced dimensions, in physical order.
            let sizes: Vec<i64> = plan.reduced.iter().map(|&d| plan.input_dims[d]).collect();
            let mut row_body = |this: &mut Self, ivs: &[Value], accs: Vec<Value>| {
                let at = plan.input_index(&out_index, ivs);
                this.column_steps(
                    frame,
                    plan,
                    targets,
                    &dest,
                    &[Term::Input(at)],
                    true,
                    lo,
                    hi,
                )?;
                Ok(accs)
            };
            let mut ivs = Vec::new();
            this.loop_nest(&sizes, &mut ivs, Vec::new(), &mut row_body)?;
            Ok(accs)
        };
        self.rotated_loop(begin, end, true, Vec::new(), &mut unit_body)?;
        Ok(())
    }

    /// Row chunks, first phase: unit `(outer row, chunk, block)` reduces the chunk's rows of
    /// its columns into partial row `outer row * chunks + chunk`.
    fn emit_partial_rows(
        &mut self,
        frame: &Frame<'m>,
        plan: &ColumnReducePlan,
        chunks: &RowChunks,
        targets: &Targets,
        begin: Value,
        end: Value,
    ) -> R<()> {
        let mut unit_body = |this: &mut Self, u: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            // `partial` counts (outer row, chunk) pairs: the partial row's number.
            let (partial, lo, hi) = this.unit_columns(plan, u);
            let chunk = this.b.ins().urem_imm_s(partial, chunks.chunks);
            let row = this.b.ins().udiv_imm_s(partial, chunks.chunks);
            let out_index = this.outer_index(plan, row);
            let dest = Place::Partial(partial);
            let r0 = this.b.ins().imul_imm_s(chunk, chunks.rows_per_chunk);
            let r1 = this.b.ins().iadd_imm_s(r0, chunks.rows_per_chunk);
            let rows = this.i64c(plan.rows);
            let r1 = this.b.ins().smin(r1, rows);
            // The partial starts as the chunk's first row.
            let first = this.input_row(plan, &out_index, r0);
            this.column_steps(frame, plan, targets, &dest, &[first], false, lo, hi)?;
            let next = this.b.ins().iadd_imm_s(r0, 1);
            let len = this.b.ins().isub(r1, next);
            // ROW_UNROLL is a power of two: the mask rounds down to a multiple.
            let whole = this.b.ins().band_imm_s(len, -ROW_UNROLL);
            let rend = this.b.ins().iadd(next, whole);
            let mut rows_body = |this: &mut Self, r: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                let mut terms = Vec::with_capacity(ROW_UNROLL as usize);
                for k in 0..ROW_UNROLL {
                    let rk = if k == 0 {
                        r
                    } else {
                        this.b.ins().iadd_imm_s(r, k)
                    };
                    terms.push(this.input_row(plan, &out_index, rk));
                }
                this.column_steps(frame, plan, targets, &dest, &terms, true, lo, hi)?;
                Ok(accs)
            };
            this.stepped_loop(next, rend, ROW_UNROLL, true, Vec::new(), &mut rows_body)?;
            let mut row_body = |this: &mut Self, r: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                let term = this.input_row(plan, &out_index, r);
                this.column_steps(frame, plan, targets, &dest, &[term], true, lo, hi)?;
                Ok(accs)
            };
            this.rotated_loop(rend, r1, true, Vec::new(), &mut row_body)?;
            Ok(accs)
        };
        self.rotated_loop(begin, end, true, Vec::new(), &mut unit_body)?;
        Ok(())
    }

    /// Row chunks, second phase: unit `(outer row, block)` combines the init value and the
    /// block's partials, in chunk order, into the output.
    fn emit_combine_partials(
        &mut self,
        frame: &Frame<'m>,
        plan: &ColumnReducePlan,
        chunks: &RowChunks,
        targets: &Targets,
        begin: Value,
        end: Value,
    ) -> R<()> {
        let mut unit_body = |this: &mut Self, u: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            let (row, lo, hi) = this.unit_columns(plan, u);
            let dest = Place::Output(this.outer_index(plan, row));
            this.column_steps(frame, plan, targets, &dest, &[Term::Init], false, lo, hi)?;
            let first = this.b.ins().imul_imm_s(row, chunks.chunks);
            let mut chunk_body = |this: &mut Self, k: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                let partial = Term::Stored(Place::Partial(this.b.ins().iadd(first, k)));
                this.column_steps(frame, plan, targets, &dest, &[partial], true, lo, hi)?;
                Ok(accs)
            };
            this.counted_loop(chunks.chunks, Vec::new(), &mut chunk_body)?;
            Ok(accs)
        };
        self.rotated_loop(begin, end, true, Vec::new(), &mut unit_body)?;
        Ok(())
    }

    /// Work unit `u` as (row of the outer dimensions, or partial row; columns `lo..hi`).
    fn unit_columns(&mut self, plan: &ColumnReducePlan, u: Value) -> (Value, Value, Value) {
        let cols = plan.output.dims[plan.out_minor];
        if plan.blocks_per_row == 1 {
            return (u, self.i64c(0), self.i64c(cols));
        }
        let row = self.b.ins().udiv_imm_s(u, plan.blocks_per_row);
        let blk = self.b.ins().urem_imm_s(u, plan.blocks_per_row);
        let lo = self.b.ins().imul_imm_s(blk, plan.block);
        let hi = self.b.ins().iadd_imm_s(lo, plan.block);
        let n = self.i64c(cols);
        let hi = self.b.ins().smin(hi, n);
        (row, lo, hi)
    }

    /// The output index of row `row` of the outer dimensions (the minor entry zero).
    fn outer_index(&mut self, plan: &ColumnReducePlan, mut row: Value) -> Vec<Value> {
        let zero = self.i64c(0);
        let mut out_index = vec![zero; plan.output.rank()];
        for (k, &d) in plan.out_outer.iter().enumerate().rev() {
            if k == 0 {
                out_index[d] = row;
            } else {
                out_index[d] = self.b.ins().urem_imm_s(row, plan.output.dims[d]);
                row = self.b.ins().udiv_imm_s(row, plan.output.dims[d]);
            }
        }
        out_index
    }

    /// The input at row `r` of the reduced dimensions (counted in physical order) of the
    /// outer output index `out_index`.
    fn input_row(&mut self, plan: &ColumnReducePlan, out_index: &[Value], mut r: Value) -> Term {
        let mut ivs = vec![r; plan.reduced.len()];
        for k in (1..plan.reduced.len()).rev() {
            let n = plan.input_dims[plan.reduced[k]];
            ivs[k] = self.b.ins().urem_imm_s(r, n);
            r = self.b.ins().udiv_imm_s(r, n);
        }
        if let Some(first) = ivs.first_mut() {
            *first = r;
        }
        Term::Input(plan.input_index(out_index, &ivs))
    }

    /// For columns `lo..hi`: `dest = terms[0] ⊕ terms[1] ⊕ ...`, or with `load`,
    /// `dest = dest ⊕ terms[0] ⊕ ...`, left to right.
    #[allow(clippy::too_many_arguments)]
    fn column_steps(
        &mut self,
        frame: &Frame<'m>,
        plan: &ColumnReducePlan,
        targets: &Targets,
        dest: &Place,
        terms: &[Term],
        load: bool,
        lo: Value,
        hi: Value,
    ) -> R<()> {
        let mut step = |this: &mut Self, c: Value, vector: bool| -> R<()> {
            let (base, shape, offset) = this.place(plan, targets, dest, c)?;
            let mut acc = if load {
                Some(this.load_accumulator(frame, plan, base, &shape, offset, vector)?)
            } else {
                None
            };
            for term in terms {
                let x = this.term_value(frame, plan, targets, term, c, vector)?;
                acc = Some(match acc {
                    None => x,
                    Some(a) if vector => this.combine(plan.combine, plan.vty, a, x),
                    Some(a) => this.inline_computation(plan.to_apply, vec![vec![a], vec![x]])?[0],
                });
            }
            let Some(acc) = acc else {
                return Ok(());
            };
            if vector {
                let addr = this.vector_address(base, &shape, offset);
                this.b.ins().store(data_flags(), acc, addr, 0);
            } else {
                this.store_element(base, offset, shape.element_type, acc);
            }
            Ok(())
        };
        self.column_loops(plan, lo, hi, &mut step)
    }

    /// A place's buffer, shape and element offset at column `c`.
    fn place(
        &mut self,
        plan: &ColumnReducePlan,
        targets: &Targets,
        place: &Place,
        c: Value,
    ) -> R<(Value, ArrayShape, Value)> {
        match place {
            Place::Output(index) => {
                let mut at = index.clone();
                at[plan.out_minor] = c;
                let offset = self.physical_offset(&plan.output, &at);
                Ok((targets.out, plan.output.clone(), offset))
            }
            Place::Partial(row) => {
                let Some((base, shape)) = &targets.partials else {
                    return Err(CodegenError {
                        kind: crate::ir::ErrorKind::Internal,
                        instruction: "column reduction".to_string(),
                        message: "a partial row without a scratch buffer".to_string(),
                    });
                };
                let offset = self.physical_offset(shape, &[*row, c]);
                Ok((*base, shape.clone(), offset))
            }
        }
    }

    /// The vector (or element) of `shape` at `offset` of `base`.
    fn load_accumulator(
        &mut self,
        frame: &Frame<'m>,
        plan: &ColumnReducePlan,
        base: Value,
        shape: &ArrayShape,
        offset: Value,
        vector: bool,
    ) -> R<Value> {
        if vector {
            let addr = self.vector_address(base, shape, offset);
            Ok(self.b.ins().load(plan.vty, data_flags(), addr, 0))
        } else {
            let input = frame.comp.instr(plan.input);
            self.load_element(base, offset, shape.element_type, input)
        }
    }

    /// A term's vector (or element) at column `c`.
    fn term_value(
        &mut self,
        frame: &Frame<'m>,
        plan: &ColumnReducePlan,
        targets: &Targets,
        term: &Term,
        c: Value,
        vector: bool,
    ) -> R<Value> {
        match term {
            Term::Init => {
                let init = self.emit1(frame, plan.init, &[])?;
                Ok(if vector {
                    self.b.ins().splat(plan.vty, init)
                } else {
                    init
                })
            }
            Term::Input(at) => {
                let mut x_at = at.clone();
                x_at[plan.input_minor] = c;
                if vector {
                    let mut memo = HashMap::new();
                    self.emit_vector(frame, plan.input, &x_at, plan.vty, &mut memo)
                } else {
                    self.emit1(frame, plan.input, &x_at)
                }
            }
            Term::Stored(place) => {
                let (base, shape, offset) = self.place(plan, targets, place, c)?;
                self.load_accumulator(frame, plan, base, &shape, offset, vector)
            }
        }
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
    use super::{RowChunks, plan};
    use crate::front::hlo_text::parse_module;

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

    /// The row chunks of a reduce that takes this emitter.
    fn chunks(input: &str, result: &str, dims: &str, t: &str) -> Option<RowChunks> {
        let text = format!(
            "HloModule m\n\nadd {{\n  x = {t}[] parameter(0)\n  y = {t}[] parameter(1)\n  ROOT s = {t}[] add(x, y)\n}}\n\nENTRY main {{\n  p0 = {input} parameter(0)\n  c = {t}[] constant(0)\n  ROOT r = {result} reduce(p0, c), dimensions={dims}, to_apply=add\n}}\n"
        );
        let module = parse_module(&text, "t").unwrap().module;
        let entry = module.entry_computation();
        let output = entry.root_instr().shape.as_array().unwrap().clone();
        plan(&module, entry, &output)?.row_chunks
    }

    #[test]
    fn large_column_reductions_split_their_rows_into_chunks() {
        // The bench's column sum: 8 KiB rows, 128 rows (1 MiB) per chunk, 32 chunks; 32
        // units of partial rows, then one combining them.
        let sum = "f32[4096,2048]{1,0}";
        assert_eq!(
            planned(sum, "f32[2048]{0}", "{0}", "f32"),
            Some((33, 2048 * 128))
        );
        assert_eq!(
            chunks(sum, "f32[2048]{0}", "{0}", "f32"),
            Some(RowChunks {
                rows_per_chunk: 128,
                chunks: 32,
                first_phase_units: 32,
                scratch_bytes: 32 * 2048 * 4,
            })
        );
        // Rows wider than 16 KiB: two column blocks per chunk; a kept major dimension
        // multiplies both phases' units.
        assert_eq!(
            chunks("f32[2,300,5000]{2,1,0}", "f32[2,5000]{1,0}", "{1}", "f32"),
            Some(RowChunks {
                rows_per_chunk: 64,
                chunks: 5,
                first_phase_units: 2 * 5 * 2,
                scratch_bytes: 2 * 5 * 5000 * 4,
            })
        );
        // Batch norm's statistics over B,H,W of an NHWC activation.
        let nhwc = chunks("f32[8,56,56,64]{3,2,1,0}", "f32[64]{0}", "{0,1,2}", "f32");
        assert_eq!(nhwc.map(|r| (r.rows_per_chunk, r.chunks)), Some((4096, 7)));
        // At most one chunk's worth of rows: column blocks, no scratch.
        assert_eq!(
            chunks("f32[128,2048]{1,0}", "f32[2048]{0}", "{0}", "f32"),
            None
        );
    }

    #[test]
    fn column_reductions_are_planned_in_page_sized_blocks() {
        // 2048 f32 columns: two blocks of 1024, each reading 128 rows.
        assert_eq!(
            planned("f32[128,2048]{1,0}", "f32[2048]{0}", "{0}", "f32"),
            Some((2, 1024 * 128))
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
