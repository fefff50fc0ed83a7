//! The gRPC service's own messages: version negotiation, the session and host buffer store
//! metadata, host buffer chunks.
//!
//! XLA: `xla/python/ifrt_proxy/common/grpc_ifrt_service.proto`.

use super::*;

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
