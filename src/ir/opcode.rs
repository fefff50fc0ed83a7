//! The one table of HLO opcodes, spelled as HLO prints them.
//! XLA: `xla/hlo/ir/hlo_opcode.h` (`HLO_OPCODE_LIST`).
//!
//! The parser, the printer, `is_elementwise` and dispatch all read this table, so
//! `grep dynamic-update-slice` lands here.

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

/// The opcode table: each row is the Rust variant, the HLO spelling, the number of
/// operands (`any`: variadic, checked per opcode by the verifier) and the category.
macro_rules! opcodes {
    ($( $variant:ident $name:literal $arity:tt $category:ident; )*) => {
        spelled_enum! {
            /// An HLO opcode. The typed attributes live in [`crate::ir::Op`].
            Opcode, case: exact { $( $variant => $name, )* }
        }

        impl Opcode {
            /// Number of operands.
            pub fn arity(self) -> Arity {
                match self { $( Opcode::$variant => arity!($arity), )* }
            }

            /// The category, used by fusion and the verifier.
            pub fn category(self) -> OpCategory {
                match self { $( Opcode::$variant => OpCategory::$category, )* }
            }
        }
    };
}

/// The arity column of the table: a number of operands, or `any`.
macro_rules! arity {
    (any) => {
        Arity::Variadic
    };
    ($n:literal) => {
        Arity::Fixed($n)
    };
}

