//! Which loop nest a fusion's kernel is, decided once before any CLIF is emitted.
//!
//! `plan_kernel` is a list of guard clauses, each in the order the emitters take priority:
//! an in-place `dynamic-update-slice`, a column reduction, a tiled walk (optionally with
//! in-register transposes), and otherwise a loop over the output's rows (whole rows for a
//! row kernel, GEMM output tiles for a kOutput epilogue, chunks of rows for the rest), with
//! or without a vector inner loop and a per-row cache. Every guard records why it took or
//! passed its strategy; the dump prints that list (`*.plan.txt`), `thunk-sequence.txt`
//! prints the chosen strategy on the kernel's line, and the work units the runtime splits
//! come from the plan alone. `codegen/kernel/` then has one emitter per strategy.
//! XLA: the emitter choice of `xla/backends/cpu/codegen/fusion_emitter.cc` and
//! `xla/codegen/emitters/` (loop, in-place DUS, reduction and transpose emitters).

use std::fmt;

use cranelift_codegen::ir::Type;

use super::CodegenError;
use super::elemental::error;
use super::kernel::loops::loop_emitter::IterationSpace;
use super::kernel::loops::row_cache_emitter::{self, CachedValue};
use super::kernel::reductions::column_reduce::{self, ColumnReducePlan};
use super::kernel::tiled::tiled_loops::{self, TiledSpace};
use crate::fusion::loop_invariance::LoopInvariance;
use crate::ir::{ArrayShape, Computation, FusionKind, InstrId, Instruction, Module, Op, Opcode};

/// Columns per work unit of a kOutput epilogue whose rows are longer and a multiple of it:
/// the GEMM hands it output tiles of whole units (`runtime/library/dot.rs`).
const EPILOGUE_UNIT: i64 = 512;

/// Aim for about this many element computations per task when splitting across threads.
const ELEMENTS_PER_TASK: i64 = 1 << 15;

/// What the target and the caller allow the plan to use.
#[derive(Clone, Copy, Debug)]
pub struct PlanOptions {
    /// A vector inner loop may be emitted (`false` for the scalar cross-ISA listing).
    pub vector_loops: bool,
    /// The target has vector registers (column reductions and in-register transposes).
    pub vector_registers: bool,
    /// Kernels may call the native block routines (`kernel/loops/row_cache_emitter.rs`).
    pub block_math: bool,
}

/// The loop nest of one kernel: the strategy, what it reads and writes, and its work units.
#[derive(Clone, Debug)]
pub struct KernelPlan {
    /// The fusion instruction's name.
    pub fusion: String,
    /// The strategy and its parameters.
    pub strategy: Strategy,
    /// Each fusion operand's shape (the first buffers of the kernel's table).
    pub operands: Vec<ArrayShape>,
    /// For kOutput: the dot (or convolution) of the fused computation the runtime computes
    /// first, and its result's shape (the buffer after the operands).
    pub library_result: Option<(InstrId, ArrayShape)>,
    /// The result leaves (the last buffers of the table).
    pub outputs: Vec<ArrayShape>,
    /// Work units of a full run (`0..work_units` covers the output once).
    pub work_units: u64,
    /// Element computations per work unit (at most), for the thread split.
    pub elements_per_unit: i64,
    /// Every guard `plan_kernel` evaluated, in order.
    pub guards: Vec<Guard>,
}

/// The loop nest strategies, one emitter each under `codegen/kernel/`.
#[derive(Clone, Debug)]
pub enum Strategy {
    /// A root `dynamic-update-slice` into a parameter: iterate over the update only; the
    /// runtime guarantees the output buffer already holds operand 0.
    InPlaceDynamicUpdateSlice {
        /// The update's elements in the output's layout.
        update: IterationSpace,
        /// The lane type when the update is computed as vectors along the minor dimension
        /// (each stored at the shifted index, contiguous there too).
        vector: Option<Type>,
    },
    /// A root reduce keeping its input's minor dimension: vectors of columns accumulated
    /// down the rows (`column_reduce.rs`).
    ColumnReduce(ColumnReducePlan),
    /// Strips of tiles, so an operand read across its layout stays in cache
    /// (`tiled_loops.rs`); `transpose` is the lane type of 4x4 / 2x2 in-register
    /// transposes (`vector_transpose.rs`).
    Tiled {
        /// The tiled iteration space.
        tiles: TiledSpace,
        /// In-register transposes of this lane type, or scalar tiles.
        transpose: Option<Type>,
    },
    /// Rows of the output, in layout order.
    Loop(LoopPlan),
}

