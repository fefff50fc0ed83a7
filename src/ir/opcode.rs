//! The one table of HLO opcodes, spelled as HLO prints them.
//! XLA: `xla/hlo/ir/hlo_opcode.h` (`HLO_OPCODE_LIST`).
//!
//! The parser, the printer, `is_elementwise` and dispatch all read this table, so
//! `grep dynamic-update-slice` lands here.

use std::fmt;
use std::str::FromStr;

/// How an opcode relates its operands to its result; one answer per opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpCategory {
    /// One operand, result element i depends only on operand element i.
    ElementwiseUnary,
    /// Two operands of equal shape, elementwise.
    ElementwiseBinary,
    /// `select` and `clamp`: three operands, elementwise.
    ElementwiseTernary,
    /// Moves or reshapes data without arithmetic (broadcast, slice, gather, ...).
    DataMovement,
    /// Reductions, windows, sort and friends (they call a computation on elements).
    Reduction,
    /// dot, convolution, fft, linear algebra.
    Contraction,
    /// call, while, conditional, fusion, async wrappers.
    Control,
    /// Cross-device communication; single-device xlac parses but does not run these.
    Collective,
    /// Parameters, constants, tuples, tokens, side effects and annotations.
    Other,
}

/// Arity of an opcode: a fixed number of operands or any number.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many operands.
    Fixed(usize),
    /// Any number of operands (checked per opcode by the verifier).
    Variadic,
}

macro_rules! opcodes {
    ($( $variant:ident => $name:literal, $arity:expr, $cat:ident; )*) => {
        /// An HLO opcode. The typed attributes live in [`crate::ir::Op`].
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode { $( #[doc = concat!("`", $name, "`")] $variant, )* }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[ $( Opcode::$variant, )* ];

            /// The HLO spelling (`dynamic-update-slice`).
            pub fn name(self) -> &'static str {
                match self { $( Opcode::$variant => $name, )* }
            }

            /// Number of operands.
            pub fn arity(self) -> Arity {
                match self { $( Opcode::$variant => $arity, )* }
            }

            /// The category, used by fusion and the verifier.
            pub fn category(self) -> OpCategory {
                match self { $( Opcode::$variant => OpCategory::$cat, )* }
            }
        }

        impl FromStr for Opcode {
            type Err = ();
            fn from_str(s: &str) -> Result<Self, ()> {
                match s { $( $name => Ok(Opcode::$variant), )* _ => Err(()) }
            }
        }
    };
}

use Arity::{Fixed, Variadic};

