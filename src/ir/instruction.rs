//! One HLO instruction and its typed attributes.
//! XLA: `xla/hlo/ir/hlo_instruction.h`, `hlo_instructions.h`.
//!
//! Attributes live inside [`Op`]: only a broadcast has broadcast dimensions, so asking an
//! `add` for its dimensions does not compile. Ops whose meaning is fully given by the opcode
//! and the operand/result shapes (`add`, `exponential`, `tuple`, `convert`, ...) are
//! [`Op::Plain`]. Each variant's doc gives its shape rule in one line.

use super::attributes::*;
use super::{ComputationId, InstrId, Literal, Opcode, Shape};

/// What an instruction computes, with its typed attributes.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// An opcode with no attributes (elementwise ops, reshape, tuple, copy, bitcast,
    /// dynamic-update-slice, after-all, opt-barrier, ...). Shape: per opcode.
    Plain(Opcode),
    /// `parameter(N)`: the N-th argument of the computation.
    Parameter {
        /// Parameter number, dense from 0.
        number: usize,
    },
    /// `constant(...)`: the literal's shape is the instruction's shape.
    Constant {
        /// The value.
        literal: Literal,
    },
    /// `iota(), iota_dimension=d`: element = its index along `d`.
    Iota {
        /// The dimension that counts.
        dimension: usize,
    },
    /// `broadcast(x), dimensions={...}`: operand dim i becomes result dim `dimensions[i]`.
    Broadcast {
        /// Operand-to-result dimension map.
        dimensions: Vec<usize>,
    },
    /// `transpose(x), dimensions={...}`: result dim i is operand dim `dimensions[i]`.
    Transpose {
        /// The permutation.
        dimensions: Vec<usize>,
    },
    /// `reverse(x), dimensions={...}`: same shape, those dims reversed.
    Reverse {
        /// Dimensions to reverse.
        dimensions: Vec<usize>,
    },
    /// `concatenate(a, b, ...), dimensions={d}`: sizes along `d` add up.
    Concatenate {
        /// The concatenated dimension.
        dimension: usize,
    },
    /// `slice(x), slice={[s:l:st], ...}`: size `ceil((l - s) / st)` per dim.
    Slice {
        /// Per-dimension start, limit, stride.
        slice: Vec<SliceDimension>,
    },
    /// `dynamic-slice(x, i0, i1, ...), dynamic_slice_sizes={...}`: result dims are the sizes.
    DynamicSlice {
        /// Result dimensions.
        sizes: Vec<i64>,
    },
    /// `pad(x, value), padding=lo_hi_int x ...`: `lo + hi + n + (n-1)*int` per dim.
    Pad {
        /// Per-dimension padding.
        padding: Vec<PaddingDimension>,
    },
    /// `compare(a, b), direction=LT [, type=TOTALORDER]`: `pred` of the operand dims.
    Compare {
        /// The comparison.
        direction: ComparisonDirection,
        /// The ordering; `None` when not printed (derived from the element type).
        comparison_type: Option<ComparisonType>,
    },
    /// `get-tuple-element(t), index=i`: the i-th element's shape.
    GetTupleElement {
        /// Tuple index.
        index: usize,
    },
    /// `reduce-precision(x), exponent_bits=e, mantissa_bits=m`: same shape.
    ReducePrecision {
        /// Exponent bits kept.
        exponent_bits: u32,
        /// Mantissa bits kept.
        mantissa_bits: u32,
    },
    /// `reduce(inputs..., inits...), dimensions={...}, to_apply=r`: inputs minus `dimensions`
    /// (a tuple when there are several inputs).
    Reduce {
        /// Reduced dimensions.
        dimensions: Vec<usize>,
        /// The reducer `(acc..., x...) -> acc...`.
        to_apply: ComputationId,
    },
    /// `reduce-window(inputs..., inits...), window={...}, to_apply=r`: one element per window position.
    ReduceWindow {
        /// The window.
        window: Window,
        /// The reducer.
        to_apply: ComputationId,
    },
    /// `select-and-scatter(operand, source, init), window={...}, select=s, scatter=t`: operand's shape.
    SelectAndScatter {
        /// The window.
        window: Window,
        /// `(a, b) -> pred`: true keeps `a`.
        select: ComputationId,
        /// `(acc, x) -> acc`.
        scatter: ComputationId,
    },
    /// `map(xs...), dimensions={...}, to_apply=f`: elementwise application of `f`.
    Map {
        /// Must be all dimensions, in order.
        dimensions: Vec<usize>,
        /// The scalar function.
        to_apply: ComputationId,
    },
    /// `dot(lhs, rhs), lhs_contracting_dims={...}, ...`: batch dims, lhs free dims, rhs free dims.
    Dot {
        /// Batch and contracting dimensions.
        dimension_numbers: DotDimensionNumbers,
        /// `operand_precision={...}`; empty when not printed.
        precision: Vec<Precision>,
        /// `algorithm=`; kept verbatim (e.g. `dot_f32_f32_f32`), `None` when not printed.
        algorithm: Option<String>,
    },
    /// `convolution(lhs, rhs), window={...}, dim_labels=...`: output per `dim_labels`.
    Convolution {
        /// Strides, padding, dilations.
        window: Window,
        /// Which dimension is batch, feature and spatial.
        dimension_numbers: ConvolutionDimensionNumbers,
        /// `feature_group_count=` (default 1).
        feature_group_count: i64,
        /// `batch_group_count=` (default 1).
        batch_group_count: i64,
        /// `operand_precision={...}`; empty when not printed.
        precision: Vec<Precision>,
    },
    /// `gather(operand, indices), offset_dims=..., slice_sizes=...`: batch dims plus offset dims.
    Gather {
        /// The dimension numbers.
        dimension_numbers: GatherDimensionNumbers,
        /// Size of the slice taken at each index.
        slice_sizes: Vec<i64>,
        /// `indices_are_sorted=` (a hint).
        indices_are_sorted: bool,
    },
    /// `scatter(operands..., indices, updates...), ..., to_apply=f`: the operands' shape(s).
    Scatter {
        /// The dimension numbers.
        dimension_numbers: ScatterDimensionNumbers,
        /// Combines the old and the new value.
        to_apply: ComputationId,
        /// `indices_are_sorted=` (a hint).
        indices_are_sorted: bool,
        /// `unique_indices=` (a hint).
        unique_indices: bool,
    },
    /// `sort(xs...), dimensions={d}, is_stable=true, to_apply=cmp`: the operands' shape(s).
    Sort {
        /// The sorted dimension.
        dimension: usize,
        /// Keep the order of equal elements.
        is_stable: bool,
        /// `(a0, b0, a1, b1, ...) -> pred`: true if a sorts before b.
        to_apply: ComputationId,
    },
    /// `topk(x), k=K, largest=true`: `(values, s32 indices)` with the last dim = K.
    TopK {
        /// How many.
        k: i64,
        /// Largest (true) or smallest.
        largest: bool,
    },
    /// `while(init), condition=c, body=b`: the loop state's shape.
    While {
        /// `state -> pred[]`.
        condition: ComputationId,
        /// `state -> state`.
        body: ComputationId,
    },
    /// `conditional(selector, args...)`: with a `pred[]` selector, `true_computation=` is
    /// branch 0 and `false_computation=` branch 1; with `s32[]`, `branch_computations={...}`
    /// (out-of-range selects the last). Shape: the branches' result.
    Conditional {
        /// The branches, in the order above.
        branch_computations: Vec<ComputationId>,
    },
    /// `call(args...), to_apply=f`: f's result.
    Call {
        /// The callee.
        to_apply: ComputationId,
    },
    /// `fusion(args...), kind=kLoop, calls=fused_computation`: the fused computation's result.
    Fusion {
        /// Loop, input (reduction), output (dot epilogue) or custom.
        kind: FusionKind,
        /// The fused computation.
        calls: ComputationId,
    },
    /// `rng-bit-generator(state), algorithm=rng_philox`: `(new state, random bits)`.
    RngBitGenerator {
        /// Which generator.
        algorithm: RandomAlgorithm,
    },
    /// `rng(a, b), distribution=rng_uniform`: random numbers of the result shape.
    Rng {
        /// Uniform in [a, b) or normal(a, b).
        distribution: RandomDistribution,
    },
    /// `cholesky(a), lower=true`: same shape.
    Cholesky {
        /// Which triangle is read and written.
        lower: bool,
    },
    /// `triangular-solve(a, b), left_side=..., ...`: b's shape.
    TriangularSolve(TriangularSolveOptions),
    /// `fft(x), fft_type=FFT, fft_length={...}`.
    Fft {
        /// Direction and real/complex.
        fft_type: FftType,
        /// Lengths of the transformed (innermost) dimensions.
        fft_length: Vec<i64>,
    },
    /// `batch-norm-training`, `-inference` or `-grad`, `epsilon=`, `feature_index=`.
    BatchNorm {
        /// Which of the three batch-norm opcodes.
        opcode: Opcode,
        /// Added to the variance.
        epsilon: f32,
        /// The feature dimension.
        feature_index: usize,
    },
    /// `get-dimension-size(x), dimensions={d}` / `set-dimension-size(x, n), dimensions={d}`.
    DimensionSize {
        /// Which of the two opcodes.
        opcode: Opcode,
        /// The dimension.
        dimension: usize,
    },
    /// `custom-call(...), custom_call_target="..."`: the declared shape.
    CustomCall(Box<CustomCall>),
    /// An opcode whose attributes xlac does not model (collectives, async wrappers,
    /// send/recv, infeed/outfeed, scan, ragged/scaled dot, ...). Parsed and printed back
    /// verbatim; every attribute is in [`Instruction::raw_attributes`] except references to
    /// computations, kept here so computation ids stay valid.
    Unmodeled {
        /// The opcode.
        opcode: Opcode,
        /// Attributes that name computations (`to_apply=`, `calls=`, ...).
        called: Vec<CalledComputations>,
    },
}

