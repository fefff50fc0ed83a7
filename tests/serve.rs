//! The single controller's worker (`xlac serve`, `src/distributed/`) on its own: a lone
//! worker (a job of one device) driven by the Rust controller, and everyone who must not
//! get in: a wrong or missing token, an oversized message, garbage, a truncated request, a
//! controller that hangs up mid-request, a second controller. Each is refused or
//! reported, the worker stays up for the next good controller, nothing panics. The
//! four-worker job (over MPI) is in tests/mpi.rs.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use xlac::distributed::frame::{HELLO_LIMIT, read_frame, write_frame};
use xlac::distributed::protocol::{PROTOCOL_VERSION, ShardType};
use xlac::distributed::{
    Controller, ControllerError, ErrorKind, Request, Response, ServeOptions, Token, Transport,
    Worker, WorkerLog,
};
use xlac::front::hlo_text::parse_module;
use xlac::ifrt::{Client, Sharding};
use xlac::io::npz::read_npz;
use xlac::ir::{ArrayLiteral, PrimitiveType};

const SECRET: &[u8] = b"a shared secret of 32 bytes.....";

fn token() -> Token {
    Token::new(SECRET.to_vec()).unwrap()
}

/// The options of a test's worker: its own port, a short busy grace.
fn options(max_message_bytes: u64) -> ServeOptions {
    ServeOptions {
        max_message_bytes,
        busy_grace: Duration::from_millis(500),
        collectives_deadline: Duration::from_secs(10),
        ..ServeOptions::new("127.0.0.1:0".parse().unwrap(), token())
    }
}

/// A lone worker on a port of its own, serving until the test process ends.
fn start_worker(max_message_bytes: u64) -> (SocketAddr, WorkerLog) {
    start_worker_with(options(max_message_bytes))
}

/// [`start_worker`] with these options.
fn start_worker_with(options: ServeOptions) -> (SocketAddr, WorkerLog) {
    let worker = Worker::bind(options, Transport::Alone).unwrap();
    let addr = worker.local_addr().unwrap();
    let log = WorkerLog::memory();
    let l = log.clone();
    std::thread::spawn(move || worker.serve(l));
    (addr, log)
}

fn raw(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s
}

fn send(s: &mut TcpStream, r: &Request) {
    write_frame(s, &r.encode()).unwrap();
}

fn reply(s: &mut TcpStream) -> Response {
    Response::decode(&read_frame(s, 1 << 30).unwrap()).unwrap()
}

fn hello(token: &[u8]) -> Request {
    Request::Hello {
        version: PROTOCOL_VERSION,
        token: token.to_vec(),
    }
}

/// An authenticated raw connection.
fn session(addr: SocketAddr) -> TcpStream {
    let mut s = raw(addr);
    send(&mut s, &hello(SECRET));
    assert_eq!(
        reply(&mut s),
        Response::Welcome {
            worker: 0,
            workers: 1
        }
    );
    s
}

fn error_kind(r: &Response) -> Option<ErrorKind> {
    match r {
        Response::Error { kind, .. } => Some(*kind),
        _ => None,
    }
}

/// The next controller gets through: the worker survived whatever came before.
fn still_serves(addr: SocketAddr) {
    let c = Controller::connect(&[addr], &token()).expect("the worker serves the next controller");
    c.close().unwrap();
}

fn mlp() -> (xlac::ir::Module, Vec<ArrayLiteral>, Vec<ArrayLiteral>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/mlp");
    let text = std::fs::read_to_string(dir.join("model.hlo")).unwrap();
    let module = parse_module(&text, "model.hlo").unwrap().module;
    let lits = |f: &str| -> Vec<ArrayLiteral> {
        read_npz(&dir.join(f))
            .unwrap()
            .into_iter()
            .map(|a| a.literal)
            .collect()
    };
    (module, lits("inputs.npz"), lits("expected.npz"))
}

