//! Thunks: the runtime's instructions. Each one does one thing to buffers (run a kernel,
//! call a library routine, copy, loop over nested sequences); a computation becomes a
//! [`ThunkSequence`] run in schedule order. `thunk-sequence.txt` is their `Display`.
//! XLA: `xla/backends/cpu/runtime/thunk.h`, `kernel_thunk.h`, `copy_thunk.h`,
//! `dot_thunk.h`, `while_thunk.h`, `conditional_thunk.h`, `call_thunk.h`.

use std::fmt::{self, Write as _};

use crate::codegen::KernelFn;
use crate::ir::{ArrayLiteral, ComputationId, InstrId, ShapeIndex};
use crate::layout::Slice;

pub use super::memory::{BufferRef, ParallelCopy};

/// One generated kernel call.
#[derive(Clone, Debug)]
pub struct KernelThunk {
    /// The fusion instruction.
    pub name: String,
    /// The code.
    pub entry: KernelFn,
    /// Operand slices then result slices: the kernel's buffer table.
    pub buffers: Vec<Slice>,
    /// `0..work_units` is the whole output.
    pub work_units: u64,
    /// Smallest range worth a task of its own.
    pub min_units_per_task: u64,
    /// Split the range over the rayon pool (the output is big enough).
    pub parallel: bool,
    /// An explicit split chosen by `--autotune`, overriding `parallel`.
    pub split: Option<super::tuning::Split>,
    /// The kernel's loop nest in one line (`codegen/plan.rs`), for `thunk-sequence.txt`.
    pub strategy: String,
    /// Two phases: units `0..n` all finish before any later unit starts.
    pub first_phase_units: Option<u64>,
    /// The scratch buffer appended to the table, when the kernel needs one.
    pub scratch: Option<ScratchPool>,
}

/// A kernel's scratch buffers of one size, kept for later calls: a call takes one (or makes
/// one) and puts it back when done, so runs on several threads never share one.
#[derive(Clone)]
pub struct ScratchPool {
    bytes: usize,
    free: std::sync::Arc<std::sync::Mutex<Vec<super::buffers::AlignedBuffer>>>,
}

impl ScratchPool {
    /// A pool of `bytes`-sized buffers (none allocated yet).
    pub fn new(bytes: usize) -> ScratchPool {
        ScratchPool {
            bytes,
            free: Default::default(),
        }
    }

    /// A buffer for one call.
    pub fn take(&self) -> super::buffers::AlignedBuffer {
        let free = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        free.unwrap_or_else(|| super::buffers::AlignedBuffer::new(self.bytes))
    }

    /// Returns a buffer [`ScratchPool::take`] gave out.
    pub fn give_back(&self, buffer: super::buffers::AlignedBuffer) {
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(buffer);
    }
}

impl std::fmt::Debug for ScratchPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ScratchPool({} bytes)", self.bytes)
    }
}

pub use super::library::convolution::ConvolutionThunk;
pub use super::library::dot::DotThunk;

/// One op run by the reference interpreter's implementation of that op: operands are read
/// out of their buffers into literals, the result written back. Named as such in
/// `thunk-sequence.txt`.
#[derive(Clone, Debug)]
pub struct ReferenceThunk {
    /// The instruction's name.
    pub name: String,
    /// Its opcode as HLO prints it.
    pub opcode: String,
    /// Where it lives.
    pub computation: ComputationId,
    /// The instruction.
    pub instruction: InstrId,
    /// Per operand: its shape and the buffers of its array leaves (by shape index).
    pub operands: Vec<(crate::ir::Shape, Vec<(ShapeIndex, BufferRef)>)>,
    /// The result's array leaves.
    pub result: Vec<(ShapeIndex, BufferRef)>,
}

/// The reduction of a collective thunk.
#[derive(Clone, Copy, Debug)]
pub enum CollectiveReducer {
    /// One binary op, as a native loop.
    Native(super::collectives::reduction::Native),
    /// The reduction computation compiled to a scalar function.
    Compiled(super::collectives::reduction::Compiled),
}

/// A collective: its operands go to the device runtime (`collectives`), its results come
/// back. Resolved against the grid it runs on at its first run.
#[derive(Debug)]
pub struct CollectiveThunk {
    /// The instruction (its attributes say the groups).
    pub instruction: crate::ir::Instruction,
    /// Operand arrays.
    pub operands: Vec<BufferRef>,
    /// Result arrays (one per operand).
    pub results: Vec<BufferRef>,
    /// The reduction, for all-reduce and reduce-scatter.
    pub reducer: Option<CollectiveReducer>,
    /// The op on the grid it last ran on.
    pub resolved: std::sync::Mutex<
        Option<(
            super::collectives::DeviceGrid,
            super::collectives::CollectiveOp,
        )>,
    >,
}

/// A copy for another device: the op resolves against the grid that device runs on.
impl Clone for CollectiveThunk {
    fn clone(&self) -> CollectiveThunk {
        CollectiveThunk {
            instruction: self.instruction.clone(),
            operands: self.operands.clone(),
            results: self.results.clone(),
            reducer: self.reducer,
            resolved: std::sync::Mutex::new(None),
        }
    }
}