/// An attribute that names one computation (`to_apply=%add`) or a list (`calls={%a, %b}`).
#[derive(Clone, Debug, PartialEq)]
pub struct CalledComputations {
    /// The attribute name.
    pub attribute: String,
    /// The computations.
    pub computations: Vec<ComputationId>,
    /// Written as a braced list `{...}` (true) or a single name (false).
    pub braced: bool,
}

/// The attributes of a custom-call.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomCall {
    /// `custom_call_target="..."`, e.g. `lapack_spotrf_ffi`.
    pub target: String,
    /// `api_version=`; `None` when not printed.
    pub api_version: Option<CustomCallApiVersion>,
    /// `custom_call_has_side_effect=true`.
    pub has_side_effect: bool,
    /// `called_computations={...}` (or `to_apply=`).
    pub called_computations: Vec<ComputationId>,
    /// `operand_layout_constraints={shape, ...}`: the layouts the target requires.
    pub operand_layout_constraints: Option<Vec<Shape>>,
    /// `output_to_operand_aliasing={...}`.
    pub output_to_operand_aliasing: Vec<OutputOperandAlias>,
    /// `window=` (convolution-like custom calls).
    pub window: Option<Window>,
    /// `dim_labels=` (convolution-like custom calls).
    pub dimension_numbers: Option<ConvolutionDimensionNumbers>,
    /// `feature_group_count=`, when printed.
    pub feature_group_count: Option<i64>,
    /// `batch_group_count=`, when printed.
    pub batch_group_count: Option<i64>,
    /// `operand_precision={...}`, when printed.
    pub precision: Vec<Precision>,
    /// `schedule=`, verbatim.
    pub schedule: Option<String>,
    /// `literal=`.
    pub literal: Option<Literal>,
}