#[test]
fn a_lone_worker_runs_what_the_controller_sends_as_the_in_process_client_does() {
    let (addr, log) = start_worker(1 << 30);
    let (module, inputs, expected) = mlp();
    let mut c = Controller::connect(&[addr], &token()).unwrap();
    assert_eq!(c.devices(), 1);
    let exe = c.compile(&module).unwrap();
    let single = Sharding::SingleDevice { device: 0 };
    let args: Vec<_> = inputs
        .iter()
        .map(|x| c.make_array_from_host(x, single.clone()).unwrap())
        .collect();
    let refs: Vec<_> = args.iter().collect();
    let out = c.execute(&exe, &refs).unwrap();
    assert_eq!(out.len(), 1);
    let got = c.copy_to_host(&out[0]).unwrap();
    // The transport changes nothing: bit for bit the in-process client's result...
    let client = Client::new(1).unwrap();
    let local = client.compile(module).unwrap();
    let local_args: Vec<_> = inputs
        .iter()
        .map(|x| client.make_array_from_host(x, single.clone()).unwrap())
        .collect();
    let want = local.execute(&local_args).unwrap()[0]
        .copy_to_host()
        .unwrap();
    assert_eq!(got, want);
    // ...and within XLA's tolerance of XLA's own output.
    let (g, x) = (
        got.values::<f32>().unwrap(),
        expected[0].values::<f32>().unwrap(),
    );
    let worst = g
        .iter()
        .zip(x)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(worst < 1e-4, "max |worker - XLA| = {worst}");
    // A deleted array is gone, on the controller and on the worker.
    c.delete(&args[0]).unwrap();
    match c.copy_to_host(&args[0]) {
        Err(ControllerError::Deleted(id)) => assert_eq!(id, args[0].id),
        other => panic!("fetch of a deleted array: {other:?}"),
    }
    match c.execute(&exe, &refs) {
        Err(ControllerError::Deleted(_)) => {}
        other => panic!("execute on a deleted array: {other:?}"),
    }
    // One line per call on the controller.
    let calls: Vec<&str> = c
        .log()
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        calls,
        [
            "connect",
            "compile",
            "make-array",
            "make-array",
            "make-array",
            "make-array",
            "make-array",
            "execute",
            "fetch",
            "delete"
        ]
    );
    c.close().unwrap();
    // One line per request on the worker, none of them with the data.
    let lines = log.lines();
    let requests: Vec<&String> = lines.iter().filter(|l| l.contains(": request ")).collect();
    assert_eq!(requests.len(), 10, "{lines:#?}");
    assert!(requests[0].contains("compile e1"), "{}", requests[0]);
    assert!(
        requests[6].contains("execute e1 (a2, a3, a4, a5, a6) -> (a7)"),
        "{}",
        requests[6]
    );
    // Logged before the reply goes out (the session's end line may come later).
    assert!(
        requests[9].contains("request 10: bye: ok"),
        "{}",
        requests[9]
    );
}

#[test]
fn a_wrong_or_missing_token_is_refused_before_any_request_is_read() {
    let (addr, log) = start_worker(1 << 30);
    // A wrong token.
    let mut s = raw(addr);
    send(&mut s, &hello(b"a shared secret of 32 bytes....!"));
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::Unauthenticated));
    // No hello at all: a request first.
    let mut s = raw(addr);
    send(&mut s, &Request::Fetch { array: 1 });
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::Unauthenticated));
    // The controller API says why.
    let wrong = Token::new(b"another secret, also 32 bytes...".to_vec()).unwrap();
    match Controller::connect(&[addr], &wrong) {
        Err(ControllerError::Refused { kind, .. }) => assert_eq!(kind, ErrorKind::Unauthenticated),
        other => panic!("a wrong token: {:?}", other.err()),
    }
    // A hello over the handshake's limit is refused unread.
    let mut s = raw(addr);
    s.write_all(&(HELLO_LIMIT + 1).to_le_bytes()).unwrap();
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::Unauthenticated));
    // Garbage.
    let mut s = raw(addr);
    s.write_all(&[7, 0, 0, 0, 0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3])
        .unwrap();
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::Unauthenticated));
    // A hello cut short, then the connection closed.
    let mut s = raw(addr);
    s.write_all(&100u64.to_le_bytes()).unwrap();
    s.write_all(&[1, 1, 0]).unwrap();
    drop(s);
    // An old protocol version with the right token.
    let mut s = raw(addr);
    send(
        &mut s,
        &Request::Hello {
            version: PROTOCOL_VERSION + 1,
            token: SECRET.to_vec(),
        },
    );
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::Unauthenticated));
    still_serves(addr);
    let refused = log
        .lines()
        .iter()
        .filter(|l| l.contains(": refused "))
        .count();
    assert!(refused >= 6, "{:#?}", log.lines());
}

