//! Typed attribute values of HLO instructions: windows, dimension numbers, comparison
//! directions, fusion kinds. Each small enum parses from and prints as its HLO spelling.
//! XLA: `xla/xla_data.proto`, `xla/hlo/ir/hlo_instruction.cc` (`StringToEnum`),
//! `xla/window_util.cc`, `xla/hlo/parser/hlo_parser.cc`.

use super::ShapeIndex;

spelled_enum! {
    /// `direction=` of a compare.
    ComparisonDirection, case: any {
        Eq => "EQ", Ne => "NE", Lt => "LT", Le => "LE", Gt => "GT", Ge => "GE",
    }
}

spelled_enum! {
    /// `type=` of a compare; when absent XLA derives it from the element type
    /// (floats: `FLOAT`, signed: `SIGNED`, unsigned and pred: `UNSIGNED`).
    ComparisonType, case: any {
        Float => "FLOAT", TotalOrder => "TOTALORDER", Signed => "SIGNED", Unsigned => "UNSIGNED",
    }
}

spelled_enum! {
    /// `kind=` of a fusion.
    FusionKind, case: any {
        Loop => "kLoop", Input => "kInput", Output => "kOutput", Custom => "kCustom",
    }
}

spelled_enum! {
    /// One entry of `operand_precision={...}`.
    Precision, case: any {
        Default => "default", High => "high", Highest => "highest", PackedNibble => "packed_nibble",
    }
}

spelled_enum! {
    /// `algorithm=` of rng-bit-generator.
    RandomAlgorithm, case: any {
        Default => "rng_default", ThreeFry => "rng_three_fry", Philox => "rng_philox",
    }
}

spelled_enum! {
    /// `distribution=` of rng.
    RandomDistribution, case: any {
        Uniform => "rng_uniform", Normal => "rng_normal",
    }
}

spelled_enum! {
    /// `api_version=` of a custom-call.
    CustomCallApiVersion, case: any {
        Original => "API_VERSION_ORIGINAL",
        StatusReturning => "API_VERSION_STATUS_RETURNING",
        StatusReturningUnified => "API_VERSION_STATUS_RETURNING_UNIFIED",
        TypedFfi => "API_VERSION_TYPED_FFI",
    }
}

spelled_enum! {
    /// `transpose_a=` of triangular-solve.
    TriangularTranspose, case: any {
        NoTranspose => "NO_TRANSPOSE", Transpose => "TRANSPOSE", Adjoint => "ADJOINT",
    }
}

spelled_enum! {
    /// `fft_type=` of fft.
    FftType, case: any {
        Fft => "FFT", Ifft => "IFFT", Rfft => "RFFT", Irfft => "IRFFT",
    }
}

/// One dimension of a `window={...}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WindowDimension {
    /// `size=`
    pub size: i64,
    /// `stride=` (default 1)
    pub stride: i64,
    /// Low edge of `pad=lo_hi` (may be negative).
    pub padding_low: i64,
    /// High edge of `pad=lo_hi` (may be negative).
    pub padding_high: i64,
    /// `rhs_dilate=` (default 1): holes between window elements.
    pub window_dilation: i64,
    /// `lhs_dilate=` (default 1): holes between base elements.
    pub base_dilation: i64,
    /// `rhs_reversal=` (default false).
    pub window_reversal: bool,
}

impl WindowDimension {
    /// A window dimension of `size` with every other field at its default.
    pub fn of_size(size: i64) -> WindowDimension {
        WindowDimension {
            size,
            stride: 1,
            padding_low: 0,
            padding_high: 0,
            window_dilation: 1,
            base_dilation: 1,
            window_reversal: false,
        }
    }
}

/// `window={size=3x3 stride=2x2 pad=1_1x1_1 ...}`: one entry per spatial dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Window {
    /// Per-dimension settings.
    pub dimensions: Vec<WindowDimension>,
}

/// `dim_labels=b01f_01io->b01f`: which operand dimension plays which role in a convolution.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ConvolutionDimensionNumbers {
    /// `b` in the input labels.
    pub input_batch_dimension: usize,
    /// `f` in the input labels.
    pub input_feature_dimension: usize,
    /// Digits in the input labels, in spatial order.
    pub input_spatial_dimensions: Vec<usize>,
    /// `i` in the kernel labels.
    pub kernel_input_feature_dimension: usize,
    /// `o` in the kernel labels.
    pub kernel_output_feature_dimension: usize,
    /// Digits in the kernel labels.
    pub kernel_spatial_dimensions: Vec<usize>,
    /// `b` in the output labels.
    pub output_batch_dimension: usize,
    /// `f` in the output labels.
    pub output_feature_dimension: usize,
    /// Digits in the output labels.
    pub output_spatial_dimensions: Vec<usize>,
}