opcodes! {
    // variant              HLO spelling                operands  category
    Abs                     "abs"                       1         ElementwiseUnary;
    Acos                    "acos"                      1         ElementwiseUnary;
    Acosh                   "acosh"                     1         ElementwiseUnary;
    Add                     "add"                       2         ElementwiseBinary;
    AddDependency           "add-dependency"            2         Other;
    AfterAll                "after-all"                 any       Other;
    AllGather               "all-gather"                any       Collective;
    AllGatherDone           "all-gather-done"           1         Collective;
    AllGatherStart          "all-gather-start"          any       Collective;
    AllReduce               "all-reduce"                any       Collective;
    AllReduceDone           "all-reduce-done"           1         Collective;
    AllReduceStart          "all-reduce-start"          any       Collective;
    AllToAll                "all-to-all"                any       Collective;
    And                     "and"                       2         ElementwiseBinary;
    Asin                    "asin"                      1         ElementwiseUnary;
    Asinh                   "asinh"                     1         ElementwiseUnary;
    AsyncDone               "async-done"                1         Control;
    AsyncStart              "async-start"               any       Control;
    AsyncUpdate             "async-update"              1         Control;
    Atan2                   "atan2"                     2         ElementwiseBinary;
    Atanh                   "atanh"                     1         ElementwiseUnary;
    BatchNormGrad           "batch-norm-grad"           5         Contraction;
    BatchNormInference      "batch-norm-inference"      5         Contraction;
    BatchNormTraining       "batch-norm-training"       3         Contraction;
    Bitcast                 "bitcast"                   1         DataMovement;
    BitcastConvert          "bitcast-convert"           1         ElementwiseUnary;
    Broadcast               "broadcast"                 1         DataMovement;
    Call                    "call"                      any       Control;
    Cbrt                    "cbrt"                      1         ElementwiseUnary;
    Ceil                    "ceil"                      1         ElementwiseUnary;
    Cholesky                "cholesky"                  1         Contraction;
    Clamp                   "clamp"                     3         ElementwiseTernary;
    CollectiveBroadcast     "collective-broadcast"      any       Collective;
    CollectivePermute       "collective-permute"        any       Collective;
    CollectivePermuteDone   "collective-permute-done"   1         Collective;
    CollectivePermuteStart  "collective-permute-start"  any       Collective;
    Compare                 "compare"                   2         ElementwiseBinary;
    Complex                 "complex"                   2         ElementwiseBinary;
    Concatenate             "concatenate"               any       DataMovement;
    Conditional             "conditional"               any       Control;
    Constant                "constant"                  0         Other;
    Convert                 "convert"                   1         ElementwiseUnary;
    Convolution             "convolution"               2         Contraction;
    Copy                    "copy"                      1         ElementwiseUnary;
    CopyDone                "copy-done"                 1         Other;
    CopyStart               "copy-start"                1         Other;
    Cos                     "cosine"                    1         ElementwiseUnary;
    Cosh                    "cosh"                      1         ElementwiseUnary;
    Clz                     "count-leading-zeros"       1         ElementwiseUnary;
    CustomCall              "custom-call"               any       Other;
    Divide                  "divide"                    2         ElementwiseBinary;
    Domain                  "domain"                    1         Other;
    Dot                     "dot"                       2         Contraction;
    DynamicReshape          "dynamic-reshape"           any       DataMovement;
    DynamicSlice            "dynamic-slice"             any       DataMovement;
    DynamicUpdateSlice      "dynamic-update-slice"      any       DataMovement;
    Erf                     "erf"                       1         ElementwiseUnary;
    Exp                     "exponential"               1         ElementwiseUnary;
    Expm1                   "exponential-minus-one"     1         ElementwiseUnary;
    Fft                     "fft"                       1         Contraction;
    Floor                   "floor"                     1         ElementwiseUnary;
    Fusion                  "fusion"                    any       Control;
    Gather                  "gather"                    2         DataMovement;
    GetDimensionSize        "get-dimension-size"        1         Other;
    GetTupleElement         "get-tuple-element"         1         Other;
    Imag                    "imag"                      1         ElementwiseUnary;
    Infeed                  "infeed"                    1         Other;
    Iota                    "iota"                      0         DataMovement;
    IsFinite                "is-finite"                 1         ElementwiseUnary;
    Log                     "log"                       1         ElementwiseUnary;
    Log1p                   "log-plus-one"              1         ElementwiseUnary;
    Logistic                "logistic"                  1         ElementwiseUnary;
    Map                     "map"                       any       Reduction;
    Maximum                 "maximum"                   2         ElementwiseBinary;
    Minimum                 "minimum"                   2         ElementwiseBinary;
    MulHi                   "mulhi"                     2         ElementwiseBinary;
    Multiply                "multiply"                  2         ElementwiseBinary;
    Negate                  "negate"                    1         ElementwiseUnary;
    Not                     "not"                       1         ElementwiseUnary;
    OptimizationBarrier     "opt-barrier"               1         Other;
    Or                      "or"                        2         ElementwiseBinary;
    Outfeed                 "outfeed"                   2         Other;
    Pad                     "pad"                       2         DataMovement;
    Parameter               "parameter"                 0         Other;
    PartitionId             "partition-id"              0         Other;
    PopulationCount         "popcnt"                    1         ElementwiseUnary;
    Power                   "power"                     2         ElementwiseBinary;
    RaggedAllToAll          "ragged-all-to-all"         any       Collective;
    RaggedDot               "ragged-dot"                3         Contraction;
    Real                    "real"                      1         ElementwiseUnary;
    Recv                    "recv"                      1         Other;
    RecvDone                "recv-done"                 1         Other;
    Reduce                  "reduce"                    any       Reduction;
    ReducePrecision         "reduce-precision"          1         ElementwiseUnary;
    ReduceScatter           "reduce-scatter"            any       Collective;
    ReduceWindow            "reduce-window"             any       Reduction;
    Remainder               "remainder"                 2         ElementwiseBinary;
    ReplicaId               "replica-id"                0         Other;
    Reshape                 "reshape"                   1         DataMovement;
    Reverse                 "reverse"                   1         DataMovement;
    Rng                     "rng"                       any       Other;
    RngBitGenerator         "rng-bit-generator"         1         Other;
    RngGetAndUpdateState    "rng-get-and-update-state"  0         Other;
    RoundNearestAfz         "round-nearest-afz"         1         ElementwiseUnary;
    RoundNearestEven        "round-nearest-even"        1         ElementwiseUnary;
    Rsqrt                   "rsqrt"                     1         ElementwiseUnary;
    ScaledDot               "scaled-dot"                4         Contraction;
    Scan                    "scan"                      any       Reduction;
    Scatter                 "scatter"                   any       DataMovement;
    Select                  "select"                    3         ElementwiseTernary;
    SelectAndScatter        "select-and-scatter"        3         Reduction;
    Send                    "send"                      2         Other;
    SendDone                "send-done"                 1         Other;
    SetDimensionSize        "set-dimension-size"        2         Other;
    ShiftLeft               "shift-left"                2         ElementwiseBinary;
    ShiftRightArithmetic    "shift-right-arithmetic"    2         ElementwiseBinary;
    ShiftRightLogical       "shift-right-logical"       2         ElementwiseBinary;
    Sign                    "sign"                      1         ElementwiseUnary;
    Sin                     "sine"                      1         ElementwiseUnary;
    Sinh                    "sinh"                      1         ElementwiseUnary;
    Slice                   "slice"                     1         DataMovement;
    Sort                    "sort"                      any       Reduction;
    Sqrt                    "sqrt"                      1         ElementwiseUnary;
    StochasticConvert       "stochastic-convert"        2         ElementwiseBinary;
    Subtract                "subtract"                  2         ElementwiseBinary;
    Tan                     "tan"                       1         ElementwiseUnary;
    Tanh                    "tanh"                      1         ElementwiseUnary;
    TopK                    "topk"                      1         Reduction;
    Transpose               "transpose"                 1         DataMovement;
    TriangularSolve         "triangular-solve"          2         Contraction;
    Tuple                   "tuple"                     any       Other;
    While                   "while"                     1         Control;
    Xor                     "xor"                       2         ElementwiseBinary;
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