#[test]
fn bad_messages_after_the_handshake_are_answered_or_end_the_session_and_the_worker_stays_up() {
    let (addr, log) = start_worker(4096);
    // Bytes that do not decode: an error, and the session goes on.
    let mut s = session(addr);
    write_frame(&mut s, &[42, 1, 2, 3]).unwrap();
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::BadMessage));
    write_frame(&mut s, &[]).unwrap();
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::BadMessage));
    // An id that names nothing.
    send(&mut s, &Request::Fetch { array: 99 });
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::NotFound));
    send(
        &mut s,
        &Request::Execute {
            executable: 5,
            arguments: vec![],
            results: vec![],
        },
    );
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::NotFound));
    // A program that does not parse.
    send(
        &mut s,
        &Request::Compile {
            executable: 1,
            program: "HloModule broken\nENTRY {".into(),
        },
    );
    let r = reply(&mut s);
    assert_eq!(error_kind(&r), Some(ErrorKind::Failed), "{r:?}");
    // A second hello.
    send(&mut s, &hello(SECRET));
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::BadMessage));
    // A message over the limit: refused, and the session ends (its rest cannot be skipped).
    s.write_all(&5000u64.to_le_bytes()).unwrap();
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::BadMessage));
    let mut rest = Vec::new();
    assert_eq!(s.read_to_end(&mut rest).unwrap(), 0, "the worker hung up");
    still_serves(addr);
    // A request cut short by a controller that disconnects.
    let mut s = session(addr);
    s.write_all(&64u64.to_le_bytes()).unwrap();
    s.write_all(&[2, 1, 0, 0]).unwrap();
    drop(s);
    still_serves(addr);
    // A controller that disconnects without a word.
    drop(session(addr));
    still_serves(addr);
    let lines = log.lines();
    assert!(
        lines.iter().any(|l| l.contains("disconnected mid-request")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("over the limit")),
        "{lines:#?}"
    );
}

#[test]
fn a_second_controller_is_refused_while_the_first_is_connected() {
    let (addr, _log) = start_worker(1 << 30);
    let first = Controller::connect(&[addr], &token()).unwrap();
    match Controller::connect(&[addr], &token()) {
        Err(ControllerError::Refused { kind, .. }) => assert_eq!(kind, ErrorKind::Busy),
        other => panic!("a second controller: {:?}", other.err()),
    }
    first.close().unwrap();
    still_serves(addr);
}

#[test]
fn shards_of_the_wrong_shape_and_reused_ids_are_refused_by_name() {
    let (addr, _log) = start_worker(1 << 30);
    let mut s = session(addr);
    send(
        &mut s,
        &Request::Compile {
            executable: 1,
            program: "HloModule m\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(p)\n}\n".into(),
        },
    );
    assert_eq!(
        reply(&mut s),
        Response::Compiled {
            device: 0,
            parameters: vec![ShardType {
                dtype: PrimitiveType::F32,
                dims: vec![4]
            }],
            results: vec![ShardType {
                dtype: PrimitiveType::F32,
                dims: vec![4]
            }],
        }
    );
    send(
        &mut s,
        &Request::MakeArray {
            array: 2,
            data: ArrayLiteral::from_vec(&[3], vec![1f32, 2., 3.]),
        },
    );
    assert_eq!(reply(&mut s), Response::Done);
    send(
        &mut s,
        &Request::Execute {
            executable: 1,
            arguments: vec![2],
            results: vec![3],
        },
    );
    match reply(&mut s) {
        Response::Error { kind, message } => {
            assert_eq!(kind, ErrorKind::Failed);
            assert!(
                message.contains("argument 0 (a2) is f32[3] on worker 0; m takes f32[4]"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    // The same id twice.
    send(
        &mut s,
        &Request::MakeArray {
            array: 2,
            data: ArrayLiteral::from_vec(&[4], vec![1f32, 2., 3., 4.]),
        },
    );
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::Failed));
    // Deleted, then used.
    send(&mut s, &Request::Delete { array: 2 });
    assert_eq!(reply(&mut s), Response::Done);
    send(&mut s, &Request::Fetch { array: 2 });
    match reply(&mut s) {
        Response::Error { kind, message } => {
            assert_eq!(kind, ErrorKind::NotFound);
            assert_eq!(message, "array a2 was deleted");
        }
        other => panic!("{other:?}"),
    }
    // A right one runs.
    send(
        &mut s,
        &Request::MakeArray {
            array: 4,
            data: ArrayLiteral::from_vec(&[4], vec![1f32, -2., 0., 4.]),
        },
    );
    assert_eq!(reply(&mut s), Response::Done);
    send(
        &mut s,
        &Request::Execute {
            executable: 1,
            arguments: vec![4],
            results: vec![5],
        },
    );
    assert!(matches!(reply(&mut s), Response::Executed { .. }));
    send(&mut s, &Request::Fetch { array: 5 });
    assert_eq!(
        reply(&mut s),
        Response::Array(ArrayLiteral::from_vec(&[4], vec![-1f32, 2., -0., -4.]))
    );
    send(&mut s, &Request::Bye);
    assert_eq!(reply(&mut s), Response::Done);
    // A program for more devices than the job has.
    let mut c = Controller::connect(&[addr], &token()).unwrap();
    let dp = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/ifrt/dp_step_4.hlo"),
    )
    .unwrap();
    let module = parse_module(&dp, "dp_step_4.hlo").unwrap().module;
    let e = c.compile(&module).unwrap_err();
    assert!(
        e.to_string()
            .contains("runs on 4 devices; the job has 1 workers"),
        "{e}"
    );
    c.close().unwrap();
}

fn xlac() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xlac"))
}

