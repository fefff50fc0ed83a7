//! The IFRT proxy's wire messages, as prost messages derived by hand: the subset of
//! `xla/python/ifrt_proxy/common/{grpc_ifrt_service,ifrt_service,types}.proto`,
//! `xla/python/ifrt/*.proto`, `xla/python/pjrt_ifrt/{xla_sharding,xla_compiler}.proto`,
//! `xla/pjrt/proto/compile_options.proto` and `xla/xla_data.proto` that xlac reads or
//! writes. Field numbers are XLA's; a field left out here is skipped when read and never
//! written, which a protobuf reader on either side takes as unset. Enums are `i32` fields
//! holding XLA's numbers.
//!
//! Derived by hand (no protoc, no build script), as `crate::ir::hlo_proto` is: the files
//! import a dozen others for fields xlac never touches.

use std::collections::HashMap;

/// `xla.ifrt.proxy.IfrtProxyVersion`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IfrtProxyVersion {
    /// `protocol_version`.
    #[prost(int32, tag = "1")]
    pub protocol_version: i32,
    /// `ifrt_serdes_version_number`.
    #[prost(int32, tag = "2")]
    pub ifrt_serdes_version_number: i32,
}

/// `GrpcGetVersionRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GrpcGetVersionRequest {
    /// `min_version`.
    #[prost(message, optional, tag = "1")]
    pub min_version: Option<IfrtProxyVersion>,
    /// `max_version`.
    #[prost(message, optional, tag = "2")]
    pub max_version: Option<IfrtProxyVersion>,
}

/// `GrpcGetVersionResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GrpcGetVersionResponse {
    /// `version`.
    #[prost(message, optional, tag = "1")]
    pub version: Option<IfrtProxyVersion>,
}

/// `GrpcIfrtSessionMetadata`: the binary metadata of an `IfrtSession` call.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GrpcIfrtSessionMetadata {
    /// `version`.
    #[prost(message, optional, tag = "1")]
    pub version: Option<IfrtProxyVersion>,
    /// `initialization_data`.
    #[prost(message, optional, tag = "2")]
    pub initialization_data: Option<AttributeMapProto>,
}

/// `GrpcHostBufferStoreMetadata`: the binary metadata of a `HostBufferStore` call.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GrpcHostBufferStoreMetadata {
    /// `session_id`.
    #[prost(fixed64, tag = "1")]
    pub session_id: u64,
    /// `handle`.
    #[prost(fixed64, tag = "2")]
    pub handle: u64,
    /// `buffer_size`.
    #[prost(int64, tag = "3")]
    pub buffer_size: i64,
}

/// `GrpcHostBufferStoreRequest` and `GrpcHostBufferLookupResponse`: one chunk.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HostBufferChunk {
    /// `data`.
    #[prost(bytes = "vec", tag = "1")]
    pub data: Vec<u8>,
}

/// An empty message (`GrpcHostBufferStoreResponse`, `GrpcHostBufferDeleteResponse`, ...).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Empty {}

/// `GrpcHostBufferLookupRequest` and `GrpcHostBufferDeleteRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GrpcHostBufferRef {
    /// `session_id`.
    #[prost(fixed64, tag = "1")]
    pub session_id: u64,
    /// `handle`.
    #[prost(fixed64, tag = "2")]
    pub handle: u64,
}

/// `xla.ifrt.AttributeMapProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeMapProto {
    /// `attributes`.
    #[prost(map = "string, message", tag = "1")]
    pub attributes: HashMap<String, AttributeValue>,
    /// `version_number`.
    #[prost(int32, tag = "2")]
    pub version_number: i32,
}

/// `xla.ifrt.AttributeMapProto.Value`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeValue {
    /// `value`.
    #[prost(oneof = "attribute_value::Value", tags = "1, 2, 3, 4, 5")]
    pub value: Option<attribute_value::Value>,
}

/// The oneof of [`AttributeValue`].
pub mod attribute_value {
    /// `Int64List`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Int64List {
        /// `elements`.
        #[prost(sfixed64, repeated, tag = "1")]
        pub elements: Vec<i64>,
    }
    /// `value`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        /// `string_value`.
        #[prost(bytes, tag = "1")]
        StringValue(Vec<u8>),
        /// `bool_value`.
        #[prost(bool, tag = "2")]
        BoolValue(bool),
        /// `int64_value`.
        #[prost(sfixed64, tag = "3")]
        Int64Value(i64),
        /// `int64_list_value`.
        #[prost(message, tag = "4")]
        Int64ListValue(Int64List),
        /// `float_value`.
        #[prost(float, tag = "5")]
        FloatValue(f32),
    }
}

