//! How the compiled backend runs each opcode, for the op coverage table of docs/op-coverage.md
//! (`tests/readme.rs`). It states the routes `compiler/thunk_emitter.rs` and the fusion pass take
//! on real types; on complex numbers, elementwise ops run as a native routine
//! (`library/complex_elementwise.rs`) and data movement and reductions take the reference
//! route.

use crate::eval::interprets;
use crate::ir::Opcode;

/// The route of `op` on the compiled backend, in a word.
pub fn compiled_route(op: Opcode) -> &'static str {
    use Opcode::*;
    match op {
        Parameter | Constant | Tuple | GetTupleElement | Bitcast | Copy | While | Conditional
        | Call | AfterAll | AddDependency | OptimizationBarrier | Domain | Fusion
        // This device's id, written by the runtime (`Thunk::DeviceIndex`).
        | PartitionId | ReplicaId => "runtime",
        Dot | Convolution | Sort | Scatter | SelectAndScatter | TopK | CustomCall | Fft | Rng => {
            "library"
        }
        BitcastConvert | Iota | Broadcast | Reshape | Transpose | Slice | Pad | Concatenate
        | Reverse | DynamicSlice | DynamicUpdateSlice | Gather | Reduce | ReduceWindow | Map => {
            "kernel"
        }
        _ if op.is_elementwise() => "kernel",
        // Rewritten into other ops by `cholesky_expander`, `triangular_solve_expander`,
        // `rng-bit-generator-expander` and `dynamic-padder` (a static dimension's size is a
        // constant) before anything runs.
        Cholesky | TriangularSolve | RngBitGenerator | GetDimensionSize => "expanded",
        _ if interprets(op) => "reference",
        _ => "no",
    }
}
