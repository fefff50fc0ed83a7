//! Buffer assignment: which allocation, at which offset, every array value lives in.
//! Parameters, constants and entry outputs get allocations of their own; temporaries are
//! packed into one `preallocated-temp` arena by liveness over the schedule (best fit), so
//! values whose lifetimes do not overlap share bytes; values that must share storage
//! (bitcasts, tuple forwarding, while-loop state, in-place updates, aliased outputs) share
//! one buffer. XLA: `xla/service/buffer_assignment.cc`, `heap_simulator/`, `hlo_dataflow_analysis.cc`.
//!
//! The module must be scheduled (`HloMemoryScheduler`): each computation's `order` is the
//! sequence the runtime executes, and liveness is read from it.

use std::collections::HashMap;

use crate::ir::{ComputationId, InstrId, Module, ShapeIndex};

/// Every allocation starts at, and every temp offset is a multiple of, this many bytes.
pub const ALIGNMENT: usize = 64;

/// A byte range of one allocation: what a kernel argument or a library call operand is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    /// Index into [`BufferAssignment::allocations`].
    pub allocation: usize,
    /// Byte offset inside the allocation.
    pub offset: usize,
    /// Bytes.
    pub size: usize,
}

/// Why an allocation exists; printed with XLA's labels in `-buffer-assignment.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocationKind {
    /// `parameter N, shape |...| at ShapeIndex {...}`: an entry parameter leaf, supplied by
    /// the caller at run time.
    Parameter {
        /// Entry parameter number.
        number: usize,
        /// Which leaf of a tuple parameter (`{}` for an array parameter).
        shape_index: ShapeIndex,
    },
    /// `constant`: a constant's bytes, filled once when the executable is built.
    Constant,
    /// `preallocated-temp`: the arena that holds the packed temporaries.
    PreallocatedTemp,
    /// A value of its own that is neither of the above (an entry output, a value live
    /// across a while loop, ...); `maybe_live_out` says whether the caller sees it.
    Temp,
}

/// One value placed in an allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssignedValue {
    /// The computation the defining instruction lives in.
    pub computation: ComputationId,
    /// The defining instruction.
    pub instruction: InstrId,
    /// Which leaf of its shape.
    pub shape_index: ShapeIndex,
    /// Byte offset in the allocation.
    pub offset: usize,
    /// Bytes.
    pub size: usize,
}

/// One allocation: a contiguous block of memory the runtime creates once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferAllocation {
    /// Its number (`allocation N`).
    pub index: usize,
    /// Bytes.
    pub size: usize,
    /// Why it exists.
    pub kind: AllocationKind,
    /// Holds (part of) the entry computation's result.
    pub maybe_live_out: bool,
    /// The values assigned to it.
    pub values: Vec<AssignedValue>,
}

/// The buffer plan of a scheduled module.
#[derive(Clone, Debug, Default)]
pub struct BufferAssignment {
    /// Every allocation, by index.
    pub allocations: Vec<BufferAllocation>,
    /// Where each array leaf of each instruction of a non-fused computation (the entry and
    /// the while/conditional/call computations) lives. Fused computations and embedded
    /// scalar computations (reducers, comparators) have no buffers.
    slices: HashMap<(ComputationId, InstrId, ShapeIndex), Slice>,
}

impl BufferAssignment {
    /// Plans the buffers of a scheduled module.
    pub fn run(_module: &Module) -> Result<BufferAssignment, String> {
        Err("buffer assignment is not built yet".into())
    }

    /// Where leaf `index` of `instr`'s value lives; `None` for positions with no buffer
    /// (tuple-shaped positions, tokens, fused or embedded computations).
    pub fn slice(
        &self,
        computation: ComputationId,
        instr: InstrId,
        index: &[usize],
    ) -> Option<Slice> {
        self.slices
            .get(&(computation, instr, index.to_vec()))
            .copied()
    }

    /// Bytes of the `preallocated-temp` allocation (0 when there is none).
    pub fn temp_bytes(&self) -> usize {
        self.allocations
            .iter()
            .filter(|a| a.kind == AllocationKind::PreallocatedTemp)
            .map(|a| a.size)
            .sum()
    }

    /// `-buffer-assignment.txt`, in XLA's format.
    pub fn to_text(&self, _module: &Module) -> String {
        String::new()
    }

    /// `-live-range.txt`: schedule time of each value's definition and last use.
    pub fn live_range_text(&self, _module: &Module) -> String {
        String::new()
    }

    /// `-memory-usage-report.txt`: allocations sorted by size.
    pub fn memory_usage_report(&self, _module: &Module) -> String {
        String::new()
    }
}