#[test]
fn xlac_serve_needs_a_token_listens_on_localhost_and_serves_one_controller_with_once() {
    let out = xlac()
        .args(["serve"])
        .env_remove("XLAC_SERVE_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: no token"), "{err}");
    let out = xlac()
        .args(["serve"])
        .env("XLAC_SERVE_TOKEN", "short")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let dir = std::env::temp_dir().join(format!("xlac-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("token");
    std::fs::write(&file, [SECRET, b"\n"].concat()).unwrap();
    let mut child = xlac()
        .args(["serve", "--once", "--quiet", "--token-file"])
        .arg(&file)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.starts_with("xlac serve: worker 0 of 1 (pid "),
        "{line}"
    );
    let addr: SocketAddr = line.trim().rsplit(' ').next().unwrap().parse().unwrap();
    assert!(addr.ip().is_loopback(), "{addr}");
    let mut c = Controller::connect(&[addr], &token()).unwrap();
    let x = ArrayLiteral::from_vec(&[2, 2], vec![1i32, 2, 3, 4]);
    let a = c
        .make_array_from_host(&x, Sharding::SingleDevice { device: 0 })
        .unwrap();
    assert_eq!(c.copy_to_host(&a).unwrap(), x);
    c.close().unwrap();
    assert!(child.wait().unwrap().success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_python_clients_messages_decode_here_and_encode_back_byte_for_byte() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/serve");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "req") {
            let bytes = std::fs::read(&path).unwrap();
            let request =
                Request::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(request.encode(), bytes, "{}", path.display());
            names.push(request.name());
        }
    }
    names.sort();
    names.dedup();
    assert_eq!(
        names,
        [
            "bye",
            "compile",
            "delete",
            "execute",
            "fetch",
            "hello",
            "make-array"
        ]
    );
}

/// A worker's reply to `s`'s next frame, or `None` when the worker closed the connection
/// without one.
fn reply_or_close(s: &mut TcpStream) -> Option<Response> {
    use xlac::distributed::frame::FrameError;
    match read_frame(s, 1 << 30) {
        Ok(f) => Some(Response::decode(&f).unwrap()),
        Err(FrameError::Closed) => None,
        Err(FrameError::Io(e)) if e.kind() == std::io::ErrorKind::ConnectionReset => None,
        Err(e) => panic!("neither a reply nor a close: {e}"),
    }
}

/// A controller gets in within `tries` attempts (each waits the busy grace, or sees a
/// worker still freeing itself).
fn serves_within(addr: SocketAddr, tries: usize) {
    for _ in 0..tries {
        if let Ok(c) = Controller::connect(&[addr], &token()) {
            c.close().unwrap();
            return;
        }
    }
    panic!("no controller got in after {tries} attempts");
}

