//! `xlac serve --protocol ifrt-proxy` against a raw HTTP/2 client (the `h2` crate), so
//! that every byte on the wire is the test's: version negotiation and its refusal, a whole
//! session (init, host buffer upload, make-array, compile of a portable artifact, execute,
//! copy to host, download) checked against xlac's reference interpreter, and bad input
//! (garbage, truncated and oversized messages, a second controller, a wrong token): each
//! closes that call or session only, and the server serves the next client.
//! The stock jaxlib client is tested in python/tests/test_ifrt_proxy.py.

use std::net::SocketAddr;
use std::time::Duration;

use std::path::Path;

use bytes::Bytes;
use prost::Message;
use xlac::distributed::Token;
use xlac::distributed::ifrt_proxy::proto::*;
use xlac::distributed::ifrt_proxy::{
    ProxyOptions, ProxyServer, SESSION_METADATA, STORE_METADATA, ServeError, TOKEN_ATTRIBUTE,
};
use xlac::io::npz::read_npz;
use xlac::ir::{ArrayLiteral, PrimitiveType};
use xlac::runtime::buffers::literal_bytes;

const SERVICE: &str = "/xla.ifrt.proxy.GrpcIfrtService/";

fn start(options: ProxyOptions) -> SocketAddr {
    let server = ProxyServer::bind(options).unwrap();
    let addr = server.local_addr().unwrap();
    std::thread::spawn(move || server.serve());
    addr
}

fn quiet(devices: usize) -> ProxyOptions {
    let mut o = ProxyOptions::new("127.0.0.1:0".parse().unwrap(), devices);
    o.quiet = true;
    o.max_message_bytes = 1 << 20;
    o
}

/// One gRPC message frame: uncompressed, a 4-byte big-endian length, the bytes.
fn frame(message: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8];
    f.extend_from_slice(&(message.len() as u32).to_be_bytes());
    f.extend_from_slice(message);
    f
}

/// What a call returned: its messages, and the grpc-status and grpc-message.
#[derive(Debug)]
struct Reply {
    messages: Vec<Vec<u8>>,
    status: i32,
    message: String,
}

/// The reply of an open call: still to come, or its head already read.
enum Pending {
    Head(h2::client::ResponseFuture),
    Body(http::Response<h2::RecvStream>),
}

/// An open call: its request stream and the reply to come.
struct Call {
    send: h2::SendStream<Bytes>,
    response: Pending,
}

