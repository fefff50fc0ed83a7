//! The subset of XLA's `HloModuleProtoWithConfig` that xlac writes, as prost messages.
//! XLA: `xla/xla_data.proto`, `xla/service/hlo.proto`, `xla/xla.proto` (field numbers as
//! there; fields xlac never writes are left out, which a protobuf reader treats as unset).
//! Enums are plain `i32` fields holding XLA's enum numbers (the constants below).

use std::collections::BTreeMap;

/// `xla.PrimitiveType` numbers of the non-array element types.
pub mod primitive_type {
    /// `TUPLE`
    pub const TUPLE: i32 = 13;
    /// `OPAQUE_TYPE`
    pub const OPAQUE_TYPE: i32 = 14;
    /// `TOKEN`
    pub const TOKEN: i32 = 17;
}

/// `xla.LayoutProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LayoutProto {
    /// Dimensions from fastest- to slowest-varying.
    #[prost(int64, repeated, tag = "1")]
    pub minor_to_major: Vec<i64>,
}

/// `xla.ShapeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ShapeProto {
    /// `xla.PrimitiveType`.
    #[prost(int32, tag = "2")]
    pub element_type: i32,
    /// Array dimensions (bounds for dynamic ones).
    #[prost(int64, repeated, tag = "3")]
    pub dimensions: Vec<i64>,
    /// Tuple elements.
    #[prost(message, repeated, tag = "4")]
    pub tuple_shapes: Vec<ShapeProto>,
    /// Arrays only.
    #[prost(message, optional, tag = "5")]
    pub layout: Option<LayoutProto>,
    /// Per dimension, when any is dynamic.
    #[prost(bool, repeated, tag = "6")]
    pub is_dynamic_dimension: Vec<bool>,
}

/// `xla.ProgramShapeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProgramShapeProto {
    /// Parameter shapes.
    #[prost(message, repeated, tag = "1")]
    pub parameters: Vec<ShapeProto>,
    /// Result shape.
    #[prost(message, optional, tag = "2")]
    pub result: Option<ShapeProto>,
    /// Parameter names.
    #[prost(string, repeated, tag = "3")]
    pub parameter_names: Vec<String>,
}

/// `xla.OpMetadata`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OpMetadata {
    /// `op_type`
    #[prost(string, tag = "1")]
    pub op_type: String,
    /// `op_name`
    #[prost(string, tag = "2")]
    pub op_name: String,
    /// `source_file`
    #[prost(string, tag = "3")]
    pub source_file: String,
    /// `source_line`
    #[prost(int32, tag = "4")]
    pub source_line: i32,
    /// `stack_frame_id`
    #[prost(int32, tag = "15")]
    pub stack_frame_id: i32,
    /// `source_end_line`
    #[prost(int32, tag = "17")]
    pub source_end_line: i32,
    /// `source_column`
    #[prost(int32, tag = "18")]
    pub source_column: i32,
    /// `source_end_column`
    #[prost(int32, tag = "19")]
    pub source_end_column: i32,
}

