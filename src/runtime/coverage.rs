//! How the compiled backend runs each opcode, for the README's op coverage table
//! (`tests/readme.rs`). It states the routes `runtime/thunk_emitter.rs` and the fusion pass take;
//! element types outside the kernels' set (complex) take the reference route whatever the
//! opcode.

use crate::eval::interprets;
use crate::ir::Opcode;

/// The route of `op` on the compiled backend, in a word.
pub fn compiled_route(op: Opcode) -> &'static str {
    use Opcode::*;
    match op {
        Parameter | Constant | Tuple | GetTupleElement | Bitcast | Copy | While | Conditional
        | Call | AfterAll | AddDependency | OptimizationBarrier | Domain | Fusion => "runtime",
        Dot | Convolution | Sort | Scatter | SelectAndScatter | TopK | CustomCall | Fft => {
            "library"
        }
        BitcastConvert | Iota | Broadcast | Reshape | Transpose | Slice | Pad | Concatenate
        | Reverse | DynamicSlice | DynamicUpdateSlice | Gather | Reduce | ReduceWindow | Map => {
            "kernel"
        }
        _ if op.is_elementwise() => "kernel",
        // Rewritten into other ops by `cholesky_expander`, `triangular_solve_expander` and
        // `rng-bit-generator-expander` before anything runs.
        Cholesky | TriangularSolve | RngBitGenerator => "expanded",
        _ if interprets(op) => "reference",
        _ => "no",
    }
}
