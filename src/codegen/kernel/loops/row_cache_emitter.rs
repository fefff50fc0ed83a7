//! The row cache: the codegen half of `fusion/row_cache.rs`. Before a row's loops, the
//! kernel computes each cached value over the whole row into a stack buffer, then every
//! read of that value at the row's index (in the row's loop, or in a reduction's loop over
//! the row) is a load from the buffer. Two kinds of values are cached:
//!
//! - a value read in two loops of the row (softmax's `exp(x - max)`, read by the row sum and
//!   by the division): computed once instead of twice;
//! - an f32 `exponential` or `tanh` when the host runs the native block routines of
//!   `codegen/block_math` (AVX-512): the kernel stores the operand row, calls the routine
//!   once over it, and reads the results. Cranelift's widest vectors are 128 bits; the
//!   routine's are 512, and it computes the same bits as the inline f32x4 code
//!   (`codegen/math`), so caching changes the speed, not the results.
//!
//! Every read checks that its index is the row's own (the same SSA values for the outer
//! dimensions); any other read computes the value as usual, so the cache cannot be misread.
//! XLA:CPU's closest relative is YNNPACK's row-wise softmax (`__ynn_fusion`); its inline
//! `exp`/`tanh` are vectorized by LLVM at the full AVX-512 width instead.

use std::collections::BTreeSet;

use cranelift_codegen::ir::{
    InstBuilder, MemFlagsData, StackSlot, StackSlotData, StackSlotKind, Type, Value, types,
};

use super::loop_emitter::IterationSpace;
use crate::codegen::CodegenError;
use crate::codegen::block_math::{PREFETCH_QUEUE_BYTES, PREFETCH_STREAMS};
use crate::codegen::elemental::element_generator::{HeldRow, PointerLoads};
use crate::codegen::elemental::{Emitter, Frame, data_flags};
use crate::fusion::cpu_fusion_policy::is_expensive;
use crate::fusion::row_cache::{MAX_CACHED, RowCacheAnalysis};
use crate::ir::{ArrayShape, Computation, InstrId, Opcode, PrimitiveType};

type R<T> = Result<T, CodegenError>;

/// Vectors per iteration of the loop filling a row (independent work for the out-of-order
/// core; four f32x4 are one 64-byte line of each row).
const FILL_UNROLL: i64 = 4;

/// A native routine computing one op over a whole row in place (`codegen/block_math`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockRoutine {
    /// f32 `exponential`.
    ExpF32,
    /// f32 `tanh`.
    TanhF32,
}

impl BlockRoutine {
    /// The routine for `op` on `t`, if there is one.
    pub fn of(op: Opcode, t: PrimitiveType) -> Option<BlockRoutine> {
        match (op, t) {
            (Opcode::Exp, PrimitiveType::F32) => Some(BlockRoutine::ExpF32),
            (Opcode::Tanh, PrimitiveType::F32) => Some(BlockRoutine::TanhF32),
            _ => None,
        }
    }

    /// The symbol the kernel calls, `(data: *mut T, n: u64, queue, lines)`.
    pub fn symbol(self) -> &'static str {
        match self {
            BlockRoutine::ExpF32 => "xlac_block_exp_f32",
            BlockRoutine::TanhF32 => "xlac_block_tanh_f32",
        }
    }
}

/// One value a kernel caches per row.
#[derive(Clone, Debug)]
pub struct CachedValue {
    /// The instruction of the fused computation.
    pub instr: InstrId,
    /// The native routine computing it from its operand's row, or `None` when the kernel
    /// computes it inline.
    pub routine: Option<BlockRoutine>,
}

/// A row kernel's prefetch queue: the stack slot its rows fill and its block routine calls
/// drain, the streams it names, and each call's share of lines.
struct RowPrefetch {
    slot: StackSlot,
    streams: Vec<(Value, ArrayShape)>,
    lines_per_call: i64,
}

/// The row strategy's context for one kernel: the values it caches per row and the
/// prefetch queue their block routine calls drain.
pub(crate) struct RowKernel<'p> {
    cached: &'p [CachedValue],
    prefetch: Option<RowPrefetch>,
}