/// `xla.LiteralProto`: elements in the layout's (physical) order.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LiteralProto {
    /// The shape, with layout.
    #[prost(message, optional, tag = "1")]
    pub shape: Option<ShapeProto>,
    /// `pred`
    #[prost(bool, repeated, tag = "2")]
    pub preds: Vec<bool>,
    /// `u8`
    #[prost(bytes = "vec", tag = "3")]
    pub u8s: Vec<u8>,
    /// `s32`
    #[prost(int32, repeated, tag = "4")]
    pub s32s: Vec<i32>,
    /// `s64`
    #[prost(int64, repeated, tag = "5")]
    pub s64s: Vec<i64>,
    /// `u32`
    #[prost(uint32, repeated, tag = "6")]
    pub u32s: Vec<u32>,
    /// `u64`
    #[prost(uint64, repeated, tag = "7")]
    pub u64s: Vec<u64>,
    /// `f32`
    #[prost(float, repeated, tag = "8")]
    pub f32s: Vec<f32>,
    /// `f64`
    #[prost(double, repeated, tag = "9")]
    pub f64s: Vec<f64>,
    /// Tuple elements.
    #[prost(message, repeated, tag = "10")]
    pub tuple_literals: Vec<LiteralProto>,
    /// `f16`, little-endian.
    #[prost(bytes = "vec", tag = "11")]
    pub f16s: Vec<u8>,
    /// `c64`, interleaved real and imaginary parts.
    #[prost(float, repeated, tag = "12")]
    pub c64s: Vec<f32>,
    /// `bf16`, little-endian.
    #[prost(bytes = "vec", tag = "13")]
    pub bf16s: Vec<u8>,
    /// `s8`
    #[prost(bytes = "vec", tag = "15")]
    pub s8s: Vec<u8>,
    /// `u16`, little-endian.
    #[prost(bytes = "vec", tag = "16")]
    pub u16s: Vec<u8>,
    /// `s16`, little-endian.
    #[prost(bytes = "vec", tag = "17")]
    pub s16s: Vec<u8>,
    /// `c128`, interleaved.
    #[prost(double, repeated, tag = "18")]
    pub c128s: Vec<f64>,
    /// `s4`, one byte per element.
    #[prost(bytes = "vec", tag = "21")]
    pub s4s: Vec<u8>,
    /// `u4`, one byte per element.
    #[prost(bytes = "vec", tag = "22")]
    pub u4s: Vec<u8>,
    /// `f8e5m2`, one byte per element.
    #[prost(bytes = "vec", tag = "19")]
    pub f8e5m2s: Vec<u8>,
    /// `f8e4m3fn`, one byte per element.
    #[prost(bytes = "vec", tag = "20")]
    pub f8e4m3fns: Vec<u8>,
    /// `f8e4m3b11fnuz`, one byte per element.
    #[prost(bytes = "vec", tag = "23")]
    pub f8e4m3b11fnuzs: Vec<u8>,
    /// `f8e5m2fnuz`, one byte per element.
    #[prost(bytes = "vec", tag = "24")]
    pub f8e5m2fnuzs: Vec<u8>,
    /// `f8e4m3fnuz`, one byte per element.
    #[prost(bytes = "vec", tag = "25")]
    pub f8e4m3fnuzs: Vec<u8>,
    /// `s2`, one byte per element.
    #[prost(bytes = "vec", tag = "26")]
    pub s2s: Vec<u8>,
    /// `u2`, one byte per element.
    #[prost(bytes = "vec", tag = "27")]
    pub u2s: Vec<u8>,
    /// `f8e4m3`, one byte per element.
    #[prost(bytes = "vec", tag = "28")]
    pub f8e4m3s: Vec<u8>,
    /// `f8e3m4`, one byte per element.
    #[prost(bytes = "vec", tag = "29")]
    pub f8e3m4s: Vec<u8>,
    /// `s1`, one byte per element.
    #[prost(bytes = "vec", tag = "30")]
    pub s1s: Vec<u8>,
    /// `u1`, one byte per element.
    #[prost(bytes = "vec", tag = "31")]
    pub u1s: Vec<u8>,
    /// `f4e2m1fn`, one byte per element.
    #[prost(bytes = "vec", tag = "32")]
    pub f4e2m1fns: Vec<u8>,
    /// `f8e8m0fnu`, one byte per element.
    #[prost(bytes = "vec", tag = "33")]
    pub f8e8m0fnus: Vec<u8>,
    /// `f6e3m2fn`, one byte per element.
    #[prost(bytes = "vec", tag = "35")]
    pub f6e3m2fns: Vec<u8>,
    /// `f6e2m3fn`, one byte per element.
    #[prost(bytes = "vec", tag = "36")]
    pub f6e2m3fns: Vec<u8>,
}

/// `xla.WindowDimension`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WindowDimension {
    /// `size`
    #[prost(int64, tag = "1")]
    pub size: i64,
    /// `stride`
    #[prost(int64, tag = "2")]
    pub stride: i64,
    /// `padding_low`
    #[prost(int64, tag = "3")]
    pub padding_low: i64,
    /// `padding_high`
    #[prost(int64, tag = "4")]
    pub padding_high: i64,
    /// `window_dilation`
    #[prost(int64, tag = "5")]
    pub window_dilation: i64,
    /// `base_dilation`
    #[prost(int64, tag = "6")]
    pub base_dilation: i64,
    /// `window_reversal`
    #[prost(bool, tag = "7")]
    pub window_reversal: bool,
}

