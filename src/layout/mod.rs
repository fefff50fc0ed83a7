//! Where every number sits in memory: layout assignment (the physical `minor_to_major` of
//! every array), copy insertion (copies only where sharing a buffer would be wrong), the
//! sequential schedule, and buffer assignment (which allocation and offset each value
//! lives at, packed by liveness). XLA: `xla/service/layout_assignment.cc`,
//! `cpu/cpu_layout_assignment.cc`, `copy_insertion.cc`, `hlo_memory_scheduler.cc`,
//! `buffer_assignment.cc`.

pub mod alias_analysis;
pub mod buffer_assignment;
#[cfg(test)]
mod buffer_assignment_tests;
mod buffer_assignment_text;
pub mod buffer_check;
pub mod copy_insertion;
pub mod heap_simulator;
pub mod layout_assignment;
pub mod live_range;
pub mod scheduler;

pub use buffer_assignment::{
    AllocationKind, BufferAllocation, BufferAssignment, BufferAssignmentError, Slice,
};