impl<'p> RowKernel<'p> {
    /// Sets up a row kernel caching `cached` (in the entry block): the prefetch queue of
    /// `streams` when block routines are called, and then the pointer reloads of
    /// `pointers` (loaded from `table`), so that no pointer lives across the calls.
    pub(crate) fn start(
        e: &mut Emitter<'_, '_, '_>,
        cached: &'p [CachedValue],
        space: &IterationSpace,
        streams: Vec<(Value, ArrayShape)>,
        (table, pointers): (Value, Vec<Value>),
    ) -> RowKernel<'p> {
        let prefetch = e.start_row_prefetch(streams, space, cached);
        if cached.iter().any(|c| c.routine.is_some()) {
            e.start_pointer_reloads(table, pointers);
        }
        RowKernel { cached, prefetch }
    }

    /// Before the row at `index`: fresh pointers, the next row queued for prefetching, the
    /// row cache filled, and fresh pointers again after its routine calls.
    pub(crate) fn before_row<'m>(
        &self,
        e: &mut Emitter<'m, '_, '_>,
        frame: &Frame<'m>,
        space: &IterationSpace,
        index: &[Value],
        vty: Option<Type>,
    ) -> R<()> {
        e.reload_pointers();
        if let Some(pf) = &self.prefetch {
            e.queue_next_row(pf, space, index);
        }
        e.fill_row_cache(
            frame,
            self.cached,
            space,
            index,
            vty,
            self.prefetch.as_ref(),
        )?;
        e.reload_pointers();
        Ok(())
    }
}

/// The values the kernel of `fused` over `space` caches per row, in computation order;
/// `block_math` says whether the native block routines may be called. Empty unless every
/// work unit is a whole row or one of equal chunks of it (then "row" below means the unit's
/// chunk).
pub fn plan(fused: &Computation, space: &IterationSpace, block_math: bool) -> Vec<CachedValue> {
    let Some(minor) = space.minor else {
        return Vec::new();
    };
    // Each unit caches its own chunk of the row; the chunks must be equal (a kOutput
    // epilogue's 512-column units of a GEMM tile), so that one stack buffer fits them all.
    if space.chunk <= 0 || space.shape.dims[minor] % space.chunk != 0 {
        return Vec::new();
    }
    // A reduction's loop reads its row outside the unit's chunk.
    let chunked = space.chunk < space.shape.dims[minor];
    if chunked && fused.iter().any(|(_, i)| i.opcode() == Opcode::Reduce) {
        return Vec::new();
    }
    let analysis = RowCacheAnalysis::of(fused);
    let mut cached = Vec::new();
    for &id in &fused.order {
        let instr = fused.instr(id);
        if !analysis.cacheable(fused, id) {
            continue;
        }
        let routine = instr
            .shape
            .element_type()
            .and_then(|t| BlockRoutine::of(instr.opcode(), t))
            .filter(|_| block_math);
        // Only computed values are worth a row: a parameter is a load either way.
        let computed = instr.opcode().is_elementwise() && instr.opcode() != Opcode::Parameter;
        if routine.is_some()
            || (computed && is_expensive(fused, instr) && analysis.reused(fused, id))
        {
            cached.push(CachedValue { instr: id, routine });
        }
        if cached.len() == MAX_CACHED {
            break;
        }
    }
    cached
}