/// `xla.Window`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Window {
    /// One per spatial dimension.
    #[prost(message, repeated, tag = "1")]
    pub dimensions: Vec<WindowDimension>,
}

/// `xla.GatherDimensionNumbers`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GatherDimensionNumbers {
    /// `offset_dims`
    #[prost(int64, repeated, tag = "1")]
    pub offset_dims: Vec<i64>,
    /// `collapsed_slice_dims`
    #[prost(int64, repeated, tag = "2")]
    pub collapsed_slice_dims: Vec<i64>,
    /// `start_index_map`
    #[prost(int64, repeated, tag = "3")]
    pub start_index_map: Vec<i64>,
    /// `index_vector_dim`
    #[prost(int64, tag = "4")]
    pub index_vector_dim: i64,
    /// `operand_batching_dims`
    #[prost(int64, repeated, tag = "5")]
    pub operand_batching_dims: Vec<i64>,
    /// `start_indices_batching_dims`
    #[prost(int64, repeated, tag = "6")]
    pub start_indices_batching_dims: Vec<i64>,
}

/// `xla.ScatterDimensionNumbers`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScatterDimensionNumbers {
    /// `update_window_dims`
    #[prost(int64, repeated, tag = "1")]
    pub update_window_dims: Vec<i64>,
    /// `inserted_window_dims`
    #[prost(int64, repeated, tag = "2")]
    pub inserted_window_dims: Vec<i64>,
    /// `scatter_dims_to_operand_dims`
    #[prost(int64, repeated, tag = "3")]
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// `index_vector_dim`
    #[prost(int64, tag = "4")]
    pub index_vector_dim: i64,
    /// `input_batching_dims`
    #[prost(int64, repeated, tag = "5")]
    pub input_batching_dims: Vec<i64>,
    /// `scatter_indices_batching_dims`
    #[prost(int64, repeated, tag = "6")]
    pub scatter_indices_batching_dims: Vec<i64>,
}

/// `xla.ConvolutionDimensionNumbers`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ConvolutionDimensionNumbers {
    /// `kernel_input_feature_dimension`
    #[prost(int64, tag = "3")]
    pub kernel_input_feature_dimension: i64,
    /// `kernel_output_feature_dimension`
    #[prost(int64, tag = "4")]
    pub kernel_output_feature_dimension: i64,
    /// `kernel_spatial_dimensions`
    #[prost(int64, repeated, tag = "6")]
    pub kernel_spatial_dimensions: Vec<i64>,
    /// `input_batch_dimension`
    #[prost(int64, tag = "7")]
    pub input_batch_dimension: i64,
    /// `input_feature_dimension`
    #[prost(int64, tag = "8")]
    pub input_feature_dimension: i64,
    /// `output_batch_dimension`
    #[prost(int64, tag = "9")]
    pub output_batch_dimension: i64,
    /// `output_feature_dimension`
    #[prost(int64, tag = "10")]
    pub output_feature_dimension: i64,
    /// `input_spatial_dimensions`
    #[prost(int64, repeated, tag = "11")]
    pub input_spatial_dimensions: Vec<i64>,
    /// `output_spatial_dimensions`
    #[prost(int64, repeated, tag = "12")]
    pub output_spatial_dimensions: Vec<i64>,
}

/// `xla.DotDimensionNumbers`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DotDimensionNumbers {
    /// `lhs_contracting_dimensions`
    #[prost(int64, repeated, tag = "1")]
    pub lhs_contracting_dimensions: Vec<i64>,
    /// `rhs_contracting_dimensions`
    #[prost(int64, repeated, tag = "2")]
    pub rhs_contracting_dimensions: Vec<i64>,
    /// `lhs_batch_dimensions`
    #[prost(int64, repeated, tag = "3")]
    pub lhs_batch_dimensions: Vec<i64>,
    /// `rhs_batch_dimensions`
    #[prost(int64, repeated, tag = "4")]
    pub rhs_batch_dimensions: Vec<i64>,
}