#[test]
fn a_huge_device_count_is_refused_before_anything_is_sized_by_it() {
    let (addr, _log) = start_worker(1 << 30);
    let mut s = session(addr);
    for (e, header) in [
        (1, "num_partitions=1000000000"),
        (2, "replica_count=1000000000"),
        (3, "num_partitions=9223372036854775807"),
    ] {
        send(
            &mut s,
            &Request::Compile {
                executable: e,
                program: format!(
                    "HloModule m, {header}\n\nENTRY e {{\n  p = f32[4]{{0}} parameter(0)\n  ROOT n = f32[4]{{0}} negate(p)\n}}\n"
                ),
            },
        );
        match reply(&mut s) {
            Response::Error { kind, message } => {
                assert_eq!(kind, ErrorKind::Failed);
                assert!(
                    message.contains("a program runs on 1 to 512 devices"),
                    "{message}"
                );
            }
            other => panic!("{header}: {other:?}"),
        }
    }
    send(&mut s, &Request::Bye);
    assert_eq!(reply(&mut s), Response::Done);
}

#[test]
fn idle_connections_do_not_hold_up_the_controller() {
    // A handshake deadline far longer than the controller waits: only handshakes that run
    // side by side let it in.
    let (addr, log) = start_worker_with(ServeOptions {
        handshake_timeout: Duration::from_secs(120),
        ..options(1 << 30)
    });
    let idle: Vec<TcpStream> = (0..5).map(|_| raw(addr)).collect();
    let mut s = raw(addr);
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    send(&mut s, &hello(SECRET));
    assert_eq!(
        reply(&mut s),
        Response::Welcome {
            worker: 0,
            workers: 1
        }
    );
    send(&mut s, &Request::Bye);
    assert_eq!(reply(&mut s), Response::Done);
    // The idle ones are still waiting, unrefused (they are refused once they hang up).
    assert!(
        !log.lines().iter().any(|l| l.contains("refused")),
        "{:#?}",
        log.lines()
    );
    drop(idle);
}

#[test]
fn a_hello_sent_a_byte_at_a_time_is_cut_off_at_the_handshake_deadline() {
    let (addr, log) = start_worker_with(ServeOptions {
        handshake_timeout: Duration::from_secs(1),
        ..options(1 << 30)
    });
    let mut s = raw(addr);
    // The worker waits at most 100 ms between bytes here, far below the deadline: only a
    // deadline for the whole hello ends it.
    s.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    // A header announcing the longest hello, then its body a byte at a time: 400 bytes
    // never finish it.
    let trickle = HELLO_LIMIT.to_le_bytes().into_iter().chain([0u8; 400]);
    let mut cut_off = false;
    for byte in trickle {
        if s.write_all(&[byte]).is_err() {
            cut_off = true;
            break;
        }
        let mut probe = [0u8; 1];
        match s.read(&mut probe) {
            Ok(0) => {
                cut_off = true;
                break;
            }
            Ok(_) => panic!("the worker answered a hello that never finished"),
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => {
                cut_off = true;
                break;
            }
        }
    }
    assert!(
        cut_off,
        "a trickled hello held its connection past 400 bytes"
    );
    still_serves(addr);
    assert!(
        log.lines()
            .iter()
            .any(|l| l.contains("refused") && l.contains("deadline")),
        "{:#?}",
        log.lines()
    );
}

#[test]
fn connections_past_the_pending_cap_are_closed_unread_and_the_worker_recovers() {
    let (addr, log) = start_worker_with(ServeOptions {
        handshake_timeout: Duration::from_secs(120),
        max_pending_handshakes: 4,
        ..options(1 << 30)
    });
    let idle: Vec<TcpStream> = (0..4).map(|_| raw(addr)).collect();
    // The gate counts a connection once it has its thread: the fifth is closed at once
    // only when the first four are counted, so try a bounded number of times.
    let mut closed = false;
    for _ in 0..50 {
        let mut extra = raw(addr);
        // The worker may have closed it already: a failed write is that close.
        let _ = write_frame(&mut extra, &hello(SECRET).encode());
        match reply_or_close(&mut extra) {
            None => {
                closed = true;
                break;
            }
            Some(Response::Welcome { .. }) => {
                send(&mut extra, &Request::Bye);
                let _ = reply_or_close(&mut extra);
            }
            Some(other) => panic!("{other:?}"),
        }
    }
    assert!(closed, "a connection past the cap of 4 was served");
    assert!(
        log.lines()
            .iter()
            .any(|l| l.contains("4 connections are already in their handshake")),
        "{:#?}",
        log.lines()
    );
    drop(idle);
    serves_within(addr, 50);
}