opcodes! {
    Abs => "abs", Fixed(1), ElementwiseUnary;
    Acos => "acos", Fixed(1), ElementwiseUnary;
    Acosh => "acosh", Fixed(1), ElementwiseUnary;
    Add => "add", Fixed(2), ElementwiseBinary;
    AddDependency => "add-dependency", Fixed(2), Other;
    AfterAll => "after-all", Variadic, Other;
    AllGather => "all-gather", Variadic, Collective;
    AllGatherDone => "all-gather-done", Fixed(1), Collective;
    AllGatherStart => "all-gather-start", Variadic, Collective;
    AllReduce => "all-reduce", Variadic, Collective;
    AllReduceDone => "all-reduce-done", Fixed(1), Collective;
    AllReduceStart => "all-reduce-start", Variadic, Collective;
    AllToAll => "all-to-all", Variadic, Collective;
    And => "and", Fixed(2), ElementwiseBinary;
    Asin => "asin", Fixed(1), ElementwiseUnary;
    Asinh => "asinh", Fixed(1), ElementwiseUnary;
    AsyncDone => "async-done", Fixed(1), Control;
    AsyncStart => "async-start", Variadic, Control;
    AsyncUpdate => "async-update", Fixed(1), Control;
    Atan2 => "atan2", Fixed(2), ElementwiseBinary;
    Atanh => "atanh", Fixed(1), ElementwiseUnary;
    BatchNormGrad => "batch-norm-grad", Fixed(5), Contraction;
    BatchNormInference => "batch-norm-inference", Fixed(5), Contraction;
    BatchNormTraining => "batch-norm-training", Fixed(3), Contraction;
    Bitcast => "bitcast", Fixed(1), DataMovement;
    BitcastConvert => "bitcast-convert", Fixed(1), ElementwiseUnary;
    Broadcast => "broadcast", Fixed(1), DataMovement;
    Call => "call", Variadic, Control;
    Cbrt => "cbrt", Fixed(1), ElementwiseUnary;
    Ceil => "ceil", Fixed(1), ElementwiseUnary;
    Cholesky => "cholesky", Fixed(1), Contraction;
    Clamp => "clamp", Fixed(3), ElementwiseTernary;
    CollectiveBroadcast => "collective-broadcast", Variadic, Collective;
    CollectivePermute => "collective-permute", Variadic, Collective;
    CollectivePermuteDone => "collective-permute-done", Fixed(1), Collective;
    CollectivePermuteStart => "collective-permute-start", Variadic, Collective;
    Compare => "compare", Fixed(2), ElementwiseBinary;
    Complex => "complex", Fixed(2), ElementwiseBinary;
    Concatenate => "concatenate", Variadic, DataMovement;
    Conditional => "conditional", Variadic, Control;
    Constant => "constant", Fixed(0), Other;
    Convert => "convert", Fixed(1), ElementwiseUnary;
    Convolution => "convolution", Fixed(2), Contraction;
    Copy => "copy", Fixed(1), ElementwiseUnary;
    CopyDone => "copy-done", Fixed(1), Other;
    CopyStart => "copy-start", Fixed(1), Other;
    Cos => "cosine", Fixed(1), ElementwiseUnary;
    Cosh => "cosh", Fixed(1), ElementwiseUnary;
    Clz => "count-leading-zeros", Fixed(1), ElementwiseUnary;
    CustomCall => "custom-call", Variadic, Other;
    Divide => "divide", Fixed(2), ElementwiseBinary;
    Domain => "domain", Fixed(1), Other;
    Dot => "dot", Fixed(2), Contraction;
    DynamicReshape => "dynamic-reshape", Variadic, DataMovement;
    DynamicSlice => "dynamic-slice", Variadic, DataMovement;
    DynamicUpdateSlice => "dynamic-update-slice", Variadic, DataMovement;
    Erf => "erf", Fixed(1), ElementwiseUnary;
    Exp => "exponential", Fixed(1), ElementwiseUnary;
    Expm1 => "exponential-minus-one", Fixed(1), ElementwiseUnary;
    Fft => "fft", Fixed(1), Contraction;
    Floor => "floor", Fixed(1), ElementwiseUnary;
    Fusion => "fusion", Variadic, Control;
    Gather => "gather", Fixed(2), DataMovement;
    GetDimensionSize => "get-dimension-size", Fixed(1), Other;
    GetTupleElement => "get-tuple-element", Fixed(1), Other;
    Imag => "imag", Fixed(1), ElementwiseUnary;
    Infeed => "infeed", Fixed(1), Other;
    Iota => "iota", Fixed(0), DataMovement;
    IsFinite => "is-finite", Fixed(1), ElementwiseUnary;
    Log => "log", Fixed(1), ElementwiseUnary;
    Log1p => "log-plus-one", Fixed(1), ElementwiseUnary;
    Logistic => "logistic", Fixed(1), ElementwiseUnary;
    Map => "map", Variadic, Reduction;
    Maximum => "maximum", Fixed(2), ElementwiseBinary;
    Minimum => "minimum", Fixed(2), ElementwiseBinary;
    MulHi => "mulhi", Fixed(2), ElementwiseBinary;
    Multiply => "multiply", Fixed(2), ElementwiseBinary;
    Negate => "negate", Fixed(1), ElementwiseUnary;
    Not => "not", Fixed(1), ElementwiseUnary;
    OptimizationBarrier => "opt-barrier", Fixed(1), Other;
    Or => "or", Fixed(2), ElementwiseBinary;
    Outfeed => "outfeed", Fixed(2), Other;
    Pad => "pad", Fixed(2), DataMovement;
    Parameter => "parameter", Fixed(0), Other;
    PartitionId => "partition-id", Fixed(0), Other;
    PopulationCount => "popcnt", Fixed(1), ElementwiseUnary;
    Power => "power", Fixed(2), ElementwiseBinary;
    RaggedAllToAll => "ragged-all-to-all", Variadic, Collective;
    RaggedDot => "ragged-dot", Fixed(3), Contraction;
    Real => "real", Fixed(1), ElementwiseUnary;
    Recv => "recv", Fixed(1), Other;
    RecvDone => "recv-done", Fixed(1), Other;
    Reduce => "reduce", Variadic, Reduction;
    ReducePrecision => "reduce-precision", Fixed(1), ElementwiseUnary;
    ReduceScatter => "reduce-scatter", Variadic, Collective;
    ReduceWindow => "reduce-window", Variadic, Reduction;
    Remainder => "remainder", Fixed(2), ElementwiseBinary;
    ReplicaId => "replica-id", Fixed(0), Other;
    Reshape => "reshape", Fixed(1), DataMovement;
    Reverse => "reverse", Fixed(1), DataMovement;
    Rng => "rng", Variadic, Other;
    RngBitGenerator => "rng-bit-generator", Fixed(1), Other;
    RngGetAndUpdateState => "rng-get-and-update-state", Fixed(0), Other;
    RoundNearestAfz => "round-nearest-afz", Fixed(1), ElementwiseUnary;
    RoundNearestEven => "round-nearest-even", Fixed(1), ElementwiseUnary;
    Rsqrt => "rsqrt", Fixed(1), ElementwiseUnary;
    ScaledDot => "scaled-dot", Fixed(4), Contraction;
    Scan => "scan", Variadic, Reduction;
    Scatter => "scatter", Variadic, DataMovement;
    Select => "select", Fixed(3), ElementwiseTernary;
    SelectAndScatter => "select-and-scatter", Fixed(3), Reduction;
    Send => "send", Fixed(2), Other;
    SendDone => "send-done", Fixed(1), Other;
    SetDimensionSize => "set-dimension-size", Fixed(2), Other;
    ShiftLeft => "shift-left", Fixed(2), ElementwiseBinary;
    ShiftRightArithmetic => "shift-right-arithmetic", Fixed(2), ElementwiseBinary;
    ShiftRightLogical => "shift-right-logical", Fixed(2), ElementwiseBinary;
    Sign => "sign", Fixed(1), ElementwiseUnary;
    Sin => "sine", Fixed(1), ElementwiseUnary;
    Sinh => "sinh", Fixed(1), ElementwiseUnary;
    Slice => "slice", Fixed(1), DataMovement;
    Sort => "sort", Variadic, Reduction;
    Sqrt => "sqrt", Fixed(1), ElementwiseUnary;
    StochasticConvert => "stochastic-convert", Fixed(2), ElementwiseBinary;
    Subtract => "subtract", Fixed(2), ElementwiseBinary;
    Tan => "tan", Fixed(1), ElementwiseUnary;
    Tanh => "tanh", Fixed(1), ElementwiseUnary;
    TopK => "topk", Fixed(1), Reduction;
    Transpose => "transpose", Fixed(1), DataMovement;
    TriangularSolve => "triangular-solve", Fixed(2), Contraction;
    Tuple => "tuple", Variadic, Other;
    While => "while", Fixed(1), Control;
    Xor => "xor", Fixed(2), ElementwiseBinary;
}

impl Opcode {
    /// True if the result element at an index depends only on operand elements at that
    /// index (XLA's `IsOpElementwise`; `bitcast-convert` counts only when widths match,
    /// which the caller checks).
    pub fn is_elementwise(self) -> bool {
        matches!(
            self.category(),
            OpCategory::ElementwiseUnary
                | OpCategory::ElementwiseBinary
                | OpCategory::ElementwiseTernary
        )
    }

    /// Binary ops whose operands may be swapped (for CSE and canonicalization).
    pub fn is_commutative(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            Add | Multiply | MulHi | Maximum | Minimum | And | Or | Xor
        )
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &op in Opcode::ALL {
            assert!(seen.insert(op.name()), "duplicate spelling {}", op.name());
            assert_eq!(op.name().parse::<Opcode>(), Ok(op));
        }
    }
}
