//! `xlac serve --protocol ifrt-proxy`: the server side of XLA's IFRT proxy, so that stock
//! jaxlib (`jax.extend.backend.ifrt_proxy.get_client("grpc://HOST:PORT", ...)`, a jax
//! backend under `JAX_PLATFORMS=proxy`) drives xlac's devices from one Python program
//! that never runs where they are (a single controller).
//!
//! - [`proto`]: the wire messages (XLA's field numbers, the fields xlac uses);
//! - [`grpc`]: the `xla.ifrt.proxy.GrpcIfrtService` routing on tonic;
//! - [`session`]: one `IfrtSession` stream's arrays, executables and futures, and the
//!   answer to each request;
//! - [`host_buffers`]: the host buffer store the client uploads to and downloads from;
//! - [`convert`]: dtypes, shapes, shardings, host bytes, programs and compile options;
//! - [`job`]: the ranks of an MPI job as the session's devices (`mpirun -np N xlac serve
//!   --protocol ifrt-proxy`: rank 0 the front, every rank one device).
//!
//! One controller at a time: a second session is refused while one is open. A listen
//! address off the loopback needs a token, which the client presents in its
//! `initialization_data` as the string attribute [`TOKEN_ATTRIBUTE`]. Every message is
//! size-limited before it is read, and every request is checked; a bad one fails that
//! request (or, if it cannot be decoded, closes that session), never the server.

pub mod convert;
pub mod grpc;
pub mod host_buffers;
pub mod job;
pub mod proto;
pub mod session;

use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use prost::Message;
use tonic::{Request, Status, Streaming};

use crate::distributed::Token;
use convert::{Code, ProxyError};
use host_buffers::HostBufferStore;
use proto::*;
use session::{Session, SessionConfig};

/// The IFRT proxy protocol versions xlac speaks (XLA's `versions.h`: 16 is
/// `kExecutableDevices`, 25 `kLoadedExecutableDeleteOptions`, jaxlib 0.10.2's range).
pub const PROTOCOL_VERSIONS: std::ops::RangeInclusive<i32> = 16..=25;

/// The newest IFRT serialization version xlac reads (jaxlib 0.10.2 asks for 3).
pub const SERDES_VERSION: i32 = 3;

/// The `IfrtSession` call's binary metadata key.
pub const SESSION_METADATA: &str = "ifrt-proxy-grpc-ifrt-session-metadata-bin";

/// The `HostBufferStore` call's binary metadata key.
pub const STORE_METADATA: &str = "ifrt-proxy-grpc-host-buffer-store-metadata-bin";

/// The `initialization_data` attribute that carries the token.
pub const TOKEN_ATTRIBUTE: &str = "xlac_token";

/// Host buffers go back in chunks of this many bytes (as XLA's server sends them).
const LOOKUP_CHUNK: usize = 1 << 20;

/// The most bytes of call metadata xlac reads.
const MAX_METADATA_BYTES: usize = 64 << 10;

/// How long a host buffer lookup waits for the copy that fills it.
const LOOKUP_WAIT: Duration = Duration::from_secs(60);

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ProxyOptions {
    /// Where to listen.
    pub listen: SocketAddr,
    /// How many devices each session's client has.
    pub devices: usize,
    /// The token a client must present (required off the loopback).
    pub token: Option<Token>,
    /// The most bytes of one gRPC message.
    pub max_message_bytes: usize,
    /// The most bytes of one array (and of one host buffer).
    pub max_array_bytes: u64,
    /// The most bytes the host buffer store holds at once.
    pub max_store_bytes: u64,
    /// Serve one session, then stop.
    pub once: bool,
    /// Print no request lines.
    pub quiet: bool,
    /// The MPI job whose ranks run the programs (`None`: this process runs them).
    pub job: Option<job::JobWorkers>,
}

impl ProxyOptions {
    /// Defaults for `listen` and `devices`: 1 GiB messages and arrays, a 4 GiB store.
    pub fn new(listen: SocketAddr, devices: usize) -> ProxyOptions {
        ProxyOptions {
            listen,
            devices,
            token: None,
            max_message_bytes: 1 << 30,
            max_array_bytes: 1 << 30,
            max_store_bytes: 4 << 30,
            once: false,
            quiet: false,
            job: None,
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A listen address off the loopback without a token.
    #[error(
        "--listen {0}: not a loopback address; give a token (--token-file or XLAC_SERVE_TOKEN) that clients present in initialization_data[\"{TOKEN_ATTRIBUTE}\"]"
    )]
    NotLoopback(SocketAddr),
    /// Binding or serving failed.
    #[error("{0}")]
    Io(String),
}