/// `xla.PaddingConfig.PaddingConfigDimension`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PaddingConfigDimension {
    /// `edge_padding_low`
    #[prost(int64, tag = "1")]
    pub edge_padding_low: i64,
    /// `edge_padding_high`
    #[prost(int64, tag = "2")]
    pub edge_padding_high: i64,
    /// `interior_padding`
    #[prost(int64, tag = "3")]
    pub interior_padding: i64,
}

/// `xla.PaddingConfig`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PaddingConfig {
    /// One per dimension.
    #[prost(message, repeated, tag = "1")]
    pub dimensions: Vec<PaddingConfigDimension>,
}

/// `xla.PrecisionConfig`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PrecisionConfig {
    /// `Precision` per operand (DEFAULT 0, HIGH 1, HIGHEST 2).
    #[prost(int32, repeated, tag = "1")]
    pub operand_precision: Vec<i32>,
    /// `Algorithm` (ALG_UNSET 0).
    #[prost(int32, tag = "2")]
    pub algorithm: i32,
}

/// `xla.TriangularSolveOptions`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TriangularSolveOptions {
    /// `left_side`
    #[prost(bool, tag = "1")]
    pub left_side: bool,
    /// `lower`
    #[prost(bool, tag = "2")]
    pub lower: bool,
    /// `unit_diagonal`
    #[prost(bool, tag = "3")]
    pub unit_diagonal: bool,
    /// `Transpose` (NO_TRANSPOSE 1, TRANSPOSE 2, ADJOINT 3).
    #[prost(int32, tag = "4")]
    pub transpose_a: i32,
}

/// `xla.CholeskyOptions`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CholeskyOptions {
    /// `lower`
    #[prost(bool, tag = "1")]
    pub lower: bool,
}

/// `xla.OutputOperandAliasing`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OutputOperandAliasing {
    /// `output_shape_index`
    #[prost(int64, repeated, tag = "1")]
    pub output_shape_index: Vec<i64>,
    /// `operand_index`
    #[prost(int64, tag = "2")]
    pub operand_index: i64,
    /// `operand_shape_index`
    #[prost(int64, repeated, tag = "3")]
    pub operand_shape_index: Vec<i64>,
}

/// `xla.OpSharding`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OpSharding {
    /// `Type` (REPLICATED 0, MAXIMAL 1, TUPLE 2, OTHER 3, MANUAL 4, UNKNOWN 5, UNREDUCED 6).
    #[prost(int32, tag = "1")]
    pub r#type: i32,
    /// `tile_assignment_dimensions`
    #[prost(int64, repeated, tag = "3")]
    pub tile_assignment_dimensions: Vec<i64>,
    /// `tile_assignment_devices`
    #[prost(int64, repeated, tag = "4")]
    pub tile_assignment_devices: Vec<i64>,
    /// `tuple_shardings`
    #[prost(message, repeated, tag = "5")]
    pub tuple_shardings: Vec<OpSharding>,
    /// `replicate_on_last_tile_dim`
    #[prost(bool, tag = "6")]
    pub replicate_on_last_tile_dim: bool,
    /// `last_tile_dims` (as `Type`).
    #[prost(int32, repeated, tag = "8")]
    pub last_tile_dims: Vec<i32>,
}

/// `xla.FrontendAttributes`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FrontendAttributes {
    /// `map`
    #[prost(btree_map = "string, string", tag = "1")]
    pub map: BTreeMap<String, String>,
}

/// `xla.HloInstructionProto.SliceDimensions`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SliceDimensions {
    /// `start`
    #[prost(int64, tag = "1")]
    pub start: i64,
    /// `limit`
    #[prost(int64, tag = "2")]
    pub limit: i64,
    /// `stride`
    #[prost(int64, tag = "3")]
    pub stride: i64,
}

