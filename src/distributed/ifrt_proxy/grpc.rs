//! `xla.ifrt.proxy.GrpcIfrtService` on tonic: the routing tonic's code generator would
//! write, by hand (six methods), over the prost messages of [`super::proto`].

use std::sync::Arc;
use std::task::{Context, Poll};

use tonic::codegen::{BoxFuture, Service, http};
use tonic::server::{
    ClientStreamingService, Grpc, NamedService, ServerStreamingService, StreamingService,
    UnaryService,
};
use tonic::{Request, Response, Status, Streaming};
use tonic_prost::ProstCodec;

use super::ServerState;
use super::proto::*;

/// The service: every call goes to the shared [`ServerState`].
#[derive(Clone)]
pub struct IfrtProxyService {
    pub(super) state: Arc<ServerState>,
}

impl NamedService for IfrtProxyService {
    const NAME: &'static str = "xla.ifrt.proxy.GrpcIfrtService";
}

struct GetVersion(Arc<ServerState>);
impl UnaryService<GrpcGetVersionRequest> for GetVersion {
    type Response = GrpcGetVersionResponse;
    type Future = BoxFuture<Response<Self::Response>, Status>;
    fn call(&mut self, request: Request<GrpcGetVersionRequest>) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move { state.get_version(request.into_inner()).map(Response::new) })
    }
}

struct Session(Arc<ServerState>);
impl StreamingService<IfrtRequest> for Session {
    type Response = IfrtResponse;
    type ResponseStream = tokio_stream::wrappers::ReceiverStream<Result<IfrtResponse, Status>>;
    type Future = BoxFuture<Response<Self::ResponseStream>, Status>;
    fn call(&mut self, request: Request<Streaming<IfrtRequest>>) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move { state.session(request).await.map(Response::new) })
    }
}

struct Store(Arc<ServerState>);
impl ClientStreamingService<HostBufferChunk> for Store {
    type Response = Empty;
    type Future = BoxFuture<Response<Self::Response>, Status>;
    fn call(&mut self, request: Request<Streaming<HostBufferChunk>>) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move { state.store(request).await.map(Response::new) })
    }
}

struct Lookup(Arc<ServerState>);
impl ServerStreamingService<GrpcHostBufferRef> for Lookup {
    type Response = HostBufferChunk;
    type ResponseStream = tokio_stream::Iter<std::vec::IntoIter<Result<HostBufferChunk, Status>>>;
    type Future = BoxFuture<Response<Self::ResponseStream>, Status>;
    fn call(&mut self, request: Request<GrpcHostBufferRef>) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move {
            let chunks = state.lookup(request.into_inner()).await?;
            Ok(Response::new(tokio_stream::iter(chunks)))
        })
    }
}

struct Delete(Arc<ServerState>);
impl UnaryService<GrpcHostBufferRef> for Delete {
    type Response = Empty;
    type Future = BoxFuture<Response<Self::Response>, Status>;
    fn call(&mut self, request: Request<GrpcHostBufferRef>) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move { state.delete(request.into_inner()).map(Response::new) })
    }
}

struct ReadFromDisk;
impl UnaryService<Empty> for ReadFromDisk {
    type Response = Empty;
    type Future = BoxFuture<Response<Self::Response>, Status>;
    fn call(&mut self, _: Request<Empty>) -> Self::Future {
        Box::pin(async {
            Err(Status::unimplemented(
                "xlac's IFRT proxy server reads no host buffers from disk",
            ))
        })
    }
}

/// The gRPC handler of one method's messages, with the size limits.
fn codec<T, U>(limit: usize) -> Grpc<ProstCodec<T, U>>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + Default + Send + 'static,
{
    Grpc::new(ProstCodec::default()).apply_max_message_size_config(Some(limit), Some(limit))
}

impl<B> Service<http::Request<B>> for IfrtProxyService
where
    B: tonic::codegen::Body + Send + 'static,
    B::Error: Into<tonic::codegen::StdError> + Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = std::convert::Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let state = self.state.clone();
        let limit = state.options.max_message_bytes;
        let method = req
            .uri()
            .path()
            .strip_prefix("/xla.ifrt.proxy.GrpcIfrtService/")
            .unwrap_or("")
            .to_string();
        match method.as_str() {
            "GetVersion" => {
                Box::pin(async move { Ok(codec(limit).unary(GetVersion(state), req).await) })
            }
            "IfrtSession" => {
                Box::pin(async move { Ok(codec(limit).streaming(Session(state), req).await) })
            }
            "HostBufferStore" => {
                Box::pin(async move { Ok(codec(limit).client_streaming(Store(state), req).await) })
            }
            "HostBufferLookup" => {
                Box::pin(async move { Ok(codec(limit).server_streaming(Lookup(state), req).await) })
            }
            "HostBufferDelete" => {
                Box::pin(async move { Ok(codec(limit).unary(Delete(state), req).await) })
            }
            "HostBufferReadFromDisk" => {
                Box::pin(async move { Ok(codec(limit).unary(ReadFromDisk, req).await) })
            }
            _ => Box::pin(async move {
                state.log(&format!("unknown method {}", req.uri().path()));
                Ok(Status::unimplemented(format!("no method {}", req.uri().path())).into_http())
            }),
        }
    }
}