/// `tensorflow.StatusProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StatusProto {
    /// `code` (absl's status codes).
    #[prost(int32, tag = "1")]
    pub code: i32,
    /// `message`.
    #[prost(string, tag = "2")]
    pub message: String,
}

/// `xla.ifrt.Serialized`: an IFRT serializable, named by its C++ type.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Serialized {
    /// `type_name`.
    #[prost(string, tag = "1")]
    pub type_name: String,
    /// `data`.
    #[prost(bytes = "vec", tag = "2")]
    pub data: Vec<u8>,
}

/// `xla.ifrt.DTypeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DTypeProto {
    /// `kind` (`DTypeProto.Kind`).
    #[prost(int32, tag = "1")]
    pub kind: i32,
    /// `version_number`.
    #[prost(int32, tag = "2")]
    pub version_number: i32,
}

/// `xla.ifrt.ShapeProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ShapeProto {
    /// `dims`.
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    /// `version_number`.
    #[prost(int32, tag = "2")]
    pub version_number: i32,
}

/// `xla.ifrt.ShardingProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ShardingProto {
    /// `serialized_sharding`.
    #[prost(message, optional, tag = "1")]
    pub serialized_sharding: Option<Serialized>,
}

/// `xla.ifrt.DeviceListProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeviceListProto {
    /// `device_ids`.
    #[prost(int32, repeated, tag = "1")]
    pub device_ids: Vec<i32>,
    /// `version_number`.
    #[prost(int32, tag = "2")]
    pub version_number: i32,
}

/// `xla.ifrt.SingleDeviceShardingProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SingleDeviceShardingProto {
    /// `device_id`.
    #[prost(int32, tag = "1")]
    pub device_id: i32,
    /// `memory_kind`.
    #[prost(string, optional, tag = "2")]
    pub memory_kind: Option<String>,
    /// `version_number`.
    #[prost(int32, tag = "3")]
    pub version_number: i32,
}

/// `xla.ifrt.OpaqueShardingProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OpaqueShardingProto {
    /// `devices`.
    #[prost(message, optional, tag = "1")]
    pub devices: Option<DeviceListProto>,
}

/// `xla.ifrt.ConcreteEvenShardingProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ConcreteEvenShardingProto {
    /// `devices`.
    #[prost(message, optional, tag = "1")]
    pub devices: Option<DeviceListProto>,
    /// `shape`.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<ShapeProto>,
    /// `shard_shape`.
    #[prost(message, optional, tag = "3")]
    pub shard_shape: Option<ShapeProto>,
    /// `memory_kind`.
    #[prost(string, optional, tag = "4")]
    pub memory_kind: Option<String>,
    /// `is_fully_replicated`.
    #[prost(bool, tag = "5")]
    pub is_fully_replicated: bool,
    /// `version_number`.
    #[prost(int32, tag = "6")]
    pub version_number: i32,
}

/// `xla.ifrt.HloShardingProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HloShardingProto {
    /// `devices`.
    #[prost(message, optional, tag = "1")]
    pub devices: Option<DeviceListProto>,
    /// `xla_op_sharding`.
    #[prost(message, optional, tag = "2")]
    pub xla_op_sharding: Option<OpSharding>,
    /// `memory_kind`.
    #[prost(string, optional, tag = "3")]
    pub memory_kind: Option<String>,
    /// `version_number`.
    #[prost(int32, tag = "4")]
    pub version_number: i32,
}

/// `xla.OpSharding`: the message the optimized-program writer uses.
pub use crate::ir::hlo_proto::messages::OpSharding;

/// `xla.ifrt.XlaCompileOptionsProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct XlaCompileOptionsProto {
    /// `compile_options`.
    #[prost(message, optional, tag = "1")]
    pub compile_options: Option<CompileOptionsProto>,
}

/// `xla.CompileOptionsProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CompileOptionsProto {
    /// `executable_build_options`.
    #[prost(message, optional, tag = "3")]
    pub executable_build_options: Option<ExecutableBuildOptionsProto>,
}

/// `xla.ExecutableBuildOptionsProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExecutableBuildOptionsProto {
    /// `num_replicas`.
    #[prost(int64, tag = "4")]
    pub num_replicas: i64,
    /// `num_partitions`.
    #[prost(int64, tag = "5")]
    pub num_partitions: i64,
    /// `device_assignment`.
    #[prost(message, optional, tag = "9")]
    pub device_assignment: Option<DeviceAssignmentProto>,
}

