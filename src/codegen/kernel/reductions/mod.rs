//! Reductions that do not run in a loop fusion's element code: a column reduction
//! (`column_reduce.rs`: the reduced dimension is the major one, rows stream through vector
//! accumulators), and the vector forms of row and window reductions the loop strategy's
//! inner loop calls (`vector_reduce.rs`, `vector_window.rs`).
//! XLA: `xla/codegen/emitters/reduction_emitter.cc`.

pub mod column_reduce;
pub mod vector_reduce;
pub mod vector_window;