/// `lhs_batch_dims`, `lhs_contracting_dims`, `rhs_batch_dims`, `rhs_contracting_dims` of a dot.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDimensionNumbers {
    /// Batch dimensions of the lhs (paired in order with `rhs_batch_dimensions`).
    pub lhs_batch_dimensions: Vec<usize>,
    /// Batch dimensions of the rhs.
    pub rhs_batch_dimensions: Vec<usize>,
    /// Contracting dimensions of the lhs.
    pub lhs_contracting_dimensions: Vec<usize>,
    /// Contracting dimensions of the rhs.
    pub rhs_contracting_dimensions: Vec<usize>,
}

/// The dimension numbers of a gather.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GatherDimensionNumbers {
    /// `offset_dims`: output dimensions that index into a slice.
    pub offset_dims: Vec<usize>,
    /// `collapsed_slice_dims`: operand dimensions whose slice size is 1 and are dropped.
    pub collapsed_slice_dims: Vec<usize>,
    /// `start_index_map`: operand dimension of each index component.
    pub start_index_map: Vec<usize>,
    /// `index_vector_dim`: the dimension of the indices that holds index vectors.
    pub index_vector_dim: usize,
    /// `operand_batching_dims`.
    pub operand_batching_dims: Vec<usize>,
    /// `start_indices_batching_dims`.
    pub start_indices_batching_dims: Vec<usize>,
}

/// The dimension numbers of a scatter.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScatterDimensionNumbers {
    /// `update_window_dims`.
    pub update_window_dims: Vec<usize>,
    /// `inserted_window_dims`.
    pub inserted_window_dims: Vec<usize>,
    /// `scatter_dims_to_operand_dims`.
    pub scatter_dims_to_operand_dims: Vec<usize>,
    /// `index_vector_dim`.
    pub index_vector_dim: usize,
    /// `input_batching_dims`.
    pub input_batching_dims: Vec<usize>,
    /// `scatter_indices_batching_dims`.
    pub scatter_indices_batching_dims: Vec<usize>,
}

/// One dimension of a pad's `padding=lo_hi_interior`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct PaddingDimension {
    /// Elements added before (negative: removed).
    pub low: i64,
    /// Elements added after (negative: removed).
    pub high: i64,
    /// Elements added between each pair of elements (never negative).
    pub interior: i64,
}

/// One dimension of a slice's `slice={[start:limit:stride], ...}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SliceDimension {
    /// First index taken.
    pub start: i64,
    /// One past the last index that may be taken.
    pub limit: i64,
    /// Step (1 unless printed).
    pub stride: i64,
}

/// Options of triangular-solve (`left_side=`, `lower=`, `unit_diagonal=`, `transpose_a=`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TriangularSolveOptions {
    /// Solve `op(a) x = b` (true) or `x op(a) = b` (false).
    pub left_side: bool,
    /// Use the lower triangle of `a`.
    pub lower: bool,
    /// Assume ones on the diagonal.
    pub unit_diagonal: bool,
    /// How `a` is transposed.
    pub transpose_a: TriangularTranspose,
}

/// `metadata={op_type="..." op_name="..." source_file="..." source_line=N ...}`.
/// Carries provenance: which JAX operation and source line an instruction came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Metadata {
    /// `op_type=`
    pub op_type: Option<String>,
    /// `op_name=` (the JAX name stack, e.g. `jit(f)/tanh`)
    pub op_name: Option<String>,
    /// `source_file=`
    pub source_file: Option<String>,
    /// `source_line=`
    pub source_line: Option<i64>,
    /// `source_end_line=`
    pub source_end_line: Option<i64>,
    /// `source_column=`
    pub source_column: Option<i64>,
    /// `source_end_column=`
    pub source_end_column: Option<i64>,
    /// `stack_frame_id=` (1-based, into the module's StackFrames table)
    pub stack_frame_id: Option<i64>,
    /// Any other `key=value` pair, verbatim and in order, so nothing is lost.
    pub other: Vec<(String, String)>,
}

/// `backend_config=`: either a JSON object (what XLA:CPU writes) or a quoted string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BackendConfig {
    /// `backend_config={"known_trip_count":{"n":"10"}}`, text kept verbatim.
    Json(String),
    /// `backend_config="..."`, unescaped contents.
    Quoted(String),
}

/// `output_to_operand_aliasing={{out}: (operand, {index})}` entry of a custom-call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OutputOperandAlias {
    /// Index into the output tuple.
    pub output: ShapeIndex,
    /// Operand number.
    pub operand: usize,
    /// Index into that operand.
    pub operand_index: ShapeIndex,
}

/// An attribute xlac does not model (`sharding`, `frontend_attributes`, newer additions),
/// kept verbatim so the printer writes it back. No pass reads these.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawAttribute {
    /// The attribute name, e.g. `sharding`.
    pub name: String,
    /// The value text exactly as written, e.g. `{replicated}`.
    pub value: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_parse_case_insensitively() {
        assert_eq!(
            "lt".parse::<ComparisonDirection>(),
            Ok(ComparisonDirection::Lt)
        );
        assert_eq!("kLoop".parse::<FusionKind>(), Ok(FusionKind::Loop));
        assert_eq!("HIGHEST".parse::<Precision>(), Ok(Precision::Highest));
        assert_eq!(FusionKind::Output.to_string(), "kOutput");
    }
}