/// `xla.DeviceAssignmentProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeviceAssignmentProto {
    /// `replica_count`.
    #[prost(int32, tag = "1")]
    pub replica_count: i32,
    /// `computation_count`.
    #[prost(int32, tag = "2")]
    pub computation_count: i32,
    /// `computation_devices`.
    #[prost(message, repeated, tag = "3")]
    pub computation_devices: Vec<ComputationDevice>,
}

/// `xla.DeviceAssignmentProto.ComputationDevice`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ComputationDevice {
    /// `replica_device_ids`.
    #[prost(int64, repeated, tag = "1")]
    pub replica_device_ids: Vec<i64>,
}

/// `RequestMetadata`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RequestMetadata {
    /// `op_id`.
    #[prost(fixed64, tag = "1")]
    pub op_id: u64,
}

/// `ResponseMetadata`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResponseMetadata {
    /// `op_id`.
    #[prost(fixed64, tag = "1")]
    pub op_id: u64,
    /// `status`: set when the request failed.
    #[prost(message, optional, tag = "2")]
    pub status: Option<StatusProto>,
}

/// Declares a message of `fixed64` handles and other plain fields in one line each.
macro_rules! message {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident: $ty:ty = $attr:tt),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, PartialEq, prost::Message)]
        pub struct $name { $($(#[$fm])* #[prost $attr] pub $field: $ty,)* }
    };
}

message!(
    /// `InitRequest`.
    InitRequest {}
);
message!(
    /// `InitResponse`.
    InitResponse {
        /// `platform_name`.
        platform_name: String = (string, tag = "1"),
        /// `platform_version`.
        platform_version: String = (string, tag = "2"),
        /// `platform_id`.
        platform_id: u64 = (uint64, tag = "3"),
        /// `process_index`.
        process_index: u64 = (uint64, tag = "4"),
        /// `runtime_type`.
        runtime_type: String = (string, tag = "5"),
        /// `all_devices`.
        all_devices: Vec<InitDevice> = (message, repeated, tag = "6"),
        /// `addressable_device_ids`.
        addressable_device_ids: Vec<i32> = (int32, repeated, tag = "7"),
        /// `session_id`.
        session_id: u64 = (uint64, tag = "8"),
        /// `memories`.
        memories: Vec<InitMemory> = (message, repeated, tag = "9"),
        /// `primary_device_ids`.
        primary_device_ids: Vec<i32> = (int32, repeated, tag = "10"),
        /// `client_attributes`.
        client_attributes: Option<AttributeMapProto> = (message, optional, tag = "11"),
    }
);
message!(
    /// `InitResponse.Device`.
    InitDevice {
        /// `id`.
        id: i32 = (int32, tag = "1"),
        /// `local_hardware_id`.
        local_hardware_id: i32 = (int32, tag = "2"),
        /// `device_kind`.
        device_kind: String = (string, tag = "3"),
        /// `debug_string`.
        debug_string: String = (string, tag = "4"),
        /// `to_string`.
        to_string: String = (string, tag = "5"),
        /// `default_memory_id`.
        default_memory_id: Option<i32> = (int32, optional, tag = "7"),
        /// `memory_ids`.
        memory_ids: Vec<i32> = (int32, repeated, tag = "8"),
        /// `local_device_id`.
        local_device_id: i32 = (int32, tag = "9"),
        /// `attributes`.
        attributes: Option<AttributeMapProto> = (message, optional, tag = "10"),
        /// `platform_name`.
        platform_name: String = (string, tag = "11"),
    }
);
message!(
    /// `InitResponse.Memory`.
    InitMemory {
        /// `id`.
        id: i32 = (int32, tag = "1"),
        /// `memory_space_kind`.
        memory_space_kind: String = (string, tag = "2"),
        /// `device_ids`.
        device_ids: Vec<i32> = (int32, repeated, tag = "3"),
        /// `debug_string`.
        debug_string: String = (string, tag = "4"),
        /// `to_string`.
        to_string: String = (string, tag = "5"),
        /// `kind_id`.
        kind_id: i32 = (int32, tag = "6"),
    }
);
message!(
    /// `CheckFutureRequest`.
    CheckFutureRequest {
        /// `future_handle`.
        future_handle: u64 = (fixed64, tag = "1"),
    }
);
message!(
    /// `CheckValueReadyRequest`.
    CheckValueReadyRequest {
        /// `value_handles`.
        value_handles: Vec<u64> = (fixed64, repeated, packed = "false", tag = "1"),
    }
);
message!(
    /// `ByteStrides`.
    ByteStrides {
        /// `strides`.
        strides: Vec<i64> = (int64, repeated, tag = "1"),
    }
);
message!(
    /// `MakeArrayFromHostBufferRequest`.
    MakeArrayFromHostBufferRequest {
        /// `dtype`.
        dtype: Option<DTypeProto> = (message, optional, tag = "1"),
        /// `shape`.
        shape: Option<ShapeProto> = (message, optional, tag = "2"),
        /// `sharding`.
        sharding: Option<ShardingProto> = (message, optional, tag = "3"),
        /// `host_buffer_handle`.
        host_buffer_handle: u64 = (fixed64, tag = "4"),
        /// `byte_strides`.
        byte_strides: Option<ByteStrides> = (message, optional, tag = "5"),
        /// `array_handle`.
        array_handle: Option<u64> = (fixed64, optional, tag = "6"),
    }
);
message!(
    /// `ArrayHandleResponse`: the responses that return one array handle.
    ArrayHandleResponse {
        /// `array_handle`.
        array_handle: u64 = (fixed64, tag = "1"),
    }
);
message!(
    /// The responses that return a list of array handles.
    ArrayHandlesResponse {
        /// `array_handles`.
        array_handles: Vec<u64> = (fixed64, repeated, tag = "1"),
    }
);
message!(
    /// `xla.ifrt.ArraySpecProto`.
    ArraySpecProto {
        /// `dtype`.
        dtype: Option<DTypeProto> = (message, optional, tag = "1"),
        /// `shape`.
        shape: Option<ShapeProto> = (message, optional, tag = "2"),
        /// `sharding`.
        sharding: Option<ShardingProto> = (message, optional, tag = "3"),
        /// `layout`.
        layout: Option<Vec<u8>> = (bytes = "vec", optional, tag = "4"),
    }
);
message!(
    /// `MakeArraysFromHostBufferShardsRequest.HostBuffer`.
    ShardsHostBuffer {
        /// `dtype`.
        dtype: Option<DTypeProto> = (message, optional, tag = "1"),
        /// `shape`.
        shape: Option<ShapeProto> = (message, optional, tag = "2"),
        /// `host_buffer_handle`.
        host_buffer_handle: u64 = (fixed64, tag = "3"),
        /// `byte_strides`.
        byte_strides: Option<ByteStrides> = (message, optional, tag = "4"),
    }
);
message!(
    /// `MakeArraysFromHostBufferShardsRequest.ShardIndices`.
    ShardIndices {
        /// `indices`.
        indices: Vec<i64> = (int64, repeated, tag = "1"),
    }
);
message!(
    /// `MakeArraysFromHostBufferShardsRequest.MakeArraysFromHostBufferShardsSpec`.
    ShardsSpec {
        /// `addressable_shard_indices`.
        addressable_shard_indices: Vec<ShardIndices> = (message, repeated, tag = "1"),
        /// `host_buffers`.
        host_buffers: Vec<ShardsHostBuffer> = (message, repeated, tag = "2"),
        /// `array_spec`.
        array_spec: Option<ArraySpecProto> = (message, optional, tag = "3"),
    }
);
message!(
    /// `MakeArraysFromHostBufferShardsRequest`.
    MakeArraysFromHostBufferShardsRequest {
        /// `specs`.
        specs: Vec<ShardsSpec> = (message, repeated, tag = "1"),
        /// `array_handles`.
        array_handles: Vec<u64> = (fixed64, repeated, tag = "2"),
    }
);
message!(
    /// `AssembleArrayFromSingleDeviceArraysRequest`.
    AssembleRequest {
        /// `shape`.
        shape: Option<ShapeProto> = (message, optional, tag = "1"),
        /// `sharding`.
        sharding: Option<ShardingProto> = (message, optional, tag = "2"),
        /// `single_device_array_handles`.
        single_device_array_handles: Vec<u64> = (fixed64, repeated, tag = "3"),
        /// `copy_semantics`.
        copy_semantics: i32 = (int32, tag = "4"),
        /// `single_device_shard_semantics`.
        single_device_shard_semantics: Option<i32> = (int32, optional, tag = "5"),
        /// `result_handle`.
        result_handle: u64 = (fixed64, tag = "6"),
        /// `dtype`.
        dtype: Option<DTypeProto> = (message, optional, tag = "7"),
    }
);
message!(
    /// `ReshardArraysRequest`.
    ReshardArraysRequest {
        /// `array_handles`.
        array_handles: Vec<u64> = (fixed64, repeated, tag = "1"),
        /// `array_specs`.
        array_specs: Vec<ArraySpecProto> = (message, repeated, tag = "2"),
        /// `copy_semantics`.
        copy_semantics: i32 = (int32, tag = "3"),
        /// `result_handles`.
        result_handles: Vec<u64> = (fixed64, repeated, tag = "4"),
    }
);
message!(
    /// `CopyToHostBufferRequest`.
    CopyToHostBufferRequest {
        /// `host_buffer_handle`.
        host_buffer_handle: u64 = (fixed64, tag = "1"),
        /// `array_handle`.
        array_handle: u64 = (fixed64, tag = "2"),
        /// `byte_strides`.
        byte_strides: Option<ByteStrides> = (message, optional, tag = "3"),
    }
);
message!(
    /// `DisassembleIntoSingleDeviceArraysRequest`.
    DisassembleRequest {
        /// `array_handle`.
        array_handle: u64 = (fixed64, tag = "1"),
        /// `copy_semantics`.
        copy_semantics: i32 = (int32, tag = "2"),
        /// `single_device_shard_semantics`.
        single_device_shard_semantics: Option<i32> = (int32, optional, tag = "3"),
        /// `result_handles`.
        result_handles: Vec<u64> = (fixed64, repeated, tag = "4"),
    }
);
message!(
    /// `CopyArraysRequest`.
    CopyArraysRequest {
        /// `array_handles`.
        array_handles: Vec<u64> = (fixed64, repeated, tag = "1"),
        /// `device_ids`.
        device_ids: Vec<i32> = (int32, repeated, tag = "2"),
        /// `memory_kind`.
        memory_kind: Option<String> = (string, optional, tag = "3"),
        /// `copy_semantics`.
        copy_semantics: i32 = (int32, tag = "4"),
        /// `result_handles`.
        result_handles: Vec<u64> = (fixed64, repeated, tag = "5"),
    }
);
message!(
    /// `FullyReplicatedShardRequest`.
    FullyReplicatedShardRequest {
        /// `array_handle`.
        array_handle: u64 = (fixed64, tag = "1"),
        /// `copy_semantics`.
        copy_semantics: i32 = (int32, tag = "2"),
        /// `result_handle`.
        result_handle: u64 = (fixed64, tag = "3"),
    }
);
message!(
    /// `DeleteArrayRequest` and `DestructArrayRequest`.
    ArraysRequest {
        /// `array_handle`.
        array_handle: Vec<u64> = (fixed64, repeated, tag = "2"),
    }
);
message!(
    /// `DeleteArrayResponse`.
    DeleteArrayResponse {
        /// `deletion_future_handle`.
        deletion_future_handle: u64 = (fixed64, tag = "1"),
    }
);
message!(
    /// `IsArrayDeletedResponse`.
    IsArrayDeletedResponse {
        /// `deleted`.
        deleted: bool = (bool, tag = "1"),
    }
);
message!(
    /// `CompileRequest`.
    CompileRequest {
        /// `program`.
        program: Option<Serialized> = (message, optional, tag = "1"),
        /// `compile_options`.
        compile_options: Option<Serialized> = (message, optional, tag = "2"),
        /// `host_callbacks`.
        host_callbacks: Vec<Vec<u8>> = (bytes = "vec", repeated, tag = "3"),
    }
);
message!(
    /// `CompileResponse`.
    CompileResponse {
        /// `loaded_executable_handle`.
        loaded_executable_handle: u64 = (fixed64, tag = "1"),
        /// `name`.
        name: String = (string, tag = "2"),
        /// `num_devices`.
        num_devices: i32 = (int32, tag = "3"),
        /// `addressable_device_ids`.
        addressable_device_ids: Vec<i32> = (int32, repeated, tag = "5"),
        /// `fingerprint_value`.
        fingerprint_value: Option<Vec<u8>> = (bytes = "vec", optional, tag = "6"),
        /// `ready_future_handle`.
        ready_future_handle: Option<u64> = (fixed64, optional, tag = "9"),
        /// `device_ids`.
        device_ids: Vec<i32> = (int32, repeated, tag = "10"),
    }
);
message!(
    /// The requests that name one loaded executable (metadata, delete, destruct, ...).
    ExecutableRequest {
        /// `loaded_executable_handle`.
        loaded_executable_handle: u64 = (fixed64, tag = "1"),
    }
);
message!(
    /// `LoadedExecutableMetadataResponse.ShardingList`.
    ShardingList {
        /// `shardings`.
        shardings: Vec<OpSharding> = (message, repeated, tag = "1"),
    }
);
message!(
    /// `LoadedExecutableMetadataResponse.OutputMemoryKind`.
    OutputMemoryKind {
        /// `status`.
        status: Option<StatusProto> = (message, optional, tag = "1"),
        /// `memory_kind_lists`.
        memory_kind_lists: Vec<MemoryKindList> = (message, repeated, tag = "2"),
    }
);
message!(
    /// `LoadedExecutableMetadataResponse.MemoryKindList`.
    MemoryKindList {
        /// `memory_kinds`.
        memory_kinds: Vec<String> = (string, repeated, tag = "1"),
    }
);
message!(
    /// `LoadedExecutableMetadataResponse`.
    ExecutableMetadataResponse {
        /// `parameter_shardings`.
        parameter_shardings: Option<ShardingList> = (message, optional, tag = "1"),
        /// `output_shardings`.
        output_shardings: Option<ShardingList> = (message, optional, tag = "2"),
        /// `output_memory_kinds`.
        output_memory_kinds: Option<OutputMemoryKind> = (message, optional, tag = "3"),
        /// `parameter_layouts_error`.
        parameter_layouts_error: Option<StatusProto> = (message, optional, tag = "5"),
        /// `output_layouts_error`.
        output_layouts_error: Option<StatusProto> = (message, optional, tag = "7"),
        /// `donated_input_indices_error`.
        donated_input_indices_error: Option<StatusProto> = (message, optional, tag = "9"),
        /// `compiled_memory_stats_error`.
        compiled_memory_stats_error: Option<StatusProto> = (message, optional, tag = "11"),
    }
);
message!(
    /// `LoadedExecutableCostAnalysisResponse` and
    /// `LoadedExecutableHumanReadableProgramTextResponse` when they fail.
    StatusResultResponse {
        /// `status`.
        status: Option<StatusProto> = (message, optional, tag = "1"),
    }
);
message!(
    /// `LoadedExecutableExecuteRequest`.
    ExecuteRequest {
        /// `loaded_executable_handle`.
        loaded_executable_handle: u64 = (fixed64, tag = "1"),
        /// `args_handles`.
        args_handles: Vec<u64> = (fixed64, repeated, tag = "2"),
        /// `execute_options`.
        execute_options: Option<ExecuteOptionsProto> = (message, optional, tag = "3"),
        /// `device_ids`.
        device_ids: Vec<i32> = (int32, repeated, tag = "4"),
        /// `result_array_handle`.
        result_array_handle: Vec<u64> = (fixed64, repeated, tag = "5"),
        /// `result_status_handle`.
        result_status_handle: u64 = (fixed64, tag = "6"),
    }
);
message!(
    /// `xla.ifrt.ExecuteOptionsProto`.
    ExecuteOptionsProto {
        /// `fill_status`.
        fill_status: bool = (bool, tag = "9"),
    }
);
message!(
    /// `LoadedExecutableExecuteResponse.Output`.
    ExecuteOutput {
        /// `dtype`.
        dtype: Option<DTypeProto> = (message, optional, tag = "1"),
        /// `shape`.
        shape: Option<ShapeProto> = (message, optional, tag = "2"),
        /// `sharding`.
        sharding: Option<ShardingProto> = (message, optional, tag = "3"),
        /// `array_handle`.
        array_handle: u64 = (fixed64, tag = "4"),
    }
);
message!(
    /// `LoadedExecutableExecuteResponse`.
    ExecuteResponse {
        /// `status_handle`.
        status_handle: u64 = (fixed64, tag = "1"),
        /// `outputs`.
        outputs: Vec<ExecuteOutput> = (message, repeated, tag = "2"),
    }
);
message!(
    /// `LoadedExecutableDeleteResponse`.
    FutureResponse {
        /// `future_handle`.
        future_handle: u64 = (fixed64, tag = "1"),
    }
);
message!(
    /// `LoadedExecutableIsDeletedResponse`.
    ExecutableIsDeletedResponse {
        /// `is_deleted`.
        is_deleted: bool = (bool, tag = "1"),
    }
);
message!(
    /// `GetDefaultDeviceAssignmentRequest`.
    DefaultDeviceAssignmentRequest {
        /// `num_replicas`.
        num_replicas: u64 = (fixed64, tag = "1"),
        /// `num_partitions`.
        num_partitions: u64 = (fixed64, tag = "2"),
    }
);
message!(
    /// `GetDefaultDeviceAssignmentResponse`.
    DefaultDeviceAssignmentResponse {
        /// `device_assignment`.
        device_assignment: Option<DeviceAssignmentProto> = (message, optional, tag = "1"),
    }
);

/// `IfrtRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IfrtRequest {
    /// `request_metadata`.
    #[prost(message, optional, tag = "1")]
    pub request_metadata: Option<RequestMetadata>,
    /// `request`.
    #[prost(
        oneof = "Request",
        tags = "2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34"
    )]
    pub request: Option<Request>,
}

