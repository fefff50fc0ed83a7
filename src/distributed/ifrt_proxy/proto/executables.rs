//! The compile and executable requests: compile, metadata, execute and its outputs,
//! deletion.
//!
//! XLA: `xla/python/ifrt_proxy/common/ifrt_service.proto`.

use super::*;

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