/// A loop over the output's rows.
#[derive(Clone, Debug)]
pub struct LoopPlan {
    /// What one work unit is.
    pub units: LoopUnits,
    /// The iteration space.
    pub space: IterationSpace,
    /// The vector inner loop's lane type (`vectorize.rs`, `vector_window.rs`), or scalar.
    pub vector: Option<Type>,
    /// Values computed once per row into a stack buffer (`kernel/loops/row_cache_emitter.rs`).
    pub cached: Vec<CachedValue>,
}

/// What a work unit of a [`LoopPlan`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopUnits {
    /// Consecutive elements of one row (at most `loop_emitter::MAX_CHUNK`).
    Elements,
    /// One whole row: its reductions run once, before the row's loop.
    Rows,
    /// The GEMM's output tiles of a kOutput epilogue, in units of `EPILOGUE_UNIT` columns.
    EpilogueTiles,
}

/// One decision of `plan_kernel`: the strategy (or option) considered, whether it was
/// taken, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// What was considered.
    pub what: &'static str,
    /// Taken or not.
    pub taken: bool,
    /// Why.
    pub reason: String,
}

impl Guard {
    fn new(what: &'static str, taken: bool, reason: impl Into<String>) -> Guard {
        Guard {
            what,
            taken,
            reason: reason.into(),
        }
    }
}

/// Plans the kernel of `fusion` (an instruction of `outer`).
pub fn plan_kernel(
    module: &Module,
    outer: &Computation,
    fusion: &Instruction,
    options: PlanOptions,
) -> Result<KernelPlan, CodegenError> {
    let Op::Fusion { kind, calls } = &fusion.op else {
        return Err(error(fusion, "not a fusion"));
    };
    if !matches!(
        kind,
        FusionKind::Loop | FusionKind::Input | FusionKind::Output
    ) {
        return Err(error(fusion, format!("{kind} fusions are library work")));
    }
    let fused = module.computation(*calls);
    let mut operands = Vec::with_capacity(fusion.operands.len());
    for &o in &fusion.operands {
        let shape = outer.instr(o).shape.as_array().ok_or_else(|| {
            error(
                fusion,
                "tuple-shaped fusion operands are not supported by kernels",
            )
            .unsupported()
        })?;
        operands.push(shape.clone());
    }
    let library_result = if *kind == FusionKind::Output {
        let id = fused
            .order
            .iter()
            .copied()
            .find(|&i| matches!(fused.instr(i).opcode(), Opcode::Dot | Opcode::Convolution))
            .ok_or_else(|| error(fusion, "kOutput fusion without a dot"))?;
        let shape = fused
            .instr(id)
            .shape
            .as_array()
            .ok_or_else(|| error(fusion, "dot result is not an array"))?
            .clone();
        Some((id, shape))
    } else {
        None
    };
    let outputs: Vec<ArrayShape> = fusion.shape.leaves().into_iter().cloned().collect();
    if outputs.is_empty() {
        return Err(error(fusion, "fusion has no array result"));
    }
    let root = fused.root_instr();
    let mut guards = Vec::new();

    // A root dynamic-update-slice into a parameter writes only the updated window.
    let in_place = in_place_dus_guard(fused, root, outputs.len());
    let in_place_taken = in_place.taken;
    guards.push(in_place);
    let strategy = if in_place_taken {
        let mut update = fused
            .instr(root.operands[1])
            .shape
            .as_array()
            .ok_or_else(|| error(root, "update is not an array"))?
            .clone();
        update.layout = outputs[0].layout.clone();
        let vector = if options.vector_loops {
            super::kernel::loops::vectorize::vector_type_at(fused, root.operands[1], &update)
        } else {
            None
        };
        guards.push(match vector {
            Some(t) => Guard::new(
                "vector update",
                true,
                format!("{t} lanes: the update has a vector form in the output's layout"),
            ),
            None => Guard::new(
                "vector update",
                false,
                "scalar code asked for, or the update has no vector form in the output's layout",
            ),
        });
        let update = IterationSpace::new(&update);
        Strategy::InPlaceDynamicUpdateSlice { update, vector }
    } else {
        if outputs[1..].iter().any(|o| o.dims != outputs[0].dims) {
            return Err(error(
                fusion,
                "multi-output fusion outputs must have equal dimensions",
            ));
        }
        let library = library_result.as_ref().map(|(id, _)| *id);
        plan_loops(module, fused, root, &outputs, library, options, &mut guards)
    };
    let (work_units, elements_per_unit) = work(fused, &strategy);
    Ok(KernelPlan {
        fusion: fusion.name.clone(),
        strategy,
        operands,
        library_result,
        outputs,
        work_units,
        elements_per_unit,
        guards,
    })
}

