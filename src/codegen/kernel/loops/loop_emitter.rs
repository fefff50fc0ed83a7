//! Loops: the counted loops element code needs (reductions, windows) and the loop nest of a
//! kernel over its work units. Every loop is ROTATED: a guard (only when the trip count is not
//! known to be positive), then a body block that is its own header and ends in
//! `brif next < end, body, exit`; one branch per iteration, and Cranelift hoists constants
//! out of rotated loops but not out of top-tested ones.
//! Loop-carried values are block parameters.
//!
//! A kernel's iteration space is its output shape in PHYSICAL order: the minor-most
//! dimension (first of `minor_to_major`) is the innermost loop, cut into chunks of at most
//! [`MAX_CHUNK`] elements; a work unit is one chunk of one row of the outer dimensions.
//! XLA: `llvm_ir::LoopEmitter` (`xla/service/llvm_ir/loop_emitter.cc`).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Type, Value, types};

use crate::codegen::CodegenError;
use crate::codegen::elemental::{Emitter, Frame, block_args};
use crate::ir::{ArrayShape, InstrId};

type R<T> = Result<T, CodegenError>;

/// A loop body: gets the induction variable and the carried values, returns the next ones.
pub type LoopBody<'a, E> = dyn FnMut(&mut E, Value, Vec<Value>) -> R<Vec<Value>> + 'a;

/// Work done once per work unit before its loops: gets the unit's output index.
pub type RowPrologue<'a, E> = dyn FnMut(&mut E, &[Value]) -> R<()> + 'a;

/// Minor dimensions up to this size are one work unit per row; longer ones are cut into
/// chunks of this many elements so a 1-D kernel still splits across threads.
pub const MAX_CHUNK: i64 = 2048;

/// Vectors per iteration of a kernel's vector loop over its work unit.
pub const VECTOR_UNROLL: i64 = 4;

/// What the vector inner loop computes: each result of the fusion (the root, or the
/// operands of a multi-output fusion's tuple) as `vty` vectors, stored to its output.
pub struct VectorPlan<'a, 'm> {
    /// The fused computation's frame.
    pub frame: &'a Frame<'m>,
    /// The results, each with its output buffer and that output's shape and layout.
    pub results: Vec<(InstrId, Value, &'a ArrayShape)>,
    /// `f32x4` or `f64x2`.
    pub vty: Type,
    /// Added to the loop index where results are stored (an in-place dynamic-update-slice
    /// stores its update at the clamped start); empty: stored at the loop index.
    pub store_shift: Vec<Value>,
}

/// How a kernel's output index space maps onto work units.
#[derive(Clone, Debug)]
pub struct IterationSpace {
    /// The shape iterated (dims and layout).
    pub shape: ArrayShape,
    /// The innermost (minor-most) dimension, if the rank is positive.
    pub minor: Option<usize>,
    /// Outer dimensions, most-major first.
    pub outer: Vec<usize>,
    /// Elements of the minor dimension per work unit.
    pub chunk: i64,
    /// Work units per row of the outer dimensions.
    pub chunks_per_row: i64,
    /// Total work units.
    pub work_units: u64,
}

impl IterationSpace {
    /// The iteration space of `shape`.
    pub fn new(shape: &ArrayShape) -> IterationSpace {
        let m2m = &shape.layout.minor_to_major;
        let minor = m2m.first().copied();
        let outer: Vec<usize> = m2m.iter().skip(1).rev().copied().collect();
        let n_minor = minor.map(|d| shape.dims[d]).unwrap_or(1);
        let chunk = if n_minor <= MAX_CHUNK {
            n_minor
        } else {
            MAX_CHUNK / 2
        };
        let chunks_per_row = if n_minor <= 0 {
            0
        } else {
            (n_minor + chunk - 1) / chunk
        };
        let rows: i64 = outer.iter().map(|&d| shape.dims[d].max(0)).product();
        IterationSpace {
            shape: shape.clone(),
            minor,
            outer,
            chunk,
            chunks_per_row,
            work_units: (rows * chunks_per_row) as u64,
        }
    }

    /// The iteration space of `shape` whose rows, when longer than `chunk` and a multiple
    /// of it, are cut into units of `chunk` elements (otherwise as [`Self::new`]).
    pub fn with_chunk(shape: &ArrayShape, chunk: i64) -> IterationSpace {
        let mut space = IterationSpace::new(shape);
        if let Some(minor) = space.minor {
            let n_minor = shape.dims[minor];
            if chunk > 0 && n_minor > chunk && n_minor % chunk == 0 {
                let rows = space.work_units / space.chunks_per_row.max(1) as u64;
                space.chunk = chunk;
                space.chunks_per_row = n_minor / chunk;
                space.work_units = rows * space.chunks_per_row as u64;
            }
        }
        space
    }