/// `xla.HloInstructionProto`: the per-opcode fields `HloInstruction::CreateFromProto` reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HloInstructionProto {
    /// `name`
    #[prost(string, tag = "1")]
    pub name: String,
    /// `opcode`, as HLO text spells it.
    #[prost(string, tag = "2")]
    pub opcode: String,
    /// `shape`
    #[prost(message, optional, tag = "3")]
    pub shape: Option<ShapeProto>,
    /// `metadata`
    #[prost(message, optional, tag = "7")]
    pub metadata: Option<OpMetadata>,
    /// `literal` (constants, some custom calls)
    #[prost(message, optional, tag = "8")]
    pub literal: Option<LiteralProto>,
    /// `parameter_number`
    #[prost(int64, tag = "9")]
    pub parameter_number: i64,
    /// `fusion_kind` (`kLoop`, ...)
    #[prost(string, tag = "11")]
    pub fusion_kind: String,
    /// `tuple_index`
    #[prost(int64, tag = "13")]
    pub tuple_index: i64,
    /// `dimensions`
    #[prost(int64, repeated, tag = "14")]
    pub dimensions: Vec<i64>,
    /// `window`
    #[prost(message, optional, tag = "15")]
    pub window: Option<Window>,
    /// `convolution_dimension_numbers`
    #[prost(message, optional, tag = "16")]
    pub convolution_dimension_numbers: Option<ConvolutionDimensionNumbers>,
    /// `slice_dimensions`
    #[prost(message, repeated, tag = "17")]
    pub slice_dimensions: Vec<SliceDimensions>,
    /// `exponent_bits`
    #[prost(int32, tag = "18")]
    pub exponent_bits: i32,
    /// `mantissa_bits`
    #[prost(int32, tag = "19")]
    pub mantissa_bits: i32,
    /// `dynamic_slice_sizes`
    #[prost(int64, repeated, tag = "20")]
    pub dynamic_slice_sizes: Vec<i64>,
    /// `padding_config`
    #[prost(message, optional, tag = "21")]
    pub padding_config: Option<PaddingConfig>,
    /// `distribution` (RNG_UNIFORM 1, RNG_NORMAL 2)
    #[prost(int32, tag = "23")]
    pub distribution: i32,
    /// `epsilon`
    #[prost(float, tag = "24")]
    pub epsilon: f32,
    /// `feature_index`
    #[prost(int64, tag = "25")]
    pub feature_index: i64,
    /// `custom_call_target`
    #[prost(string, tag = "28")]
    pub custom_call_target: String,
    /// `dot_dimension_numbers`
    #[prost(message, optional, tag = "30")]
    pub dot_dimension_numbers: Option<DotDimensionNumbers>,
    /// `fft_type` (FFT 0, IFFT 1, RFFT 2, IRFFT 3)
    #[prost(int32, tag = "31")]
    pub fft_type: i32,
    /// `fft_length`
    #[prost(int64, repeated, tag = "32")]
    pub fft_length: Vec<i64>,
    /// `gather_dimension_numbers`
    #[prost(message, optional, tag = "33")]
    pub gather_dimension_numbers: Option<GatherDimensionNumbers>,
    /// `gather_slice_sizes`
    #[prost(int64, repeated, tag = "34")]
    pub gather_slice_sizes: Vec<i64>,
    /// `id`: unique in the module.
    #[prost(int64, tag = "35")]
    pub id: i64,
    /// `operand_ids`
    #[prost(int64, repeated, tag = "36")]
    pub operand_ids: Vec<i64>,
    /// `control_predecessor_ids`
    #[prost(int64, repeated, tag = "37")]
    pub control_predecessor_ids: Vec<i64>,
    /// `called_computation_ids`
    #[prost(int64, repeated, tag = "38")]
    pub called_computation_ids: Vec<i64>,
    /// `sharding`
    #[prost(message, optional, tag = "40")]
    pub sharding: Option<OpSharding>,
    /// `backend_config`
    #[prost(bytes = "vec", tag = "43")]
    pub backend_config: Vec<u8>,
    /// `scatter_dimension_numbers`
    #[prost(message, optional, tag = "48")]
    pub scatter_dimension_numbers: Option<ScatterDimensionNumbers>,
    /// `feature_group_count`
    #[prost(int64, tag = "50")]
    pub feature_group_count: i64,
    /// `precision_config`
    #[prost(message, optional, tag = "51")]
    pub precision_config: Option<PrecisionConfig>,
    /// `constrain_layout` (custom calls with operand layouts)
    #[prost(bool, tag = "56")]
    pub constrain_layout: bool,
    /// `operand_shapes_with_layout`
    #[prost(message, repeated, tag = "57")]
    pub operand_shapes_with_layout: Vec<ShapeProto>,
    /// `batch_group_count`
    #[prost(int64, tag = "58")]
    pub batch_group_count: i64,
    /// `triangular_solve_options`
    #[prost(message, optional, tag = "59")]
    pub triangular_solve_options: Option<TriangularSolveOptions>,
    /// `is_stable`
    #[prost(bool, tag = "60")]
    pub is_stable: bool,
    /// `cholesky_options`
    #[prost(message, optional, tag = "62")]
    pub cholesky_options: Option<CholeskyOptions>,
    /// `comparison_direction` (`LT`, ...)
    #[prost(string, tag = "63")]
    pub comparison_direction: String,
    /// `custom_call_has_side_effect`
    #[prost(bool, tag = "65")]
    pub custom_call_has_side_effect: bool,
    /// `indices_are_sorted`
    #[prost(bool, tag = "67")]
    pub indices_are_sorted: bool,
    /// `frontend_attributes`
    #[prost(message, optional, tag = "68")]
    pub frontend_attributes: Option<FrontendAttributes>,
    /// `unique_indices`
    #[prost(bool, tag = "69")]
    pub unique_indices: bool,
    /// `rng_algorithm` (RNG_DEFAULT 0, RNG_THREE_FRY 1, RNG_PHILOX 2)
    #[prost(int32, tag = "70")]
    pub rng_algorithm: i32,
    /// `comparison_type` (`FLOAT`, `TOTALORDER`, ...)
    #[prost(string, tag = "72")]
    pub comparison_type: String,
    /// `output_operand_aliasing`
    #[prost(message, repeated, tag = "74")]
    pub output_operand_aliasing: Vec<OutputOperandAliasing>,
    /// `custom_call_schedule` (SCHEDULE_NONE 0, LATEST 1, EARLIEST 2)
    #[prost(int32, tag = "76")]
    pub custom_call_schedule: i32,
    /// `custom_call_api_version` (ORIGINAL 1 ... TYPED_FFI 4)
    #[prost(int32, tag = "77")]
    pub custom_call_api_version: i32,
    /// `k` (topk)
    #[prost(int64, tag = "81")]
    pub k: i64,
    /// `largest` (topk)
    #[prost(bool, tag = "85")]
    pub largest: bool,
}