/// The guard of [`Strategy::InPlaceDynamicUpdateSlice`].
fn in_place_dus_guard(fused: &Computation, root: &Instruction, outputs: usize) -> Guard {
    const WHAT: &str = "in-place dynamic-update-slice";
    if root.opcode() != Opcode::DynamicUpdateSlice {
        return Guard::new(WHAT, false, format!("the root is {}", root.opcode()));
    }
    if !matches!(fused.instr(root.operands[0]).op, Op::Parameter { .. }) {
        return Guard::new(
            WHAT,
            false,
            "operand 0 of the root is not a fusion parameter",
        );
    }
    if outputs != 1 {
        return Guard::new(WHAT, false, format!("the fusion has {outputs} outputs"));
    }
    Guard::new(
        WHAT,
        true,
        "the root updates a fusion parameter, whose buffer the output shares: only the update's elements are written",
    )
}

/// What the guards of [`plan_loops`] read, and the list they append to.
struct Loops<'a> {
    module: &'a Module,
    fused: &'a Computation,
    output: &'a ArrayShape,
    /// Every output (a multi-output fusion's tuple operands, in order).
    outputs: &'a [ArrayShape],
    /// One output (multi-output fusions get no column reductions nor vector transposes).
    single: bool,
    /// The kOutput epilogue's library result.
    library: Option<InstrId>,
    options: PlanOptions,
    guards: &'a mut Vec<Guard>,
}

/// Every strategy but the in-place update, in priority order.
fn plan_loops(
    module: &Module,
    fused: &Computation,
    root: &Instruction,
    outputs: &[ArrayShape],
    library: Option<InstrId>,
    options: PlanOptions,
    guards: &mut Vec<Guard>,
) -> Strategy {
    // A row kernel computes reductions once per row before the row's loop.
    let invariance = LoopInvariance::of(fused);
    let row_kernel = invariance
        .hoisted()
        .any(|b| fused.instr(b).shape.dims() == root.shape.dims() && reads_reduction(fused, b));
    let (units, space) = if row_kernel {
        (LoopUnits::Rows, IterationSpace::whole_rows(&outputs[0]))
    } else if library.is_some() {
        (
            LoopUnits::EpilogueTiles,
            IterationSpace::with_chunk(&outputs[0], EPILOGUE_UNIT),
        )
    } else {
        (LoopUnits::Elements, IterationSpace::new(&outputs[0]))
    };
    let mut loops = Loops {
        module,
        fused,
        output: &outputs[0],
        outputs,
        single: outputs.len() == 1,
        library,
        options,
        guards,
    };
    if let Some(plan) = loops.column_reduction() {
        return Strategy::ColumnReduce(plan);
    }
    let vector = loops.vector_loop();
    if let Some(tiles) = loops.tiles(vector.is_some(), row_kernel) {
        let transpose = loops.in_register_transposes(&tiles);
        return Strategy::Tiled { tiles, transpose };
    }
    // Values computed once per row into a stack buffer.
    let cached = row_cache_emitter::plan(fused, &space, options.block_math);
    let (what, reason) = match units {
        LoopUnits::Rows => (
            "row loops (whole rows)",
            "a broadcast of a reduction is hoisted out of the row's loop: each row's reductions run once",
        ),
        LoopUnits::EpilogueTiles => (
            "row loops (GEMM output tiles)",
            "a kOutput epilogue runs on each output tile of the GEMM as it is finished",
        ),
        LoopUnits::Elements => (
            "row loops (chunked rows)",
            "the default: work units of consecutive elements in layout order",
        ),
    };
    loops.guards.push(Guard::new(what, true, reason));
    Strategy::Loop(LoopPlan {
        units,
        space,
        vector,
        cached,
    })
}