/// What every call shares: the options, the store, and which session is open.
pub struct ServerState {
    options: ProxyOptions,
    host_buffers: Arc<HostBufferStore>,
    /// The open session's id, if one is open.
    active: Mutex<Option<u64>>,
    next_session: AtomicU64,
    /// Set when a `--once` server's session ended.
    done: tokio::sync::Notify,
    finished: AtomicBool,
}

impl ServerState {
    fn log(&self, line: &str) {
        if !self.options.quiet {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "xlac serve (ifrt-proxy): {line}");
        }
    }

    fn get_version(&self, r: GrpcGetVersionRequest) -> Result<GrpcGetVersionResponse, Status> {
        let (min, max) = (
            r.min_version.as_ref().map_or(0, |v| v.protocol_version),
            r.max_version.as_ref().map_or(0, |v| v.protocol_version),
        );
        let (lo, hi) = (*PROTOCOL_VERSIONS.start(), *PROTOCOL_VERSIONS.end());
        if max < lo || min > hi || min > max {
            self.log(&format!(
                "get_version: refused the client's protocol versions {min}..={max} (xlac speaks {lo}..={hi})"
            ));
            return Err(Status::failed_precondition(format!(
                "IFRT proxy protocol versions {min}..={max} do not overlap the versions xlac speaks ({lo}..={hi})"
            )));
        }
        let serdes = r
            .max_version
            .as_ref()
            .map_or(SERDES_VERSION, |v| v.ifrt_serdes_version_number)
            .min(SERDES_VERSION);
        let version = max.min(hi);
        self.log(&format!(
            "get_version: protocol {version}, serdes {serdes} (client {min}..={max})"
        ));
        Ok(GrpcGetVersionResponse {
            version: Some(IfrtProxyVersion {
                protocol_version: version,
                ifrt_serdes_version_number: serdes,
            }),
        })
    }

    fn metadata<M: Message + Default>(
        metadata: &tonic::metadata::MetadataMap,
        key: &str,
    ) -> Result<M, Status> {
        let value = metadata
            .get_bin(key)
            .ok_or_else(|| Status::invalid_argument(format!("missing call metadata {key}")))?;
        let bytes = value
            .to_bytes()
            .map_err(|_| Status::invalid_argument(format!("call metadata {key}: not base64")))?;
        if bytes.len() > MAX_METADATA_BYTES {
            return Err(Status::invalid_argument(format!(
                "call metadata {key}: over {MAX_METADATA_BYTES} bytes"
            )));
        }
        M::decode(bytes).map_err(|e| Status::invalid_argument(format!("call metadata {key}: {e}")))
    }

    fn check_token(&self, md: &GrpcIfrtSessionMetadata) -> Result<(), Status> {
        let Some(token) = &self.options.token else {
            return Ok(());
        };
        let presented = md
            .initialization_data
            .as_ref()
            .and_then(|d| d.attributes.get(TOKEN_ATTRIBUTE))
            .and_then(|v| match &v.value {
                Some(attribute_value::Value::StringValue(s)) => Some(s.as_slice()),
                _ => None,
            });
        match presented {
            Some(p) if token.matches(p) => Ok(()),
            Some(_) => Err(Status::permission_denied("wrong token")),
            None => Err(Status::permission_denied(format!(
                "this server needs a token in initialization_data[\"{TOKEN_ATTRIBUTE}\"]"
            ))),
        }
    }

    async fn session(
        self: Arc<Self>,
        request: Request<Streaming<IfrtRequest>>,
    ) -> Result<tokio_stream::wrappers::ReceiverStream<Result<IfrtResponse, Status>>, Status> {
        let md: GrpcIfrtSessionMetadata = Self::metadata(request.metadata(), SESSION_METADATA)?;
        let version = md.version.as_ref().map_or(0, |v| v.protocol_version);
        if !PROTOCOL_VERSIONS.contains(&version) {
            self.log(&format!("session refused: protocol version {version}"));
            return Err(Status::failed_precondition(format!(
                "IFRT proxy protocol version {version}; xlac speaks {}..={}",
                PROTOCOL_VERSIONS.start(),
                PROTOCOL_VERSIONS.end()
            )));
        }
        if let Err(e) = self.check_token(&md) {
            self.log(&format!("session refused: {}", e.message()));
            return Err(e);
        }
        let session_id = {
            let mut active = self.active.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(open) = *active {
                self.log("session refused: another controller is connected");
                return Err(Status::resource_exhausted(format!(
                    "another controller is connected (session {open}); xlac serves one at a time"
                )));
            }
            let id = self.next_session.fetch_add(1, Ordering::Relaxed) + 1;
            *active = Some(id);
            id
        };
        self.log(&format!(
            "session {session_id}: opened (protocol {version}, {} devices)",
            self.options.devices
        ));
        let mut stream = request.into_inner();
        let (tx, rx) = tokio::sync::mpsc::channel(256);
        let (requests, incoming) = std::sync::mpsc::channel::<IfrtRequest>();
        let config = SessionConfig {
            session_id,
            devices: self.options.devices,
            max_array_bytes: self.options.max_array_bytes,
            host_buffer_wait: session::HOST_BUFFER_WAIT,
            job: self.options.job.clone(),
        };
        // The session's state lives on one thread: executables hold JIT code and run there.
        // `closed` says when it has ended the session, so an error that closes the stream
        // reaches the controller only once the next controller can connect.
        let (closed_tx, closed_rx) = tokio::sync::oneshot::channel::<()>();
        let state = self.clone();
        let out = tx.clone();
        let worker = std::thread::Builder::new()
            .name(format!("ifrt-session-{session_id}"))
            .spawn(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let mut session = match Session::new(config, state.host_buffers.clone()) {
                        Ok(s) => s,
                        Err(e) => {
                            let _ = out.blocking_send(Err(Status::internal(e)));
                            return;
                        }
                    };
                    for request in incoming {
                        let (response, line) = session.handle_request(request);
                        state.log(&format!("session {session_id}: {line}"));
                        if out.blocking_send(Ok(response)).is_err() {
                            break;
                        }
                    }
                    if let Err(e) = session.close() {
                        state.log(&format!("session {session_id}: closing: {}", e.message));
                    }
                }));
                if result.is_err() {
                    state.log(&format!(
                        "session {session_id}: a request panicked; session closed"
                    ));
                    let _ =
                        out.blocking_send(Err(Status::internal("xlac panicked; session closed")));
                }
                state.end_session(session_id);
                let _ = closed_tx.send(());
            });
        if let Err(e) = worker {
            self.end_session(session_id);
            return Err(Status::internal(format!(
                "cannot start a session thread: {e}"
            )));
        }
        let state = self.clone();
        tokio::spawn(async move {
            loop {
                match stream.message().await {
                    Ok(Some(r)) => {
                        if requests.send(r).is_err() {
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(status) => {
                        state.log(&format!(
                            "session {session_id}: bad message ({}: {}); session closed",
                            code_name(status.code()),
                            status.message()
                        ));
                        drop(requests);
                        let _ = closed_rx.await;
                        let _ = tx
                            .send(Err(Status::invalid_argument(format!(
                                "bad request message: {}",
                                status.message()
                            ))))
                            .await;
                        break;
                    }
                }
            }
        });
        Ok(tokio_stream::wrappers::ReceiverStream::new(rx))
    }

    fn end_session(&self, session_id: u64) {
        self.host_buffers.drop_session(session_id);
        let mut active = self.active.lock().unwrap_or_else(|e| e.into_inner());
        if *active == Some(session_id) {
            *active = None;
        }
        drop(active);
        self.log(&format!("session {session_id}: closed"));
        if self.options.once {
            self.finished.store(true, Ordering::SeqCst);
            self.done.notify_one();
        }
    }

    /// The session a host buffer call names, if it is the open one.
    fn open_session(&self, session_id: u64) -> Result<(), Status> {
        let active = self.active.lock().unwrap_or_else(|e| e.into_inner());
        if *active == Some(session_id) {
            Ok(())
        } else {
            Err(Status::permission_denied(format!(
                "session {session_id} is not open"
            )))
        }
    }

    async fn store(&self, request: Request<Streaming<HostBufferChunk>>) -> Result<Empty, Status> {
        let md: GrpcHostBufferStoreMetadata = Self::metadata(request.metadata(), STORE_METADATA)?;
        self.open_session(md.session_id)?;
        let size = u64::try_from(md.buffer_size)
            .ok()
            .filter(|&s| s <= self.options.max_array_bytes)
            .ok_or_else(|| {
                Status::resource_exhausted(format!(
                    "a host buffer of {} bytes; at most {} are accepted",
                    md.buffer_size, self.options.max_array_bytes
                ))
            })?;
        self.host_buffers.reserve(size).map_err(to_status)?;
        let result = async {
            let mut stream = request.into_inner();
            let mut data: Vec<u8> = Vec::new();
            data.try_reserve_exact(size as usize)
                .map_err(|_| Status::resource_exhausted(format!("cannot allocate {size} bytes")))?;
            while let Some(chunk) = stream.message().await? {
                if (data.len() + chunk.data.len()) as u64 > size {
                    return Err(Status::data_loss(format!(
                        "host buffer {}: more than the {size} bytes announced",
                        md.handle
                    )));
                }
                data.extend_from_slice(&chunk.data);
            }
            if data.len() as u64 != size {
                return Err(Status::data_loss(format!(
                    "host buffer {}: {} bytes of the {size} announced",
                    md.handle,
                    data.len()
                )));
            }
            Ok(data)
        }
        .await;
        self.host_buffers.release(size);
        let data = result.inspect_err(|e| {
            self.log(&format!("host_buffer_store {}: {}", md.handle, e.message()))
        })?;
        self.host_buffers
            .put(md.session_id, md.handle, data)
            .map_err(to_status)?;
        Ok(Empty {})
    }

    async fn lookup(
        self: Arc<Self>,
        r: GrpcHostBufferRef,
    ) -> Result<Vec<Result<HostBufferChunk, Status>>, Status> {
        self.open_session(r.session_id)?;
        let store = self.host_buffers.clone();
        let bytes =
            tokio::task::spawn_blocking(move || store.lookup(r.session_id, r.handle, LOOKUP_WAIT))
                .await
                .map_err(|e| Status::internal(e.to_string()))?
                .map_err(to_status)?;
        if bytes.is_empty() {
            return Ok(vec![Ok(HostBufferChunk { data: Vec::new() })]);
        }
        Ok(bytes
            .chunks(LOOKUP_CHUNK)
            .map(|c| Ok(HostBufferChunk { data: c.to_vec() }))
            .collect())
    }

    fn delete(&self, r: GrpcHostBufferRef) -> Result<Empty, Status> {
        self.open_session(r.session_id)?;
        if self.host_buffers.delete(r.session_id, r.handle) {
            Ok(Empty {})
        } else {
            Err(Status::not_found(format!("no host buffer {}", r.handle)))
        }
    }
}