/// A nested sequence with the copies into its parameters and out of its root (empty
/// where the plan shares the buffers, as XLA's does for loop state).
#[derive(Clone, Debug)]
pub struct Region {
    /// The computation's thunks.
    pub sequence: ThunkSequence,
    /// Arguments into the computation's parameters.
    pub enter: ParallelCopy,
    /// The root's array leaves.
    pub root: Vec<BufferRef>,
    /// The root into the caller's result (or the loop state).
    pub exit: ParallelCopy,
}

/// One runtime step.
#[derive(Clone, Debug)]
pub enum Thunk {
    /// A generated kernel (`kLoop`/`kInput` fusion).
    Kernel(KernelThunk),
    /// A `kOutput` fusion: the dot into the output buffer, then the epilogue kernel.
    OutputFusion {
        /// The dot, writing into the fusion's output (or `scratch`).
        dot: DotThunk,
        /// The epilogue, reading the dot result.
        epilogue: KernelThunk,
        /// The epilogue's work units per row of the GEMM's output, when each thread's block
        /// of GEMM rows can take its epilogue tile by tile right after computing it, while
        /// the tile is still in that core's cache (`dot::run_with_epilogue`); `None`: the
        /// epilogue runs after the whole GEMM.
        units_per_row: Option<u64>,
        /// GEMM columns per epilogue work unit, when every unit is that many columns of
        /// one row: tiles may then cut rows at unit boundaries. `None`: whole rows.
        columns_per_unit: Option<u64>,
    },
    /// A `copy` (relayout when the layouts differ).
    Copy {
        /// The copy instruction.
        name: String,
        /// From, to.
        copy: ParallelCopy,
    },
    /// Copies that stand in for buffer sharing the plan did not do (tuple, get-tuple-element,
    /// bitcast, in-place update operands).
    AliasCopy {
        /// The instruction the alias belongs to.
        name: String,
        /// The copies.
        copy: ParallelCopy,
    },
    /// A constant outside a constant allocation, written on every run.
    Constant {
        /// The constant instruction.
        name: String,
        /// Its array leaves and where they go.
        leaves: Vec<(ArrayLiteral, BufferRef)>,
    },
    /// `dot` through the GEMM.
    Dot(DotThunk),
    /// `convolution` through im2col and the GEMM.
    Convolution(ConvolutionThunk),
    /// A native library routine (sort, scatter, select-and-scatter, LAPACK).
    Library(super::library::LibraryThunk),
    /// An op run by the reference implementation.
    Reference(ReferenceThunk),
    /// `rng` (native; its counter lives in the run's context).
    Rng(super::library::rng::RngThunk),
    /// A collective through the device runtime.
    Collective(Box<CollectiveThunk>),
    /// `replica-id` or `partition-id`: this device's id as a `u32[]`.
    DeviceIndex {
        /// The instruction's name.
        name: String,
        /// `partition-id` (else `replica-id`).
        partition: bool,
        /// Where the id goes.
        out: BufferRef,
    },
    /// `while`: the state lives in the while's result buffers; each step copies it into
    /// the condition's and body's parameters and the body's root back, where the plan
    /// did not share them.
    While {
        /// The while instruction.
        name: String,
        /// Init operand leaves to state.
        init: ParallelCopy,
        /// The condition computation; its root is a `pred[]`.
        condition: Box<Region>,
        /// The body computation.
        body: Box<Region>,
    },
    /// `conditional`: selector, then one branch (its operand in, its root out).
    Conditional {
        /// The conditional instruction.
        name: String,
        /// The `pred[]` or `s32[]` selector.
        selector: BufferRef,
        /// The branches, in branch-index order.
        branches: Vec<Region>,
    },
    /// `call`: operands in, callee, root out.
    Call {
        /// The call instruction.
        name: String,
        /// The callee.
        callee: Box<Region>,
    },
}

/// The thunks of one computation, in schedule order.
#[derive(Clone, Debug, Default)]
pub struct ThunkSequence {
    /// The computation's name.
    pub computation: String,
    /// The steps.
    pub thunks: Vec<Thunk>,
}

impl ThunkSequence {
    /// Writes the sequence, indented by `depth` levels.
    pub fn write(&self, out: &mut String, depth: usize) {
        let pad = "  ".repeat(depth);
        let _ = writeln!(out, "{pad}sequence {}:", self.computation);
        for t in &self.thunks {
            t.write(out, depth + 1);
        }
    }
}