impl<'m> Emitter<'m, '_, '_> {
    /// Fills the row cache for the row at `index` (the work unit's index; its minor entry is
    /// a placeholder). Cached values that do not read each other share one loop over the
    /// row (the row's inputs are read once for all of them); each group first emits what
    /// its values read once per row, then the loop, then the block routines.
    /// `vty` is the kernel's vector type, if it has one; the routine calls drain `prefetch`.
    fn fill_row_cache(
        &mut self,
        frame: &Frame<'m>,
        cached: &[CachedValue],
        space: &IterationSpace,
        index: &[Value],
        vty: Option<Type>,
        prefetch: Option<&RowPrefetch>,
    ) -> R<()> {
        let Some(minor) = space.minor else {
            return Ok(());
        };
        // The unit's chunk of the row: `n` elements from `index[minor]`.
        let n = space.chunk;
        let lo = index[minor];
        let varying: BTreeSet<usize> = [minor].into();
        for group in independent_groups(frame.comp, cached) {
            let mut rows = Vec::with_capacity(group.len());
            for c in group {
                let instr = frame.comp.instr(c.instr);
                let element_type = instr.shape.element_type().unwrap_or(PrimitiveType::F32);
                self.hoist_invariant_broadcasts(frame, c.instr, index, &varying)?;
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    (n * element_type.byte_size() as i64) as u32,
                    6,
                ));
                let base = self.b.ins().stack_addr(types::I64, slot, 0);
                // With a routine, the row holds the operand first; the routine overwrites it.
                let what = match c.routine {
                    Some(_) => instr.operands[0],
                    None => c.instr,
                };
                rows.push((c, what, base, element_type));
            }
            // The vector loop only if every value of the group computes as `vty` vectors.
            let vty = vty.filter(|&t| {
                rows.iter().all(|&(c, what, _, _)| {
                    frame.comp.instr(c.instr).shape.as_array().is_some_and(|s| {
                        super::vectorize::vector_tree_type(frame.comp, what, s) == Some(t)
                    })
                })
            });
            let at = |this: &mut Self, j: Value| -> Vec<Value> {
                let mut at = index.to_vec();
                at[minor] = this.b.ins().iadd(lo, j);
                at
            };
            // The vector loop's part of the row; the scalar loop does the rest.
            let whole = vty.map_or(0, |t| {
                n / i64::from(t.lane_count()) * i64::from(t.lane_count())
            });
            if let Some(vty) = vty {
                // FILL_UNROLL vectors per iteration, then at most FILL_UNROLL - 1 single ones.
                // The stores go row by row: 64 bytes of one row are one cache line, which
                // the core commits two stores at a time (a row per store would be one).
                let lanes = i64::from(vty.lane_count());
                let wide = n / (FILL_UNROLL * lanes) * (FILL_UNROLL * lanes);
                for (from, to, count) in [(0, wide, FILL_UNROLL), (wide, whole, 1)] {
                    if to <= from {
                        continue;
                    }
                    let start = self.i64c(from);
                    let end = self.i64c(to);
                    let mut body = |this: &mut Self, j: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                        let mut values = Vec::with_capacity(count as usize * rows.len());
                        for k in 0..count {
                            let j = this.b.ins().iadd_imm_s(j, k * lanes);
                            let idx = at(this, j);
                            let mut memo = std::collections::HashMap::new();
                            for &(_, what, _, _) in &rows {
                                values.push(this.emit_vector(frame, what, &idx, vty, &mut memo)?);
                            }
                        }
                        for (r, &(_, _, base, t)) in rows.iter().enumerate() {
                            let bytes = this.b.ins().imul_imm_s(j, t.byte_size() as i64);
                            let addr = this.b.ins().iadd(base, bytes);
                            for k in 0..count {
                                let v = values[k as usize * rows.len() + r];
                                let offset = (k * lanes * t.byte_size() as i64) as i32;
                                this.b.ins().store(data_flags(), v, addr, offset);
                            }
                        }
                        Ok(accs)
                    };
                    self.stepped_loop(start, end, count * lanes, false, Vec::new(), &mut body)?;
                }
            }
            let mut tail = |this: &mut Self, k: Value, accs: Vec<Value>| -> R<Vec<Value>> {
                let j = this.b.ins().iadd_imm_s(k, whole);
                let idx = at(this, j);
                for &(_, what, base, t) in &rows {
                    let v = this.emit1(frame, what, &idx)?;
                    this.store_element(base, j, t, v);
                }
                Ok(accs)
            };
            self.counted_loop(n - whole, Vec::new(), &mut tail)?;
            for (c, _, base, element_type) in rows {
                if let Some(routine) = c.routine {
                    // The call is the op's code now: tag it with the op's name for the dumps.
                    self.enter_instruction(&frame.comp.instr(c.instr).name);
                    let len = self.i64c(n);
                    let (queue, lines) = match prefetch {
                        Some(pf) => {
                            let (slot, lines) = (pf.slot, pf.lines_per_call);
                            (
                                self.b.ins().stack_addr(types::I64, slot, 0),
                                self.i64c(lines),
                            )
                        }
                        None => (self.i64c(0), self.i64c(0)),
                    };
                    self.libcall_no_result(routine.symbol(), &[base, len, queue, lines]);
                    self.leave_instruction();
                }
                self.generator.rows.insert(
                    (frame.id, c.instr),
                    HeldRow {
                        base,
                        outer: index.to_vec(),
                        minor,
                        lo,
                        element_type,
                    },
                );
            }
        }
        Ok(())
    }

    /// Sets up the kernel's prefetch queue (`codegen::block_math::PrefetchQueue`), in the
    /// entry block: a zeroed stack slot, and each block routine call's share of the lines
    /// `streams` (buffer base and shape, each with the kernel's dimensions and layout) span
    /// per row. Without routine calls there is no queue: the routines are where the row
    /// waits on nothing but arithmetic.
    fn start_row_prefetch(
        &mut self,
        streams: Vec<(Value, ArrayShape)>,
        space: &IterationSpace,
        cached: &[CachedValue],
    ) -> Option<RowPrefetch> {
        let calls = cached.iter().filter(|c| c.routine.is_some()).count() as i64;
        let minor = space.minor?;
        if calls == 0 || streams.is_empty() {
            return None;
        }
        let mut streams = streams;
        streams.truncate(PREFETCH_STREAMS);
        let n = space.chunk.min(space.shape.dims[minor]);
        // One more line per stream: a row need not start on a line boundary.
        let lines: i64 = streams
            .iter()
            .map(|(_, s)| (n * s.element_type.byte_size() as i64 + 63) / 64 + 1)
            .sum();
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            PREFETCH_QUEUE_BYTES as u32,
            3,
        ));
        let zero = self.i64c(0);
        let queue = self.b.ins().stack_addr(types::I64, slot, 0);
        for k in 0..(PREFETCH_QUEUE_BYTES / 8) as i32 {
            self.b.ins().store(data_flags(), zero, queue, 8 * k);
        }
        Some(RowPrefetch {
            slot,
            streams,
            lines_per_call: (lines + calls - 1) / calls,
        })
    }

    /// From here on, reads and writes through the pointers `entry` (loaded from `table` in
    /// the entry block, in table order) use the loads of the latest [`Self::reload_pointers`].
    fn start_pointer_reloads(&mut self, table: Value, entry: Vec<Value>) {
        self.generator.pointers = Some(PointerLoads {
            table,
            current: entry.clone(),
            entry,
        });
    }

    /// Loads the buffer pointers afresh (not `readonly`, so that the egraph does not merge
    /// them with the loads before a call).
    fn reload_pointers(&mut self) {
        let Some(mut reloads) = self.generator.pointers.take() else {
            return;
        };
        for (k, v) in reloads.current.iter_mut().enumerate() {
            *v = self.b.ins().load(
                types::I64,
                MemFlagsData::trusted(),
                reloads.table,
                8 * k as i32,
            );
        }
        self.generator.pointers = Some(reloads);
    }

    /// Before the row at `index`: queues the next row of each stream for the row's block
    /// routines to prefetch (the last row's successor lies past the buffer; a prefetch
    /// never faults).
    fn queue_next_row(&mut self, pf: &RowPrefetch, space: &IterationSpace, index: &[Value]) {
        if space.minor.is_none() {
            return;
        }
        // The next unit's chunk (the next row's, for whole rows).
        let n = space.chunk;
        for (k, (base, shape)) in pf.streams.iter().enumerate() {
            let size = shape.element_type.byte_size() as i64;
            let row = self.physical_offset(shape, index);
            let next = self.b.ins().iadd_imm_s(row, n);
            let bytes = self.b.ins().imul_imm_s(next, size);
            let base = self.base(*base);
            let from = self.b.ins().iadd(base, bytes);
            let to = self.b.ins().iadd_imm_s(from, n * size);
            let queue = self.b.ins().stack_addr(types::I64, pf.slot, 0);
            self.b.ins().store(data_flags(), from, queue, 16 * k as i32);
            self.b
                .ins()
                .store(data_flags(), to, queue, 16 * k as i32 + 8);
        }
    }
}

/// `cached` cut into consecutive groups whose values do not read one another (directly or
/// through other instructions), so each group can be filled by one loop.
fn independent_groups<'c>(comp: &Computation, cached: &'c [CachedValue]) -> Vec<&'c [CachedValue]> {
    let mut groups = Vec::new();
    let mut start = 0;
    for k in 0..cached.len() {
        let reads_group = cached[start..k]
            .iter()
            .any(|earlier| reads(comp, cached[k].instr, earlier.instr));
        if reads_group {
            groups.push(&cached[start..k]);
            start = k;
        }
    }
    if start < cached.len() {
        groups.push(&cached[start..]);
    }
    groups
}

/// True if `id` reads `value` (is it or depends on it).
fn reads(comp: &Computation, id: InstrId, value: InstrId) -> bool {
    let mut stack = vec![id];
    let mut seen = std::collections::HashSet::new();
    while let Some(i) = stack.pop() {
        if i == value {
            return true;
        }
        if seen.insert(i) {
            stack.extend(comp.instr(i).operands.iter().copied());
        }
    }
    false
}
