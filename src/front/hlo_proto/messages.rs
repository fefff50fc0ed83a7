//! The subset of XLA's `HloModuleProtoWithConfig` that xlac writes, as prost messages.
//! XLA: `xla/xla_data.proto`, `xla/service/hlo.proto`, `xla/xla.proto` (field numbers as
//! there; fields xlac never writes are left out, which a protobuf reader treats as unset).
//! Enums are plain `i32` fields holding XLA's enum numbers (the constants below).

use std::collections::BTreeMap;

/// Declares prost messages in the words of a `.proto` file: one row per field, its number,
/// its name, then its type: a scalar (`int64`, `string`, `bytes`, ...), `repeated` and a
/// scalar, `optional Message`, `repeated Message`, `map<string, string>` or
/// `map<int64, Message>`. Each field's doc starts with its proto name.
macro_rules! proto_messages {
    ($( $(#[$meta:meta])* message $name:ident { $($fields:tt)* } )*) => {
        $( proto_messages!(@fields [$(#[$meta])*] $name [] $($fields)*); )*
    };
    // Every field read: the struct.
    (@fields [$($meta:tt)*] $name:ident [$($out:tt)*]) => {
        $($meta)*
        #[derive(Clone, PartialEq, prost::Message)]
        pub struct $name { $($out)* }
    };
    // One field: its prost attribute and the Rust type of its proto type.
    (@fields $meta:tt $name:ident [$($out:tt)*]
        $(#[$doc:meta])* $tag:literal $field:ident: repeated $type:ident, $($rest:tt)*) => {
        proto_messages!(@repeated $type $meta $name [$($out)*
            #[doc = concat!("`", stringify!($field), "`")] $(#[$doc])*
        ] $tag $field $($rest)*);
    };
    (@fields $meta:tt $name:ident [$($out:tt)*]
        $(#[$doc:meta])* $tag:literal $field:ident: optional $message:ident, $($rest:tt)*) => {
        proto_messages!(@fields $meta $name [$($out)*
            #[doc = concat!("`", stringify!($field), "`")] $(#[$doc])*
            #[prost(message, optional, tag = $tag)] pub $field: Option<$message>,
        ] $($rest)*);
    };
    (@fields $meta:tt $name:ident [$($out:tt)*]
        $(#[$doc:meta])* $tag:literal $field:ident: bytes, $($rest:tt)*) => {
        proto_messages!(@fields $meta $name [$($out)*
            #[doc = concat!("`", stringify!($field), "`")] $(#[$doc])*
            #[prost(bytes = "vec", tag = $tag)] pub $field: Vec<u8>,
        ] $($rest)*);
    };
    (@fields $meta:tt $name:ident [$($out:tt)*]
        $(#[$doc:meta])* $tag:literal $field:ident: map<string, string>, $($rest:tt)*) => {
        proto_messages!(@fields $meta $name [$($out)*
            #[doc = concat!("`", stringify!($field), "`")] $(#[$doc])*
            #[prost(btree_map = "string, string", tag = $tag)]
            pub $field: BTreeMap<String, String>,
        ] $($rest)*);
    };
    (@fields $meta:tt $name:ident [$($out:tt)*]
        $(#[$doc:meta])* $tag:literal $field:ident: map<int64, $message:ident>, $($rest:tt)*) => {
        proto_messages!(@fields $meta $name [$($out)*
            #[doc = concat!("`", stringify!($field), "`")] $(#[$doc])*
            #[prost(btree_map = "int64, message", tag = $tag)]
            pub $field: BTreeMap<i64, $message>,
        ] $($rest)*);
    };
    (@fields $meta:tt $name:ident [$($out:tt)*]
        $(#[$doc:meta])* $tag:literal $field:ident: $scalar:ident, $($rest:tt)*) => {
        proto_messages!(@fields $meta $name [$($out)*
            #[doc = concat!("`", stringify!($field), "`")] $(#[$doc])*
            #[prost($scalar, tag = $tag)] pub $field: proto_scalar!($scalar),
        ] $($rest)*);
    };
    // `repeated T`: T a scalar, or else a message.
    (@repeated int64 $($x:tt)*) => { proto_messages!(@repeated_scalar int64 $($x)*); };
    (@repeated int32 $($x:tt)*) => { proto_messages!(@repeated_scalar int32 $($x)*); };
    (@repeated uint32 $($x:tt)*) => { proto_messages!(@repeated_scalar uint32 $($x)*); };
    (@repeated uint64 $($x:tt)*) => { proto_messages!(@repeated_scalar uint64 $($x)*); };
    (@repeated bool $($x:tt)*) => { proto_messages!(@repeated_scalar bool $($x)*); };
    (@repeated string $($x:tt)*) => { proto_messages!(@repeated_scalar string $($x)*); };
    (@repeated float $($x:tt)*) => { proto_messages!(@repeated_scalar float $($x)*); };
    (@repeated double $($x:tt)*) => { proto_messages!(@repeated_scalar double $($x)*); };
    (@repeated $message:ident $meta:tt $name:ident [$($out:tt)*] $tag:tt $field:ident
        $($rest:tt)*) => {
        proto_messages!(@fields $meta $name [$($out)*
            #[prost(message, repeated, tag = $tag)] pub $field: Vec<$message>,
        ] $($rest)*);
    };
    (@repeated_scalar $scalar:ident $meta:tt $name:ident [$($out:tt)*] $tag:tt $field:ident
        $($rest:tt)*) => {
        proto_messages!(@fields $meta $name [$($out)*
            #[prost($scalar, repeated, tag = $tag)] pub $field: Vec<proto_scalar!($scalar)>,
        ] $($rest)*);
    };
}

/// The Rust type of a proto scalar type.
macro_rules! proto_scalar {
    (int64) => {
        i64
    };
    (int32) => {
        i32
    };
    (uint32) => {
        u32
    };
    (uint64) => {
        u64
    };
    (bool) => {
        bool
    };
    (string) => {
        String
    };
    (float) => {
        f32
    };
    (double) => {
        f64
    };
}

/// `xla.PrimitiveType` numbers of the non-array element types.
pub mod primitive_type {
    /// `TUPLE`
    pub const TUPLE: i32 = 13;
    /// `OPAQUE_TYPE`
    pub const OPAQUE_TYPE: i32 = 14;
    /// `TOKEN`
    pub const TOKEN: i32 = 17;
}

proto_messages! {
    /// `xla.LayoutProto`.
    message LayoutProto {
        /// Dimensions from fastest- to slowest-varying.
        1 minor_to_major: repeated int64,
    }

    /// `xla.ShapeProto`.
    message ShapeProto {
        /// `xla.PrimitiveType`.
        2 element_type: int32,
        /// Array dimensions (bounds for dynamic ones).
        3 dimensions: repeated int64,
        /// Tuple elements.
        4 tuple_shapes: repeated ShapeProto,
        /// Arrays only.
        5 layout: optional LayoutProto,
        /// Per dimension, when any is dynamic.
        6 is_dynamic_dimension: repeated bool,
    }

    /// `xla.ProgramShapeProto`.
    message ProgramShapeProto {
        /// Parameter shapes.
        1 parameters: repeated ShapeProto,
        /// Result shape.
        2 result: optional ShapeProto,
        /// Parameter names.
        3 parameter_names: repeated string,
    }

    /// `xla.OpMetadata`.
    message OpMetadata {
        1 op_type: string,
        2 op_name: string,
        3 source_file: string,
        4 source_line: int32,
        15 stack_frame_id: int32,
        17 source_end_line: int32,
        18 source_column: int32,
        19 source_end_column: int32,
    }

    /// `xla.LiteralProto`: elements in the layout's (physical) order.
    message LiteralProto {
        /// The shape, with layout.
        1 shape: optional ShapeProto,
        /// `pred`
        2 preds: repeated bool,
        /// `u8`
        3 u8s: bytes,
        /// `s32`
        4 s32s: repeated int32,
        /// `s64`
        5 s64s: repeated int64,
        /// `u32`
        6 u32s: repeated uint32,
        /// `u64`
        7 u64s: repeated uint64,
        /// `f32`
        8 f32s: repeated float,
        /// `f64`
        9 f64s: repeated double,
        /// Tuple elements.
        10 tuple_literals: repeated LiteralProto,
        /// `f16`, little-endian.
        11 f16s: bytes,
        /// `c64`, interleaved real and imaginary parts.
        12 c64s: repeated float,
        /// `bf16`, little-endian.
        13 bf16s: bytes,
        /// `s8`
        15 s8s: bytes,
        /// `u16`, little-endian.
        16 u16s: bytes,
        /// `s16`, little-endian.
        17 s16s: bytes,
        /// `c128`, interleaved.
        18 c128s: repeated double,
        /// `s4`, one byte per element.
        21 s4s: bytes,
        /// `u4`, one byte per element.
        22 u4s: bytes,
        /// `f8e5m2`, one byte per element.
        19 f8e5m2s: bytes,
        /// `f8e4m3fn`, one byte per element.
        20 f8e4m3fns: bytes,
        /// `f8e4m3b11fnuz`, one byte per element.
        23 f8e4m3b11fnuzs: bytes,
        /// `f8e5m2fnuz`, one byte per element.
        24 f8e5m2fnuzs: bytes,
        /// `f8e4m3fnuz`, one byte per element.
        25 f8e4m3fnuzs: bytes,
        /// `s2`, one byte per element.
        26 s2s: bytes,
        /// `u2`, one byte per element.
        27 u2s: bytes,
        /// `f8e4m3`, one byte per element.
        28 f8e4m3s: bytes,
        /// `f8e3m4`, one byte per element.
        29 f8e3m4s: bytes,
        /// `s1`, one byte per element.
        30 s1s: bytes,
        /// `u1`, one byte per element.
        31 u1s: bytes,
        /// `f4e2m1fn`, one byte per element.
        32 f4e2m1fns: bytes,
        /// `f8e8m0fnu`, one byte per element.
        33 f8e8m0fnus: bytes,
        /// `f6e3m2fn`, one byte per element.
        35 f6e3m2fns: bytes,
        /// `f6e2m3fn`, one byte per element.
        36 f6e2m3fns: bytes,
    }

    /// `xla.WindowDimension`.
    message WindowDimension {
        1 size: int64,
        2 stride: int64,
        3 padding_low: int64,
        4 padding_high: int64,
        5 window_dilation: int64,
        6 base_dilation: int64,
        7 window_reversal: bool,
    }

    /// `xla.Window`.
    message Window {
        /// One per spatial dimension.
        1 dimensions: repeated WindowDimension,
    }

    /// `xla.GatherDimensionNumbers`.
    message GatherDimensionNumbers {
        1 offset_dims: repeated int64,
        2 collapsed_slice_dims: repeated int64,
        3 start_index_map: repeated int64,
        4 index_vector_dim: int64,
        5 operand_batching_dims: repeated int64,
        6 start_indices_batching_dims: repeated int64,
    }

    /// `xla.ScatterDimensionNumbers`.
    message ScatterDimensionNumbers {
        1 update_window_dims: repeated int64,
        2 inserted_window_dims: repeated int64,
        3 scatter_dims_to_operand_dims: repeated int64,
        4 index_vector_dim: int64,
        5 input_batching_dims: repeated int64,
        6 scatter_indices_batching_dims: repeated int64,
    }

    /// `xla.ConvolutionDimensionNumbers`.
    message ConvolutionDimensionNumbers {
        3 kernel_input_feature_dimension: int64,
        4 kernel_output_feature_dimension: int64,
        6 kernel_spatial_dimensions: repeated int64,
        7 input_batch_dimension: int64,
        8 input_feature_dimension: int64,
        9 output_batch_dimension: int64,
        10 output_feature_dimension: int64,
        11 input_spatial_dimensions: repeated int64,
        12 output_spatial_dimensions: repeated int64,
    }

    /// `xla.DotDimensionNumbers`.
    message DotDimensionNumbers {
        1 lhs_contracting_dimensions: repeated int64,
        2 rhs_contracting_dimensions: repeated int64,
        3 lhs_batch_dimensions: repeated int64,
        4 rhs_batch_dimensions: repeated int64,
    }

    /// `xla.PaddingConfig.PaddingConfigDimension`.
    message PaddingConfigDimension {
        1 edge_padding_low: int64,
        2 edge_padding_high: int64,
        3 interior_padding: int64,
    }

    /// `xla.PaddingConfig`.
    message PaddingConfig {
        /// One per dimension.
        1 dimensions: repeated PaddingConfigDimension,
    }

    /// `xla.PrecisionConfig`.
    message PrecisionConfig {
        /// `Precision` per operand (DEFAULT 0, HIGH 1, HIGHEST 2).
        1 operand_precision: repeated int32,
        /// `Algorithm` (ALG_UNSET 0).
        2 algorithm: int32,
    }

    /// `xla.TriangularSolveOptions`.
    message TriangularSolveOptions {
        1 left_side: bool,
        2 lower: bool,
        3 unit_diagonal: bool,
        /// `Transpose` (NO_TRANSPOSE 1, TRANSPOSE 2, ADJOINT 3).
        4 transpose_a: int32,
    }

    /// `xla.CholeskyOptions`.
    message CholeskyOptions {
        1 lower: bool,
    }

    /// `xla.OutputOperandAliasing`.
    message OutputOperandAliasing {
        1 output_shape_index: repeated int64,
        2 operand_index: int64,
        3 operand_shape_index: repeated int64,
    }

    /// `xla.OpSharding`.
    message OpSharding {
        /// `Type` (REPLICATED 0, MAXIMAL 1, TUPLE 2, OTHER 3, MANUAL 4, UNKNOWN 5, UNREDUCED 6).
        1 r#type: int32,
        3 tile_assignment_dimensions: repeated int64,
        4 tile_assignment_devices: repeated int64,
        5 tuple_shardings: repeated OpSharding,
        6 replicate_on_last_tile_dim: bool,
        /// `last_tile_dims` (as `Type`).
        8 last_tile_dims: repeated int32,
        /// The iota form of the tile assignment (read by the IFRT proxy; xlac writes the
        /// device list).
        9 iota_reshape_dims: repeated int64,
        10 iota_transpose_perm: repeated int32,
    }

    /// `xla.FrontendAttributes`.
    message FrontendAttributes {
        1 map: map<string, string>,
    }

    /// `xla.HloInstructionProto.SliceDimensions`.
    message SliceDimensions {
        1 start: int64,
        2 limit: int64,
        3 stride: int64,
    }

    /// `xla.ReplicaGroup`.
    message ReplicaGroup {
        1 replica_ids: repeated int64,
    }

    /// `xla.SourceTarget` (collective-permute).
    message SourceTarget {
        1 source: int64,
        2 target: int64,
    }

    /// `xla.HloInstructionProto`: the per-opcode fields `HloInstruction::CreateFromProto` reads.
    message HloInstructionProto {
        1 name: string,
        /// `opcode`, as HLO text spells it.
        2 opcode: string,
        3 shape: optional ShapeProto,
        7 metadata: optional OpMetadata,
        /// `literal` (constants, some custom calls)
        8 literal: optional LiteralProto,
        9 parameter_number: int64,
        /// `fusion_kind` (`kLoop`, ...)
        11 fusion_kind: string,
        13 tuple_index: int64,
        14 dimensions: repeated int64,
        15 window: optional Window,
        16 convolution_dimension_numbers: optional ConvolutionDimensionNumbers,
        17 slice_dimensions: repeated SliceDimensions,
        18 exponent_bits: int32,
        19 mantissa_bits: int32,
        20 dynamic_slice_sizes: repeated int64,
        21 padding_config: optional PaddingConfig,
        /// `distribution` (RNG_UNIFORM 1, RNG_NORMAL 2)
        23 distribution: int32,
        24 epsilon: float,
        25 feature_index: int64,
        /// `channel_id` (collectives across partitions)
        26 channel_id: int64,
        28 custom_call_target: string,
        30 dot_dimension_numbers: optional DotDimensionNumbers,
        /// `fft_type` (FFT 0, IFFT 1, RFFT 2, IRFFT 3)
        31 fft_type: int32,
        32 fft_length: repeated int64,
        33 gather_dimension_numbers: optional GatherDimensionNumbers,
        34 gather_slice_sizes: repeated int64,
        /// `id`: unique in the module.
        35 id: int64,
        36 operand_ids: repeated int64,
        37 control_predecessor_ids: repeated int64,
        38 called_computation_ids: repeated int64,
        40 sharding: optional OpSharding,
        43 backend_config: bytes,
        48 scatter_dimension_numbers: optional ScatterDimensionNumbers,
        /// `replica_groups` (the list form XLA still reads)
        49 replica_groups: repeated ReplicaGroup,
        50 feature_group_count: int64,
        51 precision_config: optional PrecisionConfig,
        52 source_target_pairs: repeated SourceTarget,
        /// `constrain_layout` (custom calls with operand layouts)
        56 constrain_layout: bool,
        57 operand_shapes_with_layout: repeated ShapeProto,
        58 batch_group_count: int64,
        59 triangular_solve_options: optional TriangularSolveOptions,
        60 is_stable: bool,
        62 cholesky_options: optional CholeskyOptions,
        /// `comparison_direction` (`LT`, ...)
        63 comparison_direction: string,
        65 custom_call_has_side_effect: bool,
        67 indices_are_sorted: bool,
        68 frontend_attributes: optional FrontendAttributes,
        69 unique_indices: bool,
        /// `rng_algorithm` (RNG_DEFAULT 0, RNG_THREE_FRY 1, RNG_PHILOX 2)
        70 rng_algorithm: int32,
        71 use_global_device_ids: bool,
        /// `comparison_type` (`FLOAT`, `TOTALORDER`, ...)
        72 comparison_type: string,
        74 output_operand_aliasing: repeated OutputOperandAliasing,
        /// `custom_call_schedule` (SCHEDULE_NONE 0, LATEST 1, EARLIEST 2)
        76 custom_call_schedule: int32,
        /// `custom_call_api_version` (ORIGINAL 1 ... TYPED_FFI 4)
        77 custom_call_api_version: int32,
        /// `k` (topk)
        81 k: int64,
        /// `largest` (topk)
        85 largest: bool,
    }

    /// `xla.HloComputationProto`.
    message HloComputationProto {
        1 name: string,
        /// Operands before users.
        2 instructions: repeated HloInstructionProto,
        4 program_shape: optional ProgramShapeProto,
        5 id: int64,
        6 root_id: int64,
        7 is_fusion_computation: bool,
        8 execution_thread: string,
    }

    /// `xla.HloScheduleProto.InstructionSequence`.
    message InstructionSequence {
        1 instruction_ids: repeated int64,
    }

    /// `xla.HloScheduleProto`.
    message HloScheduleProto {
        /// Computation id to its instruction order.
        1 sequences: map<int64, InstructionSequence>,
    }

    /// `xla.HloInputOutputAliasProto.AliasEntryProto`.
    message AliasEntryProto {
        1 output_shape_index: repeated int64,
        2 parameter_number: int64,
        3 parameter_shape_index: repeated int64,
        /// `Kind` (MAY_ALIAS 1, MUST_ALIAS 2).
        4 kind: int32,
    }

    /// `xla.HloInputOutputAliasProto`.
    message HloInputOutputAliasProto {
        1 entries: repeated AliasEntryProto,
    }

    /// `xla.StackFrameIndexProto.FileLocation`.
    message FileLocationProto {
        1 file_name_id: int32,
        2 function_name_id: int32,
        3 line: int32,
        4 column: int32,
        5 end_line: int32,
        6 end_column: int32,
    }

    /// `xla.StackFrameIndexProto.StackFrame`.
    message StackFrameProto {
        1 file_location_id: int32,
        2 parent_frame_id: int32,
    }

    /// `xla.StackFrameIndexProto`.
    message StackFrameIndexProto {
        1 file_names: repeated string,
        2 function_names: repeated string,
        3 file_locations: repeated FileLocationProto,
        4 stack_frames: repeated StackFrameProto,
    }

    /// `xla.HloModuleProto`.
    message HloModuleProto {
        1 name: string,
        2 entry_computation_name: string,
        /// Callees before callers.
        3 computations: repeated HloComputationProto,
        /// `host_program_shape`: the entry computation's, with layouts.
        4 host_program_shape: optional ProgramShapeProto,
        5 id: int64,
        6 entry_computation_id: int64,
        7 schedule: optional HloScheduleProto,
        8 input_output_alias: optional HloInputOutputAliasProto,
        /// A partitioned program's result sharding (what jax reads as output shardings).
        12 spmd_output_sharding: optional OpSharding,
        /// A partitioned program's parameter shardings.
        14 spmd_parameters_shardings: repeated OpSharding,
        17 stack_frame_index: optional StackFrameIndexProto,
    }

    /// `xla.HloModuleConfigProto`: only what a single-device module needs.
    message HloModuleConfigProto {
        /// `entry_computation_layout`: the layouts callers pass and receive.
        1 entry_computation_layout: optional ProgramShapeProto,
        4 replica_count: int64,
        5 num_partitions: int64,
    }

    /// `xla.HloModuleProtoWithConfig`: what `PJRT_Executable_OptimizedProgram` returns as
    /// format `hlo_with_config`.
    message HloModuleProtoWithConfig {
        1 hlo_module: optional HloModuleProto,
        2 config: optional HloModuleConfigProto,
    }
}