/// `xla.HloComputationProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HloComputationProto {
    /// `name`
    #[prost(string, tag = "1")]
    pub name: String,
    /// Operands before users.
    #[prost(message, repeated, tag = "2")]
    pub instructions: Vec<HloInstructionProto>,
    /// `program_shape`
    #[prost(message, optional, tag = "4")]
    pub program_shape: Option<ProgramShapeProto>,
    /// `id`
    #[prost(int64, tag = "5")]
    pub id: i64,
    /// `root_id`
    #[prost(int64, tag = "6")]
    pub root_id: i64,
    /// `is_fusion_computation`
    #[prost(bool, tag = "7")]
    pub is_fusion_computation: bool,
    /// `execution_thread`
    #[prost(string, tag = "8")]
    pub execution_thread: String,
}

/// `xla.HloScheduleProto.InstructionSequence`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InstructionSequence {
    /// `instruction_ids`
    #[prost(int64, repeated, tag = "1")]
    pub instruction_ids: Vec<i64>,
}

/// `xla.HloScheduleProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HloScheduleProto {
    /// Computation id to its instruction order.
    #[prost(btree_map = "int64, message", tag = "1")]
    pub sequences: BTreeMap<i64, InstructionSequence>,
}

/// `xla.HloInputOutputAliasProto.AliasEntryProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AliasEntryProto {
    /// `output_shape_index`
    #[prost(int64, repeated, tag = "1")]
    pub output_shape_index: Vec<i64>,
    /// `parameter_number`
    #[prost(int64, tag = "2")]
    pub parameter_number: i64,
    /// `parameter_shape_index`
    #[prost(int64, repeated, tag = "3")]
    pub parameter_shape_index: Vec<i64>,
    /// `Kind` (MAY_ALIAS 1, MUST_ALIAS 2).
    #[prost(int32, tag = "4")]
    pub kind: i32,
}