/// Opens a call on a fresh connection, `metadata` as binary headers.
async fn open(addr: SocketAddr, method: &str, metadata: &[(&str, Vec<u8>)]) -> Call {
    use base64_header::encode;
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (client, conn) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut client = client.ready().await.unwrap();
    let mut req = http::Request::post(format!("http://{addr}{SERVICE}{method}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers");
    for (k, v) in metadata {
        req = req.header(*k, encode(v));
    }
    let (response, send) = client.send_request(req.body(()).unwrap(), false).unwrap();
    Call {
        send,
        response: Pending::Head(response),
    }
}

impl Call {
    /// Sends bytes as they are (a test may send broken frames).
    fn send(&mut self, bytes: Vec<u8>) {
        self.send.send_data(Bytes::from(bytes), false).unwrap();
    }

    /// Waits for the reply's head: the server has taken the call (for a session, it is
    /// the open one from then on, as a real client knows once its InitRequest is answered).
    async fn accepted(&mut self) {
        if let Pending::Head(head) = &mut self.response {
            let response = tokio::time::timeout(Duration::from_secs(60), head)
                .await
                .expect("a reply head within a minute")
                .unwrap();
            self.response = Pending::Body(response);
        }
    }

    /// Ends the request stream and reads the reply to its end.
    async fn finish(mut self) -> Reply {
        let _ = self.send.send_data(Bytes::new(), true);
        self.accepted().await;
        let Pending::Body(response) = self.response else {
            unreachable!("accepted() read the head")
        };
        let (head, mut body) = response.into_parts();
        let mut data = Vec::new();
        while let Some(chunk) = body.data().await {
            let chunk = chunk.unwrap();
            let _ = body.flow_control().release_capacity(chunk.len());
            data.extend_from_slice(&chunk);
        }
        let trailers = body.trailers().await.unwrap().unwrap_or_default();
        let header = |k: &str| {
            trailers
                .get(k)
                .or_else(|| head.headers.get(k))
                .map(|v| v.to_str().unwrap().to_string())
        };
        let status = header("grpc-status").map_or(-1, |s| s.parse().unwrap());
        let message = header("grpc-message")
            .map(|m| percent_decode(&m))
            .unwrap_or_default();
        let mut messages = Vec::new();
        let mut at = 0;
        while at + 5 <= data.len() {
            let n = u32::from_be_bytes(data[at + 1..at + 5].try_into().unwrap()) as usize;
            messages.push(data[at + 5..at + 5 + n].to_vec());
            at += 5 + n;
        }
        Reply {
            messages,
            status,
            message,
        }
    }
}

/// A whole call: `body` sent, then the reply.
async fn call_raw(
    addr: SocketAddr,
    method: &str,
    metadata: &[(&str, Vec<u8>)],
    body: Vec<u8>,
) -> Reply {
    let mut call = open(addr, method, metadata).await;
    call.send(body);
    call.finish().await
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Binary metadata values travel base64-encoded without padding.
mod base64_header {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    pub fn encode(bytes: &[u8]) -> String {
        let mut out = String::new();
        for c in bytes.chunks(3) {
            let n = c
                .iter()
                .enumerate()
                .fold(0u32, |a, (i, &b)| a | (b as u32) << (16 - 8 * i));
            for i in 0..=c.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            }
        }
        out
    }
}

fn version(min: i32, max: i32) -> Vec<u8> {
    GrpcGetVersionRequest {
        min_version: Some(IfrtProxyVersion {
            protocol_version: min,
            ifrt_serdes_version_number: 0,
        }),
        max_version: Some(IfrtProxyVersion {
            protocol_version: max,
            ifrt_serdes_version_number: 3,
        }),
    }
    .encode_to_vec()
}

fn session_metadata(protocol: i32, token: Option<&[u8]>) -> Vec<(&'static str, Vec<u8>)> {
    let initialization_data = token.map(|t| AttributeMapProto {
        attributes: [(
            TOKEN_ATTRIBUTE.to_string(),
            AttributeValue {
                value: Some(attribute_value::Value::StringValue(t.to_vec())),
            },
        )]
        .into_iter()
        .collect(),
        version_number: 0,
    });
    vec![(
        SESSION_METADATA,
        GrpcIfrtSessionMetadata {
            version: Some(IfrtProxyVersion {
                protocol_version: protocol,
                ifrt_serdes_version_number: 3,
            }),
            initialization_data,
        }
        .encode_to_vec(),
    )]
}

fn request(op_id: u64, r: Request) -> Vec<u8> {
    frame(
        &IfrtRequest {
            request_metadata: Some(RequestMetadata { op_id }),
            request: Some(r),
        }
        .encode_to_vec(),
    )
}

fn init() -> Vec<u8> {
    request(1, Request::Init(InitRequest {}))
}

fn responses(reply: &Reply) -> Vec<IfrtResponse> {
    reply
        .messages
        .iter()
        .map(|m| IfrtResponse::decode(m.as_slice()).unwrap())
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A session of just InitRequest works (the server is alive and takes a controller).
async fn assert_serves(addr: SocketAddr) {
    let reply = call_raw(addr, "IfrtSession", &session_metadata(25, None), init()).await;
    assert_eq!(reply.status, 0, "{reply:?}");
    let r = responses(&reply);
    assert_eq!(r.len(), 1);
    let Some(Response::Init(init)) = &r[0].response else {
        panic!("{r:?}")
    };
    assert_eq!(init.platform_name, "cpu");
}

const OK: i32 = 0;
const INVALID_ARGUMENT: i32 = 3;
const PERMISSION_DENIED: i32 = 7;
const RESOURCE_EXHAUSTED: i32 = 8;
const FAILED_PRECONDITION: i32 = 9;

#[test]
fn version_negotiation_takes_the_newest_common_version_and_refuses_no_overlap() {
    let addr = start(quiet(1));
    runtime().block_on(async {
        let reply = call_raw(addr, "GetVersion", &[], frame(&version(16, 25))).await;
        assert_eq!(reply.status, OK, "{reply:?}");
        let v = GrpcGetVersionResponse::decode(reply.messages[0].as_slice()).unwrap();
        assert_eq!(v.version.unwrap().protocol_version, 25);
        let reply = call_raw(addr, "GetVersion", &[], frame(&version(10, 20))).await;
        let v = GrpcGetVersionResponse::decode(reply.messages[0].as_slice()).unwrap();
        assert_eq!(v.version.unwrap().protocol_version, 20);
        // A client of another generation: a clear refusal.
        for (lo, hi) in [(1, 15), (26, 30), (20, 18)] {
            let reply = call_raw(addr, "GetVersion", &[], frame(&version(lo, hi))).await;
            assert_eq!(reply.status, FAILED_PRECONDITION, "{reply:?}");
            assert!(
                reply.message.contains("do not overlap"),
                "{}",
                reply.message
            );
        }
        // A session opened at a version xlac does not speak is refused too.
        let reply = call_raw(addr, "IfrtSession", &session_metadata(12, None), init()).await;
        assert_eq!(reply.status, FAILED_PRECONDITION, "{reply:?}");
        assert_serves(addr).await;
    });
}

#[test]
fn garbage_truncated_and_oversized_messages_close_that_session_only() {
    let addr = start(quiet(1));
    runtime().block_on(async {
        let md = session_metadata(25, None);
        // Garbage: a frame that is no IfrtRequest.
        let mut body = init();
        body.extend(frame(&[0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]));
        let reply = call_raw(addr, "IfrtSession", &md, body).await;
        // The init's answer may or may not be flushed before the stream fails (both frames
        // arrive together); the garbage always ends the call with INVALID_ARGUMENT.
        assert!(reply.messages.len() <= 1, "{reply:?}");
        assert_eq!(reply.status, INVALID_ARGUMENT, "{reply:?}");
        assert_serves(addr).await;
        // Truncated: a frame announcing 100 bytes, then the end of the stream after 10.
        let mut body = init();
        let mut cut = frame(&[0u8; 100]);
        cut.truncate(15);
        body.extend(cut);
        let reply = call_raw(addr, "IfrtSession", &md, body).await;
        assert_ne!(reply.status, OK, "{reply:?}");
        assert_serves(addr).await;
        // Oversized: a frame over the 1 MiB limit is refused before it is read.
        let mut body = init();
        body.extend_from_slice(&[0, 0, 0x20, 0, 0]); // 2 MiB announced
        body.extend(vec![0u8; 1000]);
        let reply = call_raw(addr, "IfrtSession", &md, body).await;
        assert_ne!(reply.status, OK, "{reply:?}");
        assert_serves(addr).await;
        // Garbage session metadata.
        let bad = vec![(SESSION_METADATA, vec![0xff, 0x01, 0x02])];
        let reply = call_raw(addr, "IfrtSession", &bad, init()).await;
        assert_eq!(reply.status, INVALID_ARGUMENT, "{reply:?}");
        // Garbage where a version request should be.
        let reply = call_raw(addr, "GetVersion", &[], frame(&[0x0a, 0xff, 0xff])).await;
        assert_ne!(reply.status, OK, "{reply:?}");
        assert_serves(addr).await;
    });
}

#[test]
fn requests_before_init_and_unknown_handles_fail_that_request_only() {
    let addr = start(quiet(1));
    runtime().block_on(async {
        let md = session_metadata(25, None);
        let mut body = request(
            7,
            Request::CheckFuture(CheckFutureRequest { future_handle: 3 }),
        );
        body.extend(init());
        body.extend(request(
            8,
            Request::CopyToHostBuffer(CopyToHostBufferRequest {
                host_buffer_handle: 1,
                array_handle: 99,
                byte_strides: None,
            }),
        ));
        let reply = call_raw(addr, "IfrtSession", &md, body).await;
        assert_eq!(reply.status, OK, "{reply:?}");
        let r = responses(&reply);
        assert_eq!(r.len(), 3);
        let status = |r: &IfrtResponse| r.response_metadata.as_ref().unwrap().status.clone();
        assert_eq!(r[0].response_metadata.as_ref().unwrap().op_id, 7);
        assert_eq!(status(&r[0]).unwrap().code, FAILED_PRECONDITION);
        assert!(status(&r[1]).is_none());
        let s = status(&r[2]).unwrap();
        assert!(s.message.contains("no array with handle 99"), "{s:?}");
    });
}

fn dtype(kind: i32) -> Option<DTypeProto> {
    Some(DTypeProto {
        kind,
        version_number: 0,
    })
}

fn shape(dims: &[i64]) -> Option<ShapeProto> {
    Some(ShapeProto {
        dims: dims.to_vec(),
        version_number: 0,
    })
}

fn single_device(device: i32) -> Option<ShardingProto> {
    Some(ShardingProto {
        serialized_sharding: Some(Serialized {
            type_name: "xla::ifrt::SingleDeviceSharding".into(),
            data: SingleDeviceShardingProto {
                device_id: device,
                memory_kind: None,
                version_number: 0,
            }
            .encode_to_vec(),
        }),
    })
}

/// `testdata/compare_select` (comparisons on NaN, -0 and infinities, signed and unsigned
/// integers, selects): the bytes jax.jit hands a plugin, JAX's inputs and JAX's outputs.
fn compare_select() -> (Vec<u8>, Vec<ArrayLiteral>, Vec<ArrayLiteral>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let program = std::fs::read(dir.join("bytecode/programs/compare_select.jit.mlirbc")).unwrap();
    let read = |f: &str| -> Vec<ArrayLiteral> {
        read_npz(&dir.join("compare_select").join(f))
            .unwrap()
            .into_iter()
            .map(|a| a.literal)
            .collect()
    };
    (program, read("inputs.npz"), read("expected.npz"))
}

fn kind(t: PrimitiveType) -> i32 {
    match t {
        PrimitiveType::Pred => 1,
        PrimitiveType::S32 => 4,
        PrimitiveType::U32 => 8,
        PrimitiveType::F32 => 11,
        other => panic!("{other:?}"),
    }
}

fn dims_of(a: &ArrayLiteral) -> Vec<i64> {
    a.shape.dims.clone()
}

#[test]
fn a_whole_session_gives_jaxs_results() {
    let addr = start(quiet(1));
    let (program, inputs, expected) = compare_select();
    runtime().block_on(async {
        // Session 1 only says hello; the real one is session 2.
        assert_serves(addr).await;
        let session_id = 2u64;
        let mut session = open(addr, "IfrtSession", &session_metadata(25, None)).await;
        let mut body = init();
        for (i, a) in inputs.iter().enumerate() {
            body.extend(request(
                10 + i as u64,
                Request::MakeArrayFromHostBuffer(MakeArrayFromHostBufferRequest {
                    dtype: dtype(kind(a.element_type())),
                    shape: shape(&dims_of(a)),
                    sharding: single_device(0),
                    host_buffer_handle: 100 + i as u64,
                    byte_strides: None,
                    array_handle: Some(200 + i as u64),
                }),
            ));
        }
        body.extend(request(
            20,
            Request::Compile(CompileRequest {
                program: Some(Serialized {
                    type_name: "xla::ifrt::XlaProgram".into(),
                    data: program,
                }),
                compile_options: None,
                host_callbacks: vec![],
            }),
        ));
        session.send(body);
        // A host buffer call names the session, so it may only go once the server has opened
        // it; the buffers then go up on calls of their own while the session waits for them.
        session.accepted().await;
        for (i, a) in inputs.iter().enumerate() {
            let data = literal_bytes(a).to_vec();
            let md = GrpcHostBufferStoreMetadata {
                session_id,
                handle: 100 + i as u64,
                buffer_size: data.len() as i64,
            };
            let half = data.len() / 2;
            let mut body = frame(
                &HostBufferChunk {
                    data: data[..half].to_vec(),
                }
                .encode_to_vec(),
            );
            body.extend(frame(
                &HostBufferChunk {
                    data: data[half..].to_vec(),
                }
                .encode_to_vec(),
            ));
            let reply = call_raw(
                addr,
                "HostBufferStore",
                &[(STORE_METADATA, md.encode_to_vec())],
                body,
            )
            .await;
            assert_eq!(reply.status, OK, "{reply:?}");
        }
        // The executable's handle is the server's first (1 << 48) + 1: compile made it after
        // the session had made no other handle.
        let exe = (1u64 << 48) + 1;
        let mut body = request(
            21,
            Request::Execute(ExecuteRequest {
                loaded_executable_handle: exe,
                args_handles: (200..200 + inputs.len() as u64).collect(),
                execute_options: None,
                device_ids: vec![],
                result_array_handle: (300..300 + expected.len() as u64).collect(),
                result_status_handle: 0,
            }),
        );
        for i in 0..expected.len() as u64 {
            body.extend(request(
                30 + i,
                Request::CopyToHostBuffer(CopyToHostBufferRequest {
                    host_buffer_handle: 400 + i,
                    array_handle: 300 + i,
                    byte_strides: None,
                }),
            ));
        }
        session.send(body);
        for (i, want) in expected.iter().enumerate() {
            let r = GrpcHostBufferRef {
                session_id,
                handle: 400 + i as u64,
            };
            let reply = call_raw(addr, "HostBufferLookup", &[], frame(&r.encode_to_vec())).await;
            assert_eq!(reply.status, OK, "{reply:?}");
            let got: Vec<u8> = reply
                .messages
                .iter()
                .flat_map(|m| HostBufferChunk::decode(m.as_slice()).unwrap().data)
                .collect();
            assert_eq!(got, literal_bytes(want), "output {i}");
            let reply = call_raw(addr, "HostBufferDelete", &[], frame(&r.encode_to_vec())).await;
            assert_eq!(reply.status, OK, "{reply:?}");
        }
        let reply = session.finish().await;
        assert_eq!(reply.status, OK, "{reply:?}");
        let r = responses(&reply);
        assert_eq!(r.len(), 1 + inputs.len() + 2 + expected.len());
        for x in &r {
            assert!(
                x.response_metadata.as_ref().unwrap().status.is_none(),
                "{x:?}"
            );
        }
        let Some(Response::Compile(c)) = &r[1 + inputs.len()].response else {
            panic!("{r:?}")
        };
        assert_eq!(c.loaded_executable_handle, exe);
        let Some(Response::Execute(e)) = &r[2 + inputs.len()].response else {
            panic!("{r:?}")
        };
        assert_eq!(e.outputs.len(), expected.len());
        assert_eq!(e.outputs[0].dtype.as_ref().unwrap().kind, 1);
    });
}

#[test]
fn a_second_controller_is_refused_while_one_is_connected() {
    let addr = start(quiet(2));
    runtime().block_on(async {
        let mut first = open(addr, "IfrtSession", &session_metadata(25, None)).await;
        first.send(init());
        first.accepted().await;
        let reply = call_raw(addr, "IfrtSession", &session_metadata(25, None), init()).await;
        assert_eq!(reply.status, RESOURCE_EXHAUSTED, "{reply:?}");
        assert!(
            reply.message.contains("another controller"),
            "{}",
            reply.message
        );
        let reply = first.finish().await;
        assert_eq!(reply.status, OK, "{reply:?}");
        let Some(Response::Init(init)) = &responses(&reply)[0].response else {
            panic!("{reply:?}")
        };
        assert_eq!(init.all_devices.len(), 2);
        assert_serves(addr).await;
    });
}

#[test]
fn a_second_controller_and_a_wrong_token_are_refused() {
    let secret = b"a proxy secret of 32 bytes......";
    let mut o = quiet(1);
    o.token = Some(Token::new(secret.to_vec()).unwrap());
    let addr = start(o);
    runtime().block_on(async {
        let reply = call_raw(addr, "IfrtSession", &session_metadata(25, None), init()).await;
        assert_eq!(reply.status, PERMISSION_DENIED, "{reply:?}");
        let reply = call_raw(
            addr,
            "IfrtSession",
            &session_metadata(25, Some(b"wrong")),
            init(),
        )
        .await;
        assert_eq!(reply.status, PERMISSION_DENIED, "{reply:?}");
        let reply = call_raw(
            addr,
            "IfrtSession",
            &session_metadata(25, Some(secret)),
            init(),
        )
        .await;
        assert_eq!(reply.status, OK, "{reply:?}");
    });
}

#[test]
fn a_listen_address_off_the_loopback_needs_a_token() {
    let o = ProxyOptions::new("0.0.0.0:0".parse().unwrap(), 1);
    assert!(matches!(
        ProxyServer::bind(o),
        Err(ServeError::NotLoopback(_))
    ));
}

#[test]
fn op_shardings_convert_both_ways_and_bad_ones_are_refused() {
    use xlac::distributed::ifrt_proxy::convert::{hlo_sharding, literal_from_bytes, op_sharding};
    // devices=[2,2]<=[4] as jax's NamedSharding(P("x", "y")) sends it (iota form).
    let iota = OpSharding {
        r#type: 3,
        tile_assignment_dimensions: vec![2, 2],
        iota_reshape_dims: vec![2, 2],
        iota_transpose_perm: vec![1, 0],
        ..OpSharding::default()
    };
    let h = hlo_sharding(&iota, 0).unwrap();
    let back = op_sharding(&h);
    assert_eq!(back.tile_assignment_dimensions, vec![2, 2]);
    assert_eq!(back.tile_assignment_devices, vec![0, 2, 1, 3]);
    assert_eq!(op_sharding(&hlo_sharding(&back, 0).unwrap()), back);
    let bad = [
        // Three devices for a 2x2 tiling.
        OpSharding {
            r#type: 3,
            tile_assignment_dimensions: vec![2, 2],
            tile_assignment_devices: vec![0, 1, 2],
            ..OpSharding::default()
        },
        // A transpose that is no permutation.
        OpSharding {
            r#type: 3,
            tile_assignment_dimensions: vec![4],
            iota_reshape_dims: vec![2, 2],
            iota_transpose_perm: vec![0, 0],
            ..OpSharding::default()
        },
        // Negative and huge tile dimensions.
        OpSharding {
            r#type: 3,
            tile_assignment_dimensions: vec![-1, 2],
            ..OpSharding::default()
        },
        OpSharding {
            r#type: 3,
            tile_assignment_dimensions: vec![1 << 40, 1 << 40],
            ..OpSharding::default()
        },
        // An unknown type.
        OpSharding {
            r#type: 42,
            ..OpSharding::default()
        },
    ];
    for b in &bad {
        assert!(hlo_sharding(b, 0).is_err(), "{b:?}");
    }
    // Host bytes must be exactly the array's region.
    assert!(literal_from_bytes(PrimitiveType::F32, &[2, 3], &[0; 20], None).is_err());
    let dense = ByteStrides {
        strides: vec![12, 4],
    };
    assert!(literal_from_bytes(PrimitiveType::F32, &[2, 3], &[0; 24], Some(&dense)).is_ok());
    // A column-major [2,3] (numpy's x.T of a [3,2]): the same 24 bytes, read across.
    let bytes: Vec<u8> = (0..6u8).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let transposed = ByteStrides {
        strides: vec![4, 8],
    };
    let a = literal_from_bytes(PrimitiveType::F32, &[2, 3], &bytes, Some(&transposed)).unwrap();
    assert_eq!(a.values::<f32>().unwrap(), &[0., 2., 4., 1., 3., 5.]);
    // Every other row of a [4,2] (a strided slice): 24 bytes of region, 16 of them read.
    let rows = ByteStrides {
        strides: vec![16, 4],
    };
    let a = literal_from_bytes(PrimitiveType::F32, &[2, 2], &bytes, Some(&rows)).unwrap();
    assert_eq!(a.values::<f32>().unwrap(), &[0., 1., 4., 5.]);
    // Empty arrays take any strides; zero or negative strides are refused elsewhere.
    let zero = ByteStrides {
        strides: vec![0, 0],
    };
    assert!(literal_from_bytes(PrimitiveType::F16, &[0, 4], &[], Some(&zero)).is_ok());
    assert!(literal_from_bytes(PrimitiveType::F16, &[2, 4], &[0; 16], Some(&zero)).is_err());
    let negative = ByteStrides {
        strides: vec![-8, 4],
    };
    assert!(literal_from_bytes(PrimitiveType::F32, &[2, 2], &[0; 16], Some(&negative)).is_err());
}
