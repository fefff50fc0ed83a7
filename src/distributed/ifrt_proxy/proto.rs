//! The IFRT proxy's wire messages, as prost messages derived by hand: the subset of
//! `xla/python/ifrt_proxy/common/{grpc_ifrt_service,ifrt_service,types}.proto`,
//! `xla/python/ifrt/*.proto`, `xla/python/pjrt_ifrt/{xla_sharding,xla_compiler}.proto`,
//! `xla/pjrt/proto/compile_options.proto` and `xla/xla_data.proto` that xlac reads or
//! writes. Field numbers are XLA's; a field left out here is skipped when read and never
//! written, which a protobuf reader on either side takes as unset. Enums are `i32` fields
//! holding XLA's numbers.
//!
//! Derived by hand (no protoc, no build script), as `crate::front::hlo_proto` is: the files
//! import a dozen others for fields xlac never touches.
//!
//! This file holds the `IfrtRequest`/`IfrtResponse` envelopes; the messages they carry are
//! grouped as the services use them: `grpc_service.rs`, `types.rs`, `client.rs`,
//! `arrays.rs` and `executables.rs`.

/// Declares a message of `fixed64` handles and other plain fields in one line each.
macro_rules! message {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident: $ty:ty = $attr:tt),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, PartialEq, prost::Message)]
        pub struct $name { $($(#[$fm])* #[prost $attr] pub $field: $ty,)* }
    };
}

mod arrays;
mod client;
mod executables;
mod grpc_service;
mod types;

pub use arrays::*;
pub use client::*;
pub use executables::*;
pub use grpc_service::*;
pub use types::*;

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
