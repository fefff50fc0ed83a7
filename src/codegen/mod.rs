//! Code generation: each fusion becomes one Cranelift function with one ABI for all
//! kernels. See design.md §2 and ../shared/notes/cranelift.md.

pub mod math;