/// `IfrtRequest.request`. Requests xlac does not serve are kept as their tag (`Other*`),
/// so the answer can name them.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Request {
    /// `init_request`.
    #[prost(message, tag = "2")]
    Init(InitRequest),
    /// `check_future_request`.
    #[prost(message, tag = "3")]
    CheckFuture(CheckFutureRequest),
    /// `make_array_from_host_buffer_request`.
    #[prost(message, tag = "4")]
    MakeArrayFromHostBuffer(MakeArrayFromHostBufferRequest),
    /// `assemble_array_from_single_device_arrays_request`.
    #[prost(message, tag = "5")]
    Assemble(AssembleRequest),
    /// `copy_to_host_buffer_request`.
    #[prost(message, tag = "6")]
    CopyToHostBuffer(CopyToHostBufferRequest),
    /// `disassemble_into_single_device_arrays_request`.
    #[prost(message, tag = "7")]
    Disassemble(DisassembleRequest),
    /// `check_value_ready_request`.
    #[prost(message, tag = "8")]
    CheckValueReady(CheckValueReadyRequest),
    /// `delete_array_request`.
    #[prost(message, tag = "9")]
    DeleteArray(ArraysRequest),
    /// `is_array_deleted_request`.
    #[prost(message, tag = "11")]
    IsArrayDeleted(ArrayHandleResponse),
    /// `destruct_array_request`.
    #[prost(message, tag = "12")]
    DestructArray(ArraysRequest),
    /// `compile_request`.
    #[prost(message, tag = "13")]
    Compile(CompileRequest),
    /// `loaded_executable_metadata_request`.
    #[prost(message, tag = "14")]
    ExecutableMetadata(ExecutableRequest),
    /// `loaded_executable_execute_request`.
    #[prost(message, tag = "15")]
    Execute(ExecuteRequest),
    /// `loaded_executable_delete_request`.
    #[prost(message, tag = "16")]
    ExecutableDelete(ExecutableRequest),
    /// `loaded_executable_is_deleted_request`.
    #[prost(message, tag = "17")]
    ExecutableIsDeleted(ExecutableRequest),
    /// `loaded_executable_destruct_request`.
    #[prost(message, tag = "18")]
    ExecutableDestruct(ExecutableRequest),
    /// `get_default_device_assignment_request`.
    #[prost(message, tag = "19")]
    DefaultDeviceAssignment(DefaultDeviceAssignmentRequest),
    /// `fully_replicated_shard_request`.
    #[prost(message, tag = "20")]
    FullyReplicatedShard(FullyReplicatedShardRequest),
    /// `loaded_host_callback_poll_request`.
    #[prost(message, tag = "21")]
    HostCallbackPoll(Empty),
    /// `loaded_host_callback_return_request`.
    #[prost(message, tag = "22")]
    HostCallbackReturn(Empty),
    /// `remap_arrays_request`.
    #[prost(message, tag = "23")]
    RemapArrays(Empty),
    /// `copy_arrays_request`.
    #[prost(message, tag = "24")]
    CopyArrays(CopyArraysRequest),
    /// `make_arrays_from_host_buffer_shards_request`.
    #[prost(message, tag = "25")]
    MakeArraysFromHostBufferShards(MakeArraysFromHostBufferShardsRequest),
    /// `make_error_arrays_request`.
    #[prost(message, tag = "26")]
    MakeErrorArrays(Empty),
    /// `get_default_layout_request`.
    #[prost(message, tag = "27")]
    DefaultLayout(Empty),
    /// `loaded_executable_cost_analysis_request`.
    #[prost(message, tag = "28")]
    CostAnalysis(ExecutableRequest),
    /// `loaded_executable_human_readable_program_text_request`.
    #[prost(message, tag = "29")]
    HumanReadableProgramText(ExecutableRequest),
    /// `loaded_executable_mpmd_metadata_request`.
    #[prost(message, tag = "30")]
    MpmdMetadata(Empty),
    /// `loaded_executable_mpmd_cost_analysis_request`.
    #[prost(message, tag = "31")]
    MpmdCostAnalysis(Empty),
    /// `loaded_executable_fetch_execute_result_request`.
    #[prost(message, tag = "32")]
    FetchExecuteResult(Empty),
    /// `reshard_arrays_request`.
    #[prost(message, tag = "33")]
    ReshardArrays(ReshardArraysRequest),
    /// `bitcast_arrays_request`.
    #[prost(message, tag = "34")]
    BitcastArrays(Empty),
}