#[test]
fn failed_hellos_past_the_rate_get_no_answer_and_the_right_token_still_gets_in() {
    let (addr, log) = start_worker_with(ServeOptions {
        handshake_timeout: Duration::from_secs(1),
        failed_hellos_per_minute: 2,
        ..options(1 << 30)
    });
    let wrong = b"a guess of the secret, 32 bytes.";
    for _ in 0..2 {
        let mut s = raw(addr);
        send(&mut s, &hello(wrong));
        assert_eq!(
            reply_or_close(&mut s).as_ref().and_then(error_kind),
            Some(ErrorKind::Unauthenticated)
        );
    }
    let mut s = raw(addr);
    send(&mut s, &hello(wrong));
    assert_eq!(
        reply_or_close(&mut s),
        None,
        "a third failed hello was answered"
    );
    still_serves(addr);
    let refused = log
        .lines()
        .iter()
        .filter(|l| l.contains(": refused "))
        .count();
    assert_eq!(refused, 2, "{:#?}", log.lines());
}

/// `p` counts up while `p == p`: a loop that never ends by itself.
const ENDLESS: &str = "HloModule spin

cond {
  p = s32[] parameter(0)
  ROOT same = pred[] compare(p, p), direction=EQ
}

body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(p, one)
}

ENTRY e {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
";

/// Compiles [`ENDLESS`] as e1 with its argument a2, on an authenticated connection.
fn endless_session(addr: SocketAddr) -> TcpStream {
    let mut s = session(addr);
    send(
        &mut s,
        &Request::Compile {
            executable: 1,
            program: ENDLESS.into(),
        },
    );
    assert!(matches!(reply(&mut s), Response::Compiled { .. }));
    send(
        &mut s,
        &Request::MakeArray {
            array: 2,
            data: ArrayLiteral::scalar(0i32),
        },
    );
    assert_eq!(reply(&mut s), Response::Done);
    send(
        &mut s,
        &Request::Execute {
            executable: 1,
            arguments: vec![2],
            results: vec![3],
        },
    );
    s
}

#[test]
fn an_endless_loop_stops_at_the_timeout_or_the_iteration_cap() {
    for (options, says) in [
        (
            ServeOptions {
                execute_timeout: Some(Duration::from_millis(200)),
                ..options(1 << 30)
            },
            "timed out after 0.2 s in while loop",
        ),
        (
            ServeOptions {
                max_while_iterations: Some(1000),
                ..options(1 << 30)
            },
            "reached --max-while-iterations 1000",
        ),
    ] {
        let (addr, _log) = start_worker_with(options);
        let mut s = endless_session(addr);
        match reply(&mut s) {
            Response::Error { kind, message } => {
                assert_eq!(kind, ErrorKind::Failed);
                assert!(message.contains(says), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // The session goes on.
        send(&mut s, &Request::Bye);
        assert_eq!(reply(&mut s), Response::Done);
    }
}

#[test]
fn an_endless_loop_stops_when_its_controller_hangs_up() {
    let (addr, log) = start_worker(1 << 30);
    let s = endless_session(addr);
    drop(s);
    // Without cancellation the worker would spin for ever and answer `busy` to everyone.
    serves_within(addr, 60);
    let lines = log.lines();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("execute e1") && l.contains("cancelled in while loop")),
        "{lines:#?}"
    );
}

#[test]
fn log_lines_escape_what_a_peer_sent() {
    let (addr, log) = start_worker(1 << 30);
    let mut s = session(addr);
    send(
        &mut s,
        &Request::Compile {
            executable: 1,
            program: "HloModule m\u{1b}[2J\n\u{7}ENTRY \u{1b}]0;owned\u{7} {".into(),
        },
    );
    assert_eq!(error_kind(&reply(&mut s)), Some(ErrorKind::Failed));
    send(&mut s, &Request::Bye);
    assert_eq!(reply(&mut s), Response::Done);
    for line in log.lines() {
        assert!(
            !line.chars().any(char::is_control),
            "a control character reached the log: {line:?}"
        );
    }
    let direct = WorkerLog::memory();
    direct.line("a\u{1b}[31mred\nsecond line".into());
    assert_eq!(direct.lines(), ["a\\u{1b}[31mred\\nsecond line"]);
}

#[test]
fn results_and_fetches_are_not_copied_before_they_are_sent() {
    // A fetch's reply is encoded from the array where it lies; a row-major array becomes
    // row-major without a copy.
    let a = ArrayLiteral::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]);
    let at = xlac::runtime::buffers::literal_bytes(&a).as_ptr();
    let same = a.clone().into_row_major().unwrap();
    let b = a.into_row_major().unwrap();
    assert_eq!(xlac::runtime::buffers::literal_bytes(&b).as_ptr(), at);
    assert_eq!(
        Response::encode_array(&b).unwrap(),
        Response::Array(same).encode()
    );
}