    /// The iteration space of `shape` with whole rows as work units, however long: for
    /// kernels that compute something once per row before the row's loop (`hoist.rs`),
    /// where cutting a row into chunks would redo that work per chunk.
    pub fn whole_rows(shape: &ArrayShape) -> IterationSpace {
        let mut space = IterationSpace::new(shape);
        if let Some(minor) = space.minor {
            let n_minor = shape.dims[minor];
            if n_minor > 0 {
                let rows = space.work_units / space.chunks_per_row.max(1) as u64;
                space.chunk = n_minor;
                space.chunks_per_row = 1;
                space.work_units = rows;
            }
        }
        space
    }

    /// Elements computed per work unit.
    pub fn elements_per_unit(&self) -> i64 {
        self.chunk.max(1)
    }
}

impl<'m> Emitter<'m, '_, '_> {
    /// A loop over `0..trip` (a compile-time count) carrying `accs`; `body` returns the next
    /// accumulators. Emits nothing for `trip <= 0`.
    pub fn counted_loop(
        &mut self,
        trip: i64,
        accs: Vec<Value>,
        body: &mut LoopBody<'_, Self>,
    ) -> R<Vec<Value>> {
        if trip <= 0 {
            return Ok(accs);
        }
        let start = self.i64c(0);
        let end = self.i64c(trip);
        self.rotated_loop(start, end, false, accs, body)
    }

    /// A loop over `start..end` carrying `accs`; with `guard`, checks `start < end` first.
    pub fn rotated_loop(
        &mut self,
        start: Value,
        end: Value,
        guard: bool,
        accs: Vec<Value>,
        body: &mut LoopBody<'_, Self>,
    ) -> R<Vec<Value>> {
        self.stepped_loop(start, end, 1, guard, accs, body)
    }

    /// [`Self::rotated_loop`] advancing by `step`; `end - start` must be a multiple of it.
    pub fn stepped_loop(
        &mut self,
        start: Value,
        end: Value,
        step: i64,
        guard: bool,
        accs: Vec<Value>,
        body: &mut LoopBody<'_, Self>,
    ) -> R<Vec<Value>> {
        let types: Vec<_> = accs
            .iter()
            .map(|&v| self.b.func.dfg.value_type(v))
            .collect();
        let body_block = self.b.create_block();
        let exit = self.b.create_block();
        self.b.append_block_param(body_block, types::I64);
        for &t in &types {
            self.b.append_block_param(body_block, t);
            self.b.append_block_param(exit, t);
        }
        let mut entry_args = vec![start];
        entry_args.extend(&accs);
        if guard {
            let any = self.b.ins().icmp(IntCC::SignedLessThan, start, end);
            self.b.ins().brif(
                any,
                body_block,
                &block_args(&entry_args),
                exit,
                &block_args(&accs),
            );
        } else {
            self.b.ins().jump(body_block, &block_args(&entry_args));
        }
        self.b.switch_to_block(body_block);
        let params = self.b.block_params(body_block).to_vec();
        let iv = params[0];
        self.push_scope();
        let next = body(self, iv, params[1..].to_vec());
        self.pop_scope();
        let next = next?;
        let iv_next = self.b.ins().iadd_imm_s(iv, step);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, iv_next, end);
        let mut loop_args = vec![iv_next];
        loop_args.extend(&next);
        self.b.ins().brif(
            more,
            body_block,
            &block_args(&loop_args),
            exit,
            &block_args(&next),
        );
        self.b.switch_to_block(exit);
        Ok(self.b.block_params(exit).to_vec())
    }

    /// The kernel's loop nest: for each work unit in `begin..end`, for each element of its
    /// chunk, `element(index)` with the full output index (logical dimension order).
    pub fn work_unit_loops(
        &mut self,
        space: &IterationSpace,
        begin: Value,
        end: Value,
        element: &mut dyn FnMut(&mut Self, &[Value]) -> R<()>,
    ) -> R<()> {
        self.work_unit_loops_vectorized(space, begin, end, 1, None, None, element)
    }