impl Loops<'_> {
    fn guard(&mut self, what: &'static str, taken: bool, reason: impl Into<String>) {
        self.guards.push(Guard::new(what, taken, reason));
    }

    /// A root reduce keeping the input's minor dimension: the column-reduction emitter.
    fn column_reduction(&mut self) -> Option<ColumnReducePlan> {
        const WHAT: &str = "column reduction";
        if !self.options.vector_registers {
            self.guard(WHAT, false, "no vector registers");
            return None;
        }
        if !self.single {
            self.guard(WHAT, false, "more than one output");
            return None;
        }
        if self.library.is_some() {
            self.guard(WHAT, false, "a kOutput epilogue");
            return None;
        }
        let Some(plan) = column_reduce::plan(self.module, self.fused, self.output) else {
            self.guard(
                WHAT,
                false,
                "the root is not a reduce over rows that keeps its input's minor dimension with a vector combiner",
            );
            return None;
        };
        self.guard(
            WHAT,
            true,
            "the root reduces rows and keeps its input's minor dimension: whole vectors of columns accumulate down the rows",
        );
        match plan.row_chunks {
            Some(r) => self.guard(
                "row chunks",
                true,
                format!(
                    "more than {} KiB of input per column block: {} chunks of {} rows reduce into partial rows on every thread, then combine in chunk order",
                    column_reduce::CHUNK_BYTES / 1024,
                    r.chunks,
                    r.rows_per_chunk
                ),
            ),
            None => self.guard(
                "row chunks",
                false,
                format!(
                    "at most {} KiB of input per column block: column blocks reduce every row",
                    column_reduce::CHUNK_BYTES / 1024
                ),
            ),
        }
        Some(plan)
    }

    /// Elementwise float fusions over contiguous buffers get a vector inner loop; so does a
    /// kOutput epilogue, reading the dot's result like a parameter.
    fn vector_loop(&mut self) -> Option<Type> {
        const WHAT: &str = "vector inner loop";
        if !self.options.vector_loops {
            self.guard(WHAT, false, "scalar code asked for");
            return None;
        }
        let (module, fused, output, library) = (self.module, self.fused, self.output, self.library);
        if !self.single {
            // Each result as vectors, stored side by side: the outputs must share the
            // iteration space's layout (the vector runs along its minor dimension).
            let vector =
                super::kernel::loops::vectorize::multi_output_vector_type(fused, self.outputs);
            match vector {
                Some(t) => self.guard(
                    WHAT,
                    true,
                    format!("{t} lanes for each of the {} outputs", self.outputs.len()),
                ),
                None => self.guard(
                    WHAT,
                    false,
                    "more than one output, and not every one has a vector form in the same layout",
                ),
            }
            return vector;
        }
        let vector =
            super::kernel::loops::vectorize::vector_type(fused, output, library).or_else(|| {
                library.is_none().then(|| {
                    super::kernel::reductions::vector_window::vector_window_type(
                        module, fused, output,
                    )
                })?
            });
        match vector {
            Some(t) => self.guard(
                WHAT,
                true,
                format!("{t} lanes: every op has a vector form and every read is contiguous along the minor dimension"),
            ),
            None => self.guard(
                WHAT,
                false,
                "some op has no vector form, a read is not contiguous along the minor dimension, or the element type is not f32/f64",
            ),
        }
        vector
    }

    /// Scalar loop fusions reading an operand across its layout walk the output in tiles.
    fn tiles(&mut self, vector: bool, row_kernel: bool) -> Option<TiledSpace> {
        const WHAT: &str = "tiled loops";
        if vector {
            self.guard(WHAT, false, "the vector loop is taken");
            return None;
        }
        if row_kernel {
            self.guard(WHAT, false, "a row kernel (reductions once per row)");
            return None;
        }
        let Some(tiles) = tiled_loops::tiled_space(self.fused, self.output) else {
            self.guard(
                WHAT,
                false,
                "no operand is read contiguously along an output dimension other than the minor one",
            );
            return None;
        };
        self.guard(
            WHAT,
            true,
            format!(
                "an operand is contiguous along output dimension {}: strips of {} keep its lines in cache",
                tiles.tiled, tiles.tile
            ),
        );
        Some(tiles)
    }

    /// Float fusions with a block form: 4x4 (f32) / 2x2 (f64) in-register transposes.
    fn in_register_transposes(&mut self, tiles: &TiledSpace) -> Option<Type> {
        const WHAT: &str = "in-register transposes";
        let transpose = if self.options.vector_loops && self.options.vector_registers && self.single
        {
            super::kernel::tiled::vector_transpose::vector_transpose_type(self.fused, tiles)
        } else {
            None
        };
        match transpose {
            Some(t) => self.guard(WHAT, true, format!("{t} blocks")),
            None => self.guard(
                WHAT,
                false,
                "no vector registers, or some op has no block form, or the element type is not f32/f64",
            ),
        }
        transpose
    }
}