#[test]
fn xlac_serve_refuses_absurd_limits_and_warns_about_exposure() {
    let out = xlac()
        .args(["serve", "--max-message-bytes", "18446744073709551615"])
        .env("XLAC_SERVE_TOKEN", std::str::from_utf8(SECRET).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    // A token file others can read, and a listener other machines can reach.
    let dir = std::env::temp_dir().join(format!("xlac-serve-warn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("token");
    std::fs::write(&file, SECRET).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut child = xlac()
        .args(["serve", "--once", "--listen", "0.0.0.0:0", "--token-file"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("listening on 0.0.0.0:"), "{line}");
    child.kill().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        err.contains("warning: ") && err.contains("readable by other users"),
        "{err}"
    );
    assert!(err.contains("warning: --listen 0.0.0.0:0"), "{err}");
}

#[test]
fn a_frame_header_costs_nothing_until_its_body_arrives() {
    use xlac::distributed::frame::FrameError;
    // A header announcing 2^62 bytes within a huge limit, and no body: an allocation of
    // the announced size aborted the process; the body now grows as it arrives.
    let header = (1u64 << 62).to_le_bytes();
    assert!(matches!(
        read_frame(&mut &header[..], u64::MAX),
        Err(FrameError::Truncated { got: 8, .. })
    ));
    // A body of several read chunks arrives whole.
    let long: Vec<u8> = (0..3_000_003u32).map(|i| (i % 251) as u8).collect();
    let mut buf = Vec::new();
    write_frame(&mut buf, &long).unwrap();
    assert_eq!(read_frame(&mut &buf[..], u64::MAX).unwrap(), long);
}

#[test]
fn compile_on_names_its_workers_and_refuses_workers_the_job_does_not_have() {
    let (addr, log) = start_worker(1 << 30);
    let mut s = session(addr);
    let program = "HloModule m\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(p)\n}\n";
    let compile_on = |executable: u64, devices: Vec<u64>| Request::CompileOn {
        executable,
        program: program.into(),
        devices,
    };
    // Workers this job of one does not have: refused by name, before anything is compiled.
    for (devices, want) in [
        (vec![1], "worker 1: this job has 1"),
        (vec![u64::MAX], "this job has 1"),
        (vec![0, 0], "lists device 0 twice"),
        (vec![], "a program runs on 1 to 512 devices"),
    ] {
        send(&mut s, &compile_on(1, devices.clone()));
        match reply(&mut s) {
            Response::Error { kind, message } => {
                assert_eq!(kind, ErrorKind::Failed, "{devices:?}: {message}");
                assert!(message.contains(want), "{devices:?}: {message}");
            }
            other => panic!("{devices:?}: {other:?}"),
        }
    }
    // Its own device: compiled, and it runs.
    send(&mut s, &compile_on(2, vec![0]));
    assert!(matches!(
        reply(&mut s),
        Response::Compiled { device: 0, .. }
    ));
    send(
        &mut s,
        &Request::MakeArray {
            array: 3,
            data: ArrayLiteral::from_vec(&[4], vec![1f32, -2., 3., -0.]),
        },
    );
    assert_eq!(reply(&mut s), Response::Done);
    send(
        &mut s,
        &Request::Execute {
            executable: 2,
            arguments: vec![3],
            results: vec![4],
        },
    );
    assert!(matches!(reply(&mut s), Response::Executed { .. }));
    send(&mut s, &Request::Fetch { array: 4 });
    assert_eq!(
        reply(&mut s),
        Response::Array(ArrayLiteral::from_vec(&[4], vec![-1f32, 2., -3., 0.]))
    );
    drop(s);
    still_serves(addr);
    assert!(
        log.lines()
            .iter()
            .any(|l| l.contains("compile e2 on workers [0] (") && l.ends_with("ms)")),
        "{:?}",
        log.lines()
    );
}