impl CustomCall {
    /// A custom call to `target` with every optional attribute absent.
    pub fn new(target: &str) -> CustomCall {
        CustomCall {
            target: target.to_string(),
            api_version: None,
            has_side_effect: false,
            called_computations: Vec::new(),
            operand_layout_constraints: None,
            output_to_operand_aliasing: Vec::new(),
            window: None,
            dimension_numbers: None,
            feature_group_count: None,
            batch_group_count: None,
            precision: Vec::new(),
            schedule: None,
            literal: None,
        }
    }
}

impl Op {
    /// The opcode this op prints as.
    pub fn opcode(&self) -> Opcode {
        match self {
            Op::Plain(op) => *op,
            Op::Parameter { .. } => Opcode::Parameter,
            Op::Constant { .. } => Opcode::Constant,
            Op::Iota { .. } => Opcode::Iota,
            Op::Broadcast { .. } => Opcode::Broadcast,
            Op::Transpose { .. } => Opcode::Transpose,
            Op::Reverse { .. } => Opcode::Reverse,
            Op::Concatenate { .. } => Opcode::Concatenate,
            Op::Slice { .. } => Opcode::Slice,
            Op::DynamicSlice { .. } => Opcode::DynamicSlice,
            Op::Pad { .. } => Opcode::Pad,
            Op::Compare { .. } => Opcode::Compare,
            Op::GetTupleElement { .. } => Opcode::GetTupleElement,
            Op::ReducePrecision { .. } => Opcode::ReducePrecision,
            Op::Reduce { .. } => Opcode::Reduce,
            Op::ReduceWindow { .. } => Opcode::ReduceWindow,
            Op::SelectAndScatter { .. } => Opcode::SelectAndScatter,
            Op::Map { .. } => Opcode::Map,
            Op::Dot { .. } => Opcode::Dot,
            Op::Convolution { .. } => Opcode::Convolution,
            Op::Gather { .. } => Opcode::Gather,
            Op::Scatter { .. } => Opcode::Scatter,
            Op::Sort { .. } => Opcode::Sort,
            Op::TopK { .. } => Opcode::TopK,
            Op::While { .. } => Opcode::While,
            Op::Conditional { .. } => Opcode::Conditional,
            Op::Call { .. } => Opcode::Call,
            Op::Fusion { .. } => Opcode::Fusion,
            Op::RngBitGenerator { .. } => Opcode::RngBitGenerator,
            Op::Rng { .. } => Opcode::Rng,
            Op::Cholesky { .. } => Opcode::Cholesky,
            Op::TriangularSolve(_) => Opcode::TriangularSolve,
            Op::Fft { .. } => Opcode::Fft,
            Op::BatchNorm { opcode, .. } => *opcode,
            Op::DimensionSize { opcode, .. } => *opcode,
            Op::CustomCall(_) => Opcode::CustomCall,
            Op::Unmodeled { opcode, .. } => *opcode,
        }
    }