fn code_name(c: tonic::Code) -> String {
    format!("{c:?}")
}

/// A request's failure as a gRPC status.
fn to_status(e: ProxyError) -> Status {
    let code = match e.code {
        Code::InvalidArgument => tonic::Code::InvalidArgument,
        Code::NotFound => tonic::Code::NotFound,
        Code::PermissionDenied => tonic::Code::PermissionDenied,
        Code::ResourceExhausted => tonic::Code::ResourceExhausted,
        Code::FailedPrecondition => tonic::Code::FailedPrecondition,
        Code::Unimplemented => tonic::Code::Unimplemented,
        Code::Internal => tonic::Code::Internal,
        Code::Unavailable => tonic::Code::Unavailable,
        Code::DataLoss => tonic::Code::DataLoss,
    };
    Status::new(code, e.message)
}

/// A bound server, not yet serving.
pub struct ProxyServer {
    state: Arc<ServerState>,
    listener: tokio::net::TcpListener,
    runtime: tokio::runtime::Runtime,
}

impl ProxyServer {
    /// Checks the options and binds the listen address.
    pub fn bind(options: ProxyOptions) -> Result<ProxyServer, ServeError> {
        if !options.listen.ip().is_loopback() && options.token.is_none() {
            return Err(ServeError::NotLoopback(options.listen));
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ifrt-proxy")
            .enable_all()
            .build()
            .map_err(|e| ServeError::Io(crate::io::io_error_text(&e)))?;
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(options.listen))
            .map_err(|e| {
                ServeError::Io(format!(
                    "cannot listen on {}: {}",
                    options.listen,
                    crate::io::io_error_text(&e)
                ))
            })?;
        let state = Arc::new(ServerState {
            host_buffers: Arc::new(HostBufferStore::new(options.max_store_bytes)),
            options,
            active: Mutex::new(None),
            next_session: AtomicU64::new(0),
            done: tokio::sync::Notify::new(),
            finished: AtomicBool::new(false),
        });
        Ok(ProxyServer {
            state,
            listener,
            runtime,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> Result<SocketAddr, ServeError> {
        self.listener
            .local_addr()
            .map_err(|e| ServeError::Io(crate::io::io_error_text(&e)))
    }

    /// Serves until the process ends (or, with `once`, until the first session closes).
    pub fn serve(self) -> Result<(), ServeError> {
        let ProxyServer {
            state,
            listener,
            runtime,
        } = self;
        let service = grpc::IfrtProxyService {
            state: state.clone(),
        };
        let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
        let stop = {
            let state = state.clone();
            async move {
                if state.options.once {
                    while !state.finished.load(Ordering::SeqCst) {
                        state.done.notified().await;
                    }
                } else {
                    std::future::pending::<()>().await;
                }
            }
        };
        let result = runtime.block_on(
            tonic::transport::Server::builder()
                .serve_with_incoming_shutdown(service, incoming, stop),
        );
        // Session threads may still be finishing a request; they end with the process.
        runtime.shutdown_background();
        result.map_err(|e| ServeError::Io(e.to_string()))
    }
}