impl Thunk {
    /// One line per thunk (more for nested sequences).
    fn write(&self, out: &mut String, depth: usize) {
        let pad = "  ".repeat(depth);
        let _ = match self {
            Thunk::Kernel(k) => writeln!(out, "{pad}{}", kernel_line(k)),
            Thunk::OutputFusion {
                dot,
                epilogue,
                units_per_row,
                columns_per_unit,
            } => writeln!(
                out,
                "{pad}output-fusion {}: gemm {}{} then {}{}",
                epilogue.name,
                dot.out.shape.element_type,
                dot.strategy
                    .map(|s| format!(" (autotuned: {})", super::tuning::Choice::Dot(s)))
                    .unwrap_or_default(),
                kernel_line(epilogue),
                units_per_row
                    .map(|u| {
                        let tiles = match columns_per_unit {
                            Some(c) => format!(
                                "tiles of whole rows and {c}-column units, at most {} KiB",
                                super::library::dot::OUTPUT_TILE_BYTES >> 10
                            ),
                            None => "tiles of whole rows".to_string(),
                        };
                        format!(
                            ", on each output tile as its thread's GEMM finishes it when threaded \
                             ({tiles}; {u} unit{} per row)",
                            if u == 1 { "" } else { "s" }
                        )
                    })
                    .unwrap_or_default()
            ),
            Thunk::Copy { name, copy } => {
                let relayout = copy
                    .pairs
                    .iter()
                    .any(|(s, d)| s.shape.layout != d.shape.layout && s.shape.rank() > 1);
                let what = if relayout { "relayout" } else { "memcpy" };
                writeln!(out, "{pad}copy {name} ({what})")
            }
            Thunk::AliasCopy { name, copy } => writeln!(
                out,
                "{pad}copy {name} ({} leaf copies where the plan did not share a buffer{})",
                copy.pairs.len(),
                if copy.staged { ", staged" } else { "" }
            ),
            Thunk::Constant { name, .. } => writeln!(out, "{pad}constant {name} (written per run)"),
            Thunk::Dot(d) => writeln!(
                out,
                "{pad}dot {} (gemm, {} x {} -> {}{})",
                d.name,
                d.lhs.shape.element_type,
                d.rhs.shape.element_type,
                d.out.shape.element_type,
                d.strategy
                    .map(|s| format!(", autotuned: {}", super::tuning::Choice::Dot(s)))
                    .unwrap_or_default()
            ),
            Thunk::Convolution(c) => writeln!(
                out,
                "{pad}convolution {} (im2col + gemm, feature_group_count={}, batch_group_count={}{})",
                c.name,
                c.feature_group_count,
                c.batch_group_count,
                c.algorithm
                    .map(|a| format!(", autotuned: {}", super::tuning::Choice::Conv(a)))
                    .unwrap_or_default()
            ),
            Thunk::Library(l) => writeln!(out, "{pad}{}", l.line()),
            Thunk::Rng(r) => writeln!(
                out,
                "{pad}library rng {} (philox, {}, {})",
                r.name,
                r.distribution,
                crate::ir::Shape::Array(r.out.shape.clone())
            ),
            Thunk::Reference(r) => writeln!(
                out,
                "{pad}library {} {} (reference implementation)",
                r.opcode, r.name
            ),
            Thunk::Collective(c) => writeln!(
                out,
                "{pad}collective {} {} ({} operand{}{})",
                c.instruction.opcode(),
                c.instruction.name,
                c.operands.len(),
                if c.operands.len() == 1 { "" } else { "s" },
                match c.reducer {
                    Some(CollectiveReducer::Native(n)) => format!(", native {:?} reduction", n.op),
                    Some(CollectiveReducer::Compiled(_)) => ", compiled reduction".to_string(),
                    None => String::new(),
                }
            ),
            Thunk::DeviceIndex {
                name, partition, ..
            } => writeln!(
                out,
                "{pad}{} {name}",
                if *partition {
                    "partition-id"
                } else {
                    "replica-id"
                }
            ),
            Thunk::While {
                name,
                condition,
                body,
                ..
            } => {
                let _ = writeln!(out, "{pad}while {name}");
                let _ = writeln!(out, "{pad}  condition:");
                condition.sequence.write(out, depth + 2);
                let _ = writeln!(out, "{pad}  body:");
                body.sequence.write(out, depth + 2);
                Ok(())
            }
            Thunk::Conditional { name, branches, .. } => {
                let _ = writeln!(out, "{pad}conditional {name}");
                for (i, b) in branches.iter().enumerate() {
                    let _ = writeln!(out, "{pad}  branch {i}:");
                    b.sequence.write(out, depth + 2);
                }
                Ok(())
            }
            Thunk::Call { name, callee, .. } => {
                let _ = writeln!(out, "{pad}call {name}");
                callee.sequence.write(out, depth + 1);
                Ok(())
            }
        };
    }
}

fn kernel_line(k: &KernelThunk) -> String {
    let split = match k.split {
        Some(s) => format!(", autotuned: {}", super::tuning::Choice::Split(s)),
        None if k.parallel => format!(", split in tasks of >= {} units", k.min_units_per_task),
        None => String::new(),
    };
    format!(
        "kernel {} ({}; {} buffers, {} work units{split})",
        k.name,
        k.strategy,
        k.buffers.len(),
        k.work_units
    )
}

impl fmt::Display for ThunkSequence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write(&mut s, 0);
        f.write_str(&s)
    }
}
