//! The array requests: making arrays from host buffers (whole or by shard), assembling,
//! disassembling, resharding, copying, fetching to host, deleting.
//!
//! XLA: `xla/python/ifrt_proxy/common/ifrt_service.proto`.

use super::*;

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
