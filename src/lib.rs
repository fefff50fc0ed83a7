//! xlac: a small, real CPU backend for XLA programs.
//!
//! Data flow (`docs/architecture.md`): HLO text or StableHLO → [`ir::Module`] → pass
//! pipeline → layout, fusion, buffers → Cranelift codegen → runtime. The reference
//! interpreter [`eval`] runs the same module and is the oracle for every later stage.

#![warn(missing_docs)]

pub mod autotune;
pub mod check;
pub mod cli;
pub mod codegen;
pub mod compiler;
pub mod diff_dump;
pub mod distributed;
pub mod eval;
pub mod explain;
pub mod front;
pub mod fusion;
pub mod fuzz;
pub mod ifrt;
pub mod io;
pub mod ir;
pub mod layout;
pub mod pipeline;
pub mod report;
pub mod runtime;
pub mod spmd;
pub mod testdata;