/// True if the operand of broadcast `b` reads a reduction (directly or through other ops).
fn reads_reduction(fused: &Computation, b: InstrId) -> bool {
    let mut stack = vec![b];
    let mut seen = std::collections::HashSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let i = fused.instr(id);
        if i.opcode() == Opcode::Reduce {
            return true;
        }
        stack.extend(i.operands.iter().copied());
    }
    false
}

/// Work units and element computations per unit of `strategy` over `fused`.
fn work(fused: &Computation, strategy: &Strategy) -> (u64, i64) {
    // The largest reduction or window one output element computes.
    let reduce_work: i64 = fused
        .iter()
        .filter_map(|(_, i)| match &i.op {
            Op::Reduce { dimensions, .. } => {
                let dims = fused.instr(i.operands[0]).shape.dims().to_vec();
                Some(
                    dimensions
                        .iter()
                        .map(|&d| dims.get(d).copied().unwrap_or(1).max(1))
                        .product(),
                )
            }
            Op::ReduceWindow { window, .. } => {
                Some(window.dimensions.iter().map(|w| w.size.max(1)).product())
            }
            _ => None,
        })
        .max()
        .unwrap_or(1);
    match strategy {
        Strategy::ColumnReduce(plan) => (plan.work_units, plan.elements_per_unit.max(1)),
        Strategy::Tiled { tiles, .. } => (
            tiles.work_units,
            tiles.elements_per_unit().saturating_mul(reduce_work).max(1),
        ),
        Strategy::Loop(LoopPlan {
            units: LoopUnits::Rows,
            space,
            ..
        }) => {
            // Each reduction runs once per row, not once per element.
            let reductions = fused
                .iter()
                .filter(|(_, i)| i.opcode() == Opcode::Reduce)
                .count() as i64;
            (
                space.work_units,
                space.elements_per_unit().saturating_mul(1 + reductions),
            )
        }
        Strategy::Loop(LoopPlan { space, .. })
        | Strategy::InPlaceDynamicUpdateSlice { update: space, .. } => (
            space.work_units,
            space.elements_per_unit().saturating_mul(reduce_work).max(1),
        ),
    }
}

impl KernelPlan {
    /// The smallest worthwhile task: about `ELEMENTS_PER_TASK` element computations.
    pub fn min_units_per_task(&self) -> u64 {
        let per_unit = self.elements_per_unit.max(1);
        ((ELEMENTS_PER_TASK + per_unit - 1) / per_unit).max(1) as u64
    }

    /// Two phases: units `0..n` must all finish before any later unit starts.
    pub fn first_phase_units(&self) -> Option<u64> {
        match &self.strategy {
            Strategy::ColumnReduce(c) => c.row_chunks.map(|r| r.first_phase_units),
            _ => None,
        }
    }

    /// Bytes of scratch the kernel needs after its outputs in the buffer table (0: none).
    pub fn scratch_bytes(&self) -> u64 {
        match &self.strategy {
            Strategy::ColumnReduce(c) => c.row_chunks.map_or(0, |r| r.scratch_bytes),
            _ => 0,
        }
    }