/// `IfrtResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IfrtResponse {
    /// `response_metadata`.
    #[prost(message, optional, tag = "1")]
    pub response_metadata: Option<ResponseMetadata>,
    /// `response`.
    #[prost(
        oneof = "Response",
        tags = "2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 23, 24, 25, 28, 29, 32, 33"
    )]
    pub response: Option<Response>,
}

/// `IfrtResponse.response`: the answers xlac gives.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Response {
    /// `init_response`.
    #[prost(message, tag = "2")]
    Init(InitResponse),
    /// `check_future_response`.
    #[prost(message, tag = "3")]
    CheckFuture(Empty),
    /// `make_array_from_host_buffer_response`.
    #[prost(message, tag = "4")]
    MakeArrayFromHostBuffer(ArrayHandleResponse),
    /// `assemble_array_from_single_device_arrays_response`.
    #[prost(message, tag = "5")]
    Assemble(ArrayHandleResponse),
    /// `copy_to_host_buffer_response`.
    #[prost(message, tag = "6")]
    CopyToHostBuffer(Empty),
    /// `disassemble_into_single_device_arrays_response`.
    #[prost(message, tag = "7")]
    Disassemble(ArrayHandlesResponse),
    /// `check_value_ready_response`.
    #[prost(message, tag = "8")]
    CheckValueReady(Empty),
    /// `delete_array_response`.
    #[prost(message, tag = "9")]
    DeleteArray(DeleteArrayResponse),
    /// `is_array_deleted_response`.
    #[prost(message, tag = "11")]
    IsArrayDeleted(IsArrayDeletedResponse),
    /// `destruct_array_response`.
    #[prost(message, tag = "12")]
    DestructArray(Empty),
    /// `compile_response`.
    #[prost(message, tag = "13")]
    Compile(CompileResponse),
    /// `loaded_executable_metadata_response`.
    #[prost(message, tag = "14")]
    ExecutableMetadata(ExecutableMetadataResponse),
    /// `loaded_executable_execute_response`.
    #[prost(message, tag = "15")]
    Execute(ExecuteResponse),
    /// `loaded_executable_delete_response`.
    #[prost(message, tag = "16")]
    ExecutableDelete(FutureResponse),
    /// `loaded_executable_is_deleted_response`.
    #[prost(message, tag = "17")]
    ExecutableIsDeleted(ExecutableIsDeletedResponse),
    /// `loaded_executable_destruct_response`.
    #[prost(message, tag = "18")]
    ExecutableDestruct(Empty),
    /// `get_default_device_assignment_response`.
    #[prost(message, tag = "19")]
    DefaultDeviceAssignment(DefaultDeviceAssignmentResponse),
    /// `fully_replicated_shard_response`.
    #[prost(message, tag = "20")]
    FullyReplicatedShard(ArrayHandleResponse),
    /// `remap_arrays_response`.
    #[prost(message, tag = "23")]
    RemapArrays(ArrayHandlesResponse),
    /// `copy_arrays_response`.
    #[prost(message, tag = "24")]
    CopyArrays(ArrayHandlesResponse),
    /// `make_arrays_from_host_buffer_shards_response`.
    #[prost(message, tag = "25")]
    MakeArraysFromHostBufferShards(ArrayHandlesResponse),
    /// `loaded_executable_cost_analysis_response`.
    #[prost(message, tag = "28")]
    CostAnalysis(StatusResultResponse),
    /// `loaded_executable_human_readable_program_text_response`.
    #[prost(message, tag = "29")]
    HumanReadableProgramText(StatusResultResponse),
    /// `loaded_executable_fetch_execute_result_response`.
    #[prost(message, tag = "32")]
    FetchExecuteResult(Empty),
    /// `reshard_arrays_response`.
    #[prost(message, tag = "33")]
    ReshardArrays(ArrayHandlesResponse),
}