    /// [`Self::work_unit_loops`] with a vector body: with `lanes > 1`, the inner loop runs
    /// `vector_element` on `lanes` consecutive minor-dimension elements (its index names the
    /// first) and `element` on the scalar tail. `row_prologue`, if any, runs once per work
    /// unit before its loops, with the unit's index (minor entry: the unit's first).
    #[allow(clippy::too_many_arguments)]
    pub fn work_unit_loops_vectorized(
        &mut self,
        space: &IterationSpace,
        begin: Value,
        end: Value,
        lanes: i64,
        vector: Option<&VectorPlan<'_, 'm>>,
        mut row_prologue: Option<&mut RowPrologue<'_, Self>>,
        element: &mut dyn FnMut(&mut Self, &[Value]) -> R<()>,
    ) -> R<()> {
        let rank = space.shape.rank();
        let Some(minor) = space.minor else {
            // Rank 0: one unit, one element.
            let mut body = |this: &mut Self, _u: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                element(this, &[])?;
                Ok(accs)
            };
            self.rotated_loop(begin, end, true, Vec::new(), &mut body)?;
            return Ok(());
        };
        let dims = space.shape.dims.clone();
        let mut unit_body = |this: &mut Self, u: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            let zero = this.i64c(0);
            let mut index = vec![zero; rank];
            // u = row * chunks_per_row + chunk; row splits over the outer dims, minor first.
            let (mut row, lo, hi) = if space.chunks_per_row == 1 {
                (u, this.i64c(0), this.i64c(dims[minor]))
            } else {
                let row = this.b.ins().udiv_imm_s(u, space.chunks_per_row);
                let chunk = this.b.ins().urem_imm_s(u, space.chunks_per_row);
                let lo = this.b.ins().imul_imm_s(chunk, space.chunk);
                let hi = this.b.ins().iadd_imm_s(lo, space.chunk);
                let n = this.i64c(dims[minor]);
                let hi = this.b.ins().smin(hi, n);
                (row, lo, hi)
            };
            for (k, &d) in space.outer.iter().enumerate().rev() {
                if k == 0 {
                    index[d] = row;
                } else {
                    index[d] = this.b.ins().urem_imm_s(row, dims[d]);
                    row = this.b.ins().udiv_imm_s(row, dims[d]);
                }
            }
            if let Some(prologue) = row_prologue.as_mut() {
                // The unit's first minor index: where its chunk of the row starts.
                let mut index = index.clone();
                index[minor] = lo;
                prologue(this, &index)?;
            }
            let mut scalar_start = lo;
            let mut tail_guard = false;
            if let (Some(plan), true) = (vector, lanes > 1) {
                // Vector part: lo .. lo + (hi - lo) rounded down to a multiple of lanes,
                // VECTOR_UNROLL vectors per iteration (independent work for the out-of-order
                // core; four f32x4 fill one 64-byte line of the output), then single
                // vectors, then the scalar tail.
                let len = this.b.ins().isub(hi, lo);
                let wide = this.b.ins().band_imm_s(len, -VECTOR_UNROLL * lanes);
                let vend_wide = this.b.ins().iadd(lo, wide);
                let whole = this.b.ins().band_imm_s(len, -lanes);
                let vend = this.b.ins().iadd(lo, whole);
                let vectors = |this: &mut Self, i: Value, count: i64| -> R<()> {
                    for k in 0..count {
                        let mut index = index.clone();
                        index[minor] = if k == 0 {
                            i
                        } else {
                            this.b.ins().iadd_imm_s(i, k * lanes)
                        };
                        // One memo for all results: what they share is computed once.
                        let mut memo = std::collections::HashMap::new();
                        let at: Vec<Value> = if plan.store_shift.is_empty() {
                            index.clone()
                        } else {
                            index
                                .iter()
                                .zip(&plan.store_shift)
                                .map(|(&i, &s)| this.b.ins().iadd(i, s))
                                .collect()
                        };
                        for &(root, out, shape) in &plan.results {
                            let v =
                                this.emit_vector(plan.frame, root, &index, plan.vty, &mut memo)?;
                            this.store_vector(out, shape, &at, v);
                        }
                    }
                    Ok(())
                };
                let mut wide_body =
                    |this: &mut Self, i: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                        vectors(this, i, VECTOR_UNROLL)?;
                        Ok(accs)
                    };
                let step = VECTOR_UNROLL * lanes;
                this.stepped_loop(lo, vend_wide, step, true, Vec::new(), &mut wide_body)?;
                let mut vbody1 = |this: &mut Self, i: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                    vectors(this, i, 1)?;
                    Ok(accs)
                };
                this.stepped_loop(vend_wide, vend, lanes, true, Vec::new(), &mut vbody1)?;
                scalar_start = vend;
                tail_guard = true;
            }
            let mut inner = |this: &mut Self, i: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                let mut index = index.clone();
                index[minor] = i;
                element(this, &index)?;
                Ok(accs)
            };
            this.rotated_loop(scalar_start, hi, tail_guard, Vec::new(), &mut inner)?;
            Ok(accs)
        };
        self.rotated_loop(begin, end, true, Vec::new(), &mut unit_body)?;
        Ok(())
    }
}
