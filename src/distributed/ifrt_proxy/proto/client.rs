//! The client-level requests: `Init` (devices and memories), futures and readiness, the
//! default device assignment.
//!
//! XLA: `xla/python/ifrt_proxy/common/ifrt_service.proto`.

use super::*;

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