    /// The loop plan, when work units follow the output's physical order with the same
    /// number for every row (plain and row loops; not tiles, column blocks or an update).
    pub fn loop_plan(&self) -> Option<&LoopPlan> {
        match &self.strategy {
            Strategy::Loop(l) => Some(l),
            _ => None,
        }
    }

    /// Elements per work unit when every unit is that many consecutive elements of one row
    /// of the minor dimension, in layout order.
    pub fn unit_elements(&self) -> Option<u64> {
        let space = &self.loop_plan()?.space;
        let n = space.minor.map_or(1, |d| space.shape.dims[d]);
        (space.chunk > 0 && n % space.chunk == 0).then_some(space.chunk as u64)
    }

    /// One line: the strategy and its options (`thunk-sequence.txt`, `explain`).
    pub fn summary(&self) -> String {
        self.strategy.to_string()
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::InPlaceDynamicUpdateSlice { vector, .. } => {
                f.write_str("in-place dynamic-update-slice")?;
                match vector {
                    Some(t) => write!(f, ", {t} vectors"),
                    None => f.write_str(", scalar"),
                }
            }
            Strategy::ColumnReduce(c) => match c.row_chunks {
                Some(r) => write!(f, "column reduction, {} row chunks", r.chunks),
                None => f.write_str("column reduction"),
            },
            Strategy::Tiled { transpose, .. } => match transpose {
                Some(t) => write!(f, "tiled, {t} in-register transposes"),
                None => f.write_str("tiled, scalar"),
            },
            Strategy::Loop(l) => {
                f.write_str(match l.units {
                    LoopUnits::Rows => "whole rows",
                    LoopUnits::EpilogueTiles => "epilogue tiles",
                    LoopUnits::Elements => "chunked rows",
                })?;
                match l.vector {
                    Some(t) => write!(f, ", {t} vectors")?,
                    None => f.write_str(", scalar")?,
                }
                if !l.cached.is_empty() {
                    write!(f, ", {} row-cached", l.cached.len())?;
                }
                Ok(())
            }
        }
    }
}

impl KernelPlan {
    /// The dump's `*.plan.txt`: the strategy, every guard, and the work units; `fused` (the
    /// fusion's computation) names the row cache's entries.
    pub fn write(&self, fused: &Computation) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(out, "kernel {}: {}", self.fusion, self.strategy);
        let _ = writeln!(out, "guards, in priority order:");
        for g in &self.guards {
            let _ = writeln!(
                out,
                "  {} {}: {}",
                if g.taken { "+" } else { "-" },
                g.what,
                g.reason
            );
        }
        let _ = writeln!(
            out,
            "buffers: {} operand{}{}, {} output{}",
            self.operands.len(),
            if self.operands.len() == 1 { "" } else { "s" },
            if self.library_result.is_some() {
                ", the library result"
            } else {
                ""
            },
            self.outputs.len(),
            if self.outputs.len() == 1 { "" } else { "s" },
        );
        let _ = writeln!(
            out,
            "work units: {} of at most {} element computations; tasks of >= {} units",
            self.work_units,
            self.elements_per_unit,
            self.min_units_per_task()
        );
        if let Strategy::ColumnReduce(c) = &self.strategy
            && let Some(r) = c.row_chunks
        {
            let _ = writeln!(
                out,
                "row chunks: units 0..{} reduce {} chunks of {} rows into partial rows ({} bytes of scratch); the rest combine them, after the first phase",
                r.first_phase_units, r.chunks, r.rows_per_chunk, r.scratch_bytes
            );
        }
        if let Strategy::Loop(l) = &self.strategy {
            let _ = writeln!(
                out,
                "iteration space: {} elements of the minor dimension per unit, {} unit{} per row",
                l.space.chunk,
                l.space.chunks_per_row,
                if l.space.chunks_per_row == 1 { "" } else { "s" }
            );
            for c in &l.cached {
                let _ = writeln!(
                    out,
                    "row cache: {} ({})",
                    fused.instr(c.instr).name,
                    c.routine.map_or("inline", |r| r.symbol())
                );
            }
        }
        out
    }
}