    /// Every computation this op calls, in attribute order.
    pub fn called_computations(&self) -> Vec<ComputationId> {
        match self {
            Op::Reduce { to_apply, .. }
            | Op::ReduceWindow { to_apply, .. }
            | Op::Map { to_apply, .. }
            | Op::Scatter { to_apply, .. }
            | Op::Sort { to_apply, .. }
            | Op::Call { to_apply } => vec![*to_apply],
            Op::SelectAndScatter {
                select, scatter, ..
            } => vec![*select, *scatter],
            Op::While { condition, body } => vec![*condition, *body],
            Op::Conditional {
                branch_computations,
            } => branch_computations.clone(),
            Op::Fusion { calls, .. } => vec![*calls],
            Op::CustomCall(cc) => cc.called_computations.clone(),
            Op::Unmodeled { called, .. } => called
                .iter()
                .flat_map(|c| c.computations.iter().copied())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Mutable references to every computation id this op holds (for renumbering).
    pub fn called_computations_mut(&mut self) -> Vec<&mut ComputationId> {
        match self {
            Op::Reduce { to_apply, .. }
            | Op::ReduceWindow { to_apply, .. }
            | Op::Map { to_apply, .. }
            | Op::Scatter { to_apply, .. }
            | Op::Sort { to_apply, .. }
            | Op::Call { to_apply } => vec![to_apply],
            Op::SelectAndScatter {
                select, scatter, ..
            } => vec![select, scatter],
            Op::While { condition, body } => vec![condition, body],
            Op::Conditional {
                branch_computations,
            } => branch_computations.iter_mut().collect(),
            Op::Fusion { calls, .. } => vec![calls],
            Op::CustomCall(cc) => cc.called_computations.iter_mut().collect(),
            Op::Unmodeled { called, .. } => called
                .iter_mut()
                .flat_map(|c| c.computations.iter_mut())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// True for ops that must not be removed or merged even when unused
    /// (custom calls with side effects, rng, infeed/outfeed, send/recv, collectives).
    pub fn has_side_effect(&self) -> bool {
        use Opcode::*;
        match self {
            Op::CustomCall(cc) => cc.has_side_effect,
            Op::Rng { .. } => true,
            _ => {
                matches!(
                    self.opcode(),
                    Infeed
                        | Outfeed
                        | Send
                        | SendDone
                        | Recv
                        | RecvDone
                        | RngGetAndUpdateState
                        | AfterAll
                ) || self.opcode().category() == super::OpCategory::Collective
            }
        }
    }
}

/// One HLO instruction: `%name = shape opcode(operands), attributes`.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// The name as HLO prints it, without `%` (`add.3`).
    pub name: String,
    /// The result shape (with layout).
    pub shape: Shape,
    /// Operands, in order; ids within the same computation.
    pub operands: Vec<InstrId>,
    /// What it computes, with its typed attributes.
    pub op: Op,
    /// `metadata={...}`.
    pub metadata: Option<Metadata>,
    /// `backend_config=...`.
    pub backend_config: Option<BackendConfig>,
    /// `control-predecessors={...}`: instructions that must run first.
    pub control_predecessors: Vec<InstrId>,
    /// `sharding={...}`: how the SPMD program lays the value out over partitions.
    pub sharding: Option<crate::ir::HloSharding>,
    /// Attributes xlac does not model (`frontend_attributes`, ...), verbatim.
    pub raw_attributes: Vec<RawAttribute>,
}

impl Instruction {
    /// A new instruction with no metadata or extra attributes.
    pub fn new(
        name: impl Into<String>,
        shape: Shape,
        op: Op,
        operands: Vec<InstrId>,
    ) -> Instruction {
        Instruction {
            name: name.into(),
            shape,
            operands,
            op,
            metadata: None,
            backend_config: None,
            control_predecessors: Vec::new(),
            sharding: None,
            raw_attributes: Vec::new(),
        }
    }

    /// The opcode.
    pub fn opcode(&self) -> Opcode {
        self.op.opcode()
    }
}
