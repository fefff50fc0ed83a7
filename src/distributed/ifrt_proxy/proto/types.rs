//! The shared types the requests carry: attribute maps, status, serialized IFRT objects,
//! dtypes, shapes, shardings, device lists, compile options, and the request and response
//! metadata.
//!
//! XLA: `xla/python/ifrt_proxy/common/types.proto`, `xla/python/ifrt/*.proto`,
//! `xla/python/pjrt_ifrt/{xla_sharding,xla_compiler}.proto`,
//! `xla/pjrt/proto/compile_options.proto`, `xla/xla_data.proto`.

use std::collections::HashMap;

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
pub use crate::front::hlo_proto::messages::OpSharding;

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