/// `xla.HloInputOutputAliasProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HloInputOutputAliasProto {
    /// `entries`
    #[prost(message, repeated, tag = "1")]
    pub entries: Vec<AliasEntryProto>,
}

/// `xla.StackFrameIndexProto.FileLocation`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FileLocationProto {
    /// `file_name_id`
    #[prost(int32, tag = "1")]
    pub file_name_id: i32,
    /// `function_name_id`
    #[prost(int32, tag = "2")]
    pub function_name_id: i32,
    /// `line`
    #[prost(int32, tag = "3")]
    pub line: i32,
    /// `column`
    #[prost(int32, tag = "4")]
    pub column: i32,
    /// `end_line`
    #[prost(int32, tag = "5")]
    pub end_line: i32,
    /// `end_column`
    #[prost(int32, tag = "6")]
    pub end_column: i32,
}

/// `xla.StackFrameIndexProto.StackFrame`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StackFrameProto {
    /// `file_location_id`
    #[prost(int32, tag = "1")]
    pub file_location_id: i32,
    /// `parent_frame_id`
    #[prost(int32, tag = "2")]
    pub parent_frame_id: i32,
}

/// `xla.StackFrameIndexProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StackFrameIndexProto {
    /// `file_names`
    #[prost(string, repeated, tag = "1")]
    pub file_names: Vec<String>,
    /// `function_names`
    #[prost(string, repeated, tag = "2")]
    pub function_names: Vec<String>,
    /// `file_locations`
    #[prost(message, repeated, tag = "3")]
    pub file_locations: Vec<FileLocationProto>,
    /// `stack_frames`
    #[prost(message, repeated, tag = "4")]
    pub stack_frames: Vec<StackFrameProto>,
}

/// `xla.HloModuleProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HloModuleProto {
    /// `name`
    #[prost(string, tag = "1")]
    pub name: String,
    /// `entry_computation_name`
    #[prost(string, tag = "2")]
    pub entry_computation_name: String,
    /// Callees before callers.
    #[prost(message, repeated, tag = "3")]
    pub computations: Vec<HloComputationProto>,
    /// `host_program_shape`: the entry computation's, with layouts.
    #[prost(message, optional, tag = "4")]
    pub host_program_shape: Option<ProgramShapeProto>,
    /// `id`
    #[prost(int64, tag = "5")]
    pub id: i64,
    /// `entry_computation_id`
    #[prost(int64, tag = "6")]
    pub entry_computation_id: i64,
    /// `schedule`
    #[prost(message, optional, tag = "7")]
    pub schedule: Option<HloScheduleProto>,
    /// `input_output_alias`
    #[prost(message, optional, tag = "8")]
    pub input_output_alias: Option<HloInputOutputAliasProto>,
    /// `stack_frame_index`
    #[prost(message, optional, tag = "17")]
    pub stack_frame_index: Option<StackFrameIndexProto>,
}

/// `xla.HloModuleConfigProto`: only what a single-device module needs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HloModuleConfigProto {
    /// `entry_computation_layout`: the layouts callers pass and receive.
    #[prost(message, optional, tag = "1")]
    pub entry_computation_layout: Option<ProgramShapeProto>,
    /// `replica_count`
    #[prost(int64, tag = "4")]
    pub replica_count: i64,
    /// `num_partitions`
    #[prost(int64, tag = "5")]
    pub num_partitions: i64,
}

/// `xla.HloModuleProtoWithConfig`: what `PJRT_Executable_OptimizedProgram` returns as
/// format `hlo_with_config`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HloModuleProtoWithConfig {
    /// `hlo_module`
    #[prost(message, optional, tag = "1")]
    pub hlo_module: Option<HloModuleProto>,
    /// `config`
    #[prost(message, optional, tag = "2")]
    pub config: Option<HloModuleConfigProto>,
}
