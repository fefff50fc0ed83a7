//! `xlac serve`: one worker of a single-controller job. The worker holds its
//! device's shards and executables; the controller ([`super::controller`]) holds the
//! program and every array's metadata, and sends one request per IFRT call. The worker
//! never sees the user's script: it gets HLO text, compiles its own device's program, and
//! answers with shard types.
//!
//! - **Who may talk to it**: it listens on 127.0.0.1 unless told otherwise; the first frame
//!   of every connection must be a hello with the shared [`Token`] (at most
//!   [`HELLO_LIMIT`] bytes, within [`ServeOptions::handshake_timeout`]), compared in
//!   constant time, before any request is read. While one controller is connected, another
//!   is refused with [`ErrorKind::Busy`].
//! - **Every message** is a length-prefixed frame checked against
//!   [`ServeOptions::max_message_bytes`], then decoded by [`Request::decode`], which checks
//!   every field. A bad message is answered with an error; a frame that cannot be read
//!   (oversized, truncated, a closed connection) ends the session, and the worker waits for
//!   the next controller.
//! - **Other workers** are reached only inside collectives: under `mpirun` (feature `mpi`)
//!   the job's ranks are the workers and collectives go over MPI
//!   ([`crate::runtime::collectives::mpi`]); a lone worker runs one-device programs.

use std::collections::{HashMap, HashSet};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::frame::{FrameError, HELLO_LIMIT, read_frame, write_frame};
use super::protocol::{ErrorKind, PROTOCOL_VERSION, Request, Response, ShardType};
use super::token::Token;
use crate::compiler::LoadedDevices;
use crate::eval::limits::{Cancel, RunLimits};
use crate::ifrt::ProgramPlan;
use crate::ir::{ArrayLiteral, Literal, Shape};
use crate::runtime::collectives::{CollectiveMode, Collectives, InProcess};

/// How a worker serves.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Where it listens (127.0.0.1 unless given).
    pub listen: SocketAddr,
    /// The secret every controller must present.
    pub token: Token,
    /// The most bytes one message may have.
    pub max_message_bytes: u64,
    /// Serve one controller, then return.
    pub once: bool,
    /// How long a connection may take to present its token.
    pub handshake_timeout: Duration,
    /// How long an authenticated controller waits for the previous one's session to end
    /// (it may have just hung up) before it is refused as a second controller.
    pub busy_grace: Duration,
    /// How long a collective may wait for the other workers.
    pub collectives_deadline: Duration,
    /// The most connections that may be in their handshake at once; more are closed
    /// unread.
    pub max_pending_handshakes: usize,
    /// Failed hellos answered per minute; past that, a failed hello gets no answer and its
    /// connection is held until its handshake deadline (a guesser's rate is then bounded by
    /// the pending cap), and the log counts them instead of naming each.
    pub failed_hellos_per_minute: u32,
    /// Stop an execute whose while loop still runs this long after it started.
    pub execute_timeout: Option<Duration>,
    /// Stop an execute when one while loop reaches this many iterations.
    pub max_while_iterations: Option<u64>,
}

impl ServeOptions {
    /// Options with `xlac serve`'s defaults, listening on `listen` for `token`.
    pub fn new(listen: SocketAddr, token: Token) -> ServeOptions {
        ServeOptions {
            listen,
            token,
            max_message_bytes: super::frame::DEFAULT_MESSAGE_LIMIT,
            once: false,
            handshake_timeout: Duration::from_secs(10),
            busy_grace: Duration::from_secs(2),
            collectives_deadline: Duration::from_secs(30),
            max_pending_handshakes: DEFAULT_PENDING_HANDSHAKES,
            failed_hellos_per_minute: DEFAULT_FAILED_HELLOS_PER_MINUTE,
            execute_timeout: None,
            max_while_iterations: None,
        }
    }
}

/// How many connections may be in their handshake at once by default: far more than the
/// controllers of one job, few enough that their threads cost little.
pub const DEFAULT_PENDING_HANDSHAKES: usize = 64;

/// Failed hellos answered per minute by default.
pub const DEFAULT_FAILED_HELLOS_PER_MINUTE: u32 = 60;

/// How this worker reaches the job's other workers.
pub enum Transport {
    /// None: the job is this one worker.
    Alone,
    /// The ranks of an MPI job (`mpirun -np N xlac serve`).
    #[cfg(feature = "mpi")]
    Mpi(crate::runtime::collectives::mpi::MpiWorld),
}

impl Transport {
    /// This worker's index in the job.
    pub fn worker(&self) -> usize {
        match self {
            Transport::Alone => 0,
            #[cfg(feature = "mpi")]
            Transport::Mpi(w) => w.rank(),
        }
    }

    /// How many workers the job has.
    pub fn workers(&self) -> usize {
        match self {
            Transport::Alone => 1,
            #[cfg(feature = "mpi")]
            Transport::Mpi(w) => w.size(),
        }
    }
}

/// Where a worker's log lines go: standard error, a copy in memory (the tests read it), or
/// nowhere. One line per connection and per request. A serving worker prints and keeps
/// nothing, so a long-running `xlac serve` does not grow.
#[derive(Clone, Default)]
pub struct WorkerLog {
    kept: Option<Arc<Mutex<Vec<String>>>>,
    print: bool,
}

impl WorkerLog {
    /// A log that prints to standard error.
    pub fn stderr() -> WorkerLog {
        WorkerLog {
            print: true,
            kept: None,
        }
    }

    /// A log that keeps its lines in memory and prints nothing.
    pub fn memory() -> WorkerLog {
        WorkerLog {
            print: false,
            kept: Some(Arc::default()),
        }
    }

    /// A log that drops every line.
    pub fn silent() -> WorkerLog {
        WorkerLog::default()
    }

    /// Adds one line. Control characters are escaped (`\n`, `\u{1b}`): a line may quote
    /// what a peer sent (a program's parse error), and must stay one line that cannot
    /// drive the terminal.
    pub fn line(&self, line: String) {
        let line = escape_controls(line);
        if self.print {
            // One write per line: under mpirun the ranks' lines would interleave otherwise.
            use std::io::Write;
            let _ = std::io::stderr().write_all(format!("xlac serve: {line}\n").as_bytes());
        }
        if let Some(kept) = &self.kept {
            kept.lock().unwrap_or_else(|e| e.into_inner()).push(line);
        }
    }

    /// Every line kept so far (none unless made by [`WorkerLog::memory`]).
    pub fn lines(&self) -> Vec<String> {
        self.kept.as_ref().map_or_else(Vec::new, |k| {
            k.lock().unwrap_or_else(|e| e.into_inner()).clone()
        })
    }
}

/// `line` with its control characters written as Rust escapes.
fn escape_controls(line: String) -> String {
    if !line.chars().any(char::is_control) {
        return line;
    }
    line.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A bound worker, ready to [`serve`](Worker::serve).
pub struct Worker {
    listener: TcpListener,
    options: ServeOptions,
    transport: Transport,
}

/// One compiled program: this worker's device of it.
struct LoadedProgram {
    name: String,
    loaded: LoadedDevices,
    device: usize,
    parameters: Vec<ShardType>,
    results: Vec<ShardType>,
    /// The MPI collectives, split once at compile (every worker compiles in the same order).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    collectives: Option<Arc<dyn Collectives>>,
}

/// Whether a controller holds the worker, with a condition to wait for it to leave.
#[derive(Default)]
struct Busy {
    held: Mutex<bool>,
    left: Condvar,
}

impl Busy {
    /// Takes the worker, waiting up to `grace` for the current session to end.
    fn take(&self, grace: Duration) -> bool {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let (mut held, _) = self
            .left
            .wait_timeout_while(held, grace, |h| *h)
            .unwrap_or_else(|e| e.into_inner());
        if *held {
            return false;
        }
        *held = true;
        true
    }

    fn release(&self) {
        *self.held.lock().unwrap_or_else(|e| e.into_inner()) = false;
        self.left.notify_all();
    }
}

/// What one controller's session holds.
#[derive(Default)]
struct Session {
    executables: HashMap<u64, LoadedProgram>,
    arrays: HashMap<u64, Literal>,
    deleted: HashSet<u64>,
}

/// An error reply.
fn refuse(kind: ErrorKind, message: impl Into<String>) -> Response {
    Refusal::new(kind, message).into()
}

/// Why a request is refused, before it becomes the error reply.
struct Refusal {
    kind: ErrorKind,
    message: String,
}

impl Refusal {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Refusal {
        Refusal {
            kind,
            message: message.into(),
        }
    }
}

impl From<Refusal> for Response {
    fn from(r: Refusal) -> Response {
        Response::Error {
            kind: r.kind,
            message: r.message,
        }
    }
}

fn shard_types(shape: &[Shape], what: &str) -> Result<Vec<ShardType>, Refusal> {
    shape
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Shape::Array(a) => Ok(ShardType {
                dtype: a.element_type,
                dims: a.dims.clone(),
            }),
            _ => Err(Refusal::new(
                ErrorKind::Failed,
                format!("{what} {i} is a tuple; a worker takes arrays"),
            )),
        })
        .collect()
}

fn type_text(t: &ShardType) -> String {
    crate::ifrt::shape_text(t.dtype, &t.dims)
}

impl Worker {
    /// Binds `options.listen`.
    pub fn bind(options: ServeOptions, transport: Transport) -> std::io::Result<Worker> {
        let listener = TcpListener::bind(options.listen)?;
        Ok(Worker {
            listener,
            options,
            transport,
        })
    }

    /// The address it listens on (the port the system chose for port 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// How it reaches the job's other workers.
    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// Serves controllers one at a time, forever (or one, with `once`). Connections,
    /// refusals, and each request with its outcome go to `log`, one line each.
    pub fn serve(self, log: WorkerLog) -> std::io::Result<()> {
        self.serve_keeping_transport(log).0
    }

    /// [`serve`](Worker::serve), then hands back how it reached the other workers, so the
    /// ranks of an MPI job can meet once more before MPI is finalized (finalizing waits
    /// for a rank that died).
    pub fn serve_keeping_transport(self, log: WorkerLog) -> (std::io::Result<()>, Transport) {
        let Worker {
            listener,
            options,
            transport,
        } = self;
        let served = serve_sessions(listener, &options, &transport, log);
        (served, transport)
    }
}

/// Serves controllers one at a time on `listener` (see [`Worker::serve`]).
fn serve_sessions(
    listener: TcpListener,
    options: &ServeOptions,
    transport: &Transport,
    log: WorkerLog,
) -> std::io::Result<()> {
    let me = transport.worker();
    let workers = transport.workers();
    let busy = Arc::new(Busy::default());
    let (to_session, sessions) = mpsc::channel::<(TcpStream, SocketAddr)>();
    // The gate: every connection gets its own handshake thread with a deadline, so an
    // idle or slow peer holds nobody else up; a controller is authenticated before the
    // session thread reads anything of it.
    let gate = {
        let busy = busy.clone();
        let options = options.clone();
        let log = log.clone();
        let pending = Arc::new(AtomicUsize::new(0));
        let failures = Arc::new(FailedHellos::new(options.failed_hellos_per_minute));
        std::thread::Builder::new()
                .name("xlac-serve-gate".into())
                .spawn(move || {
                    for stream in listener.incoming() {
                        let Ok(stream) = stream else { continue };
                        let Ok(peer) = stream.peer_addr() else {
                            continue;
                        };
                        if pending.load(Ordering::SeqCst) >= options.max_pending_handshakes {
                            // Closed unread: the cap is what bounds a crowd of idle peers.
                            log.line(format!(
                                "worker {me}: refused {peer}: {} connections are already in their handshake",
                                options.max_pending_handshakes
                            ));
                            continue;
                        }
                        pending.fetch_add(1, Ordering::SeqCst);
                        let held = Pending(pending.clone());
                        let (busy, options, log, to_session, failures) = (
                            busy.clone(),
                            options.clone(),
                            log.clone(),
                            to_session.clone(),
                            failures.clone(),
                        );
                        let _ = std::thread::Builder::new()
                            .name("xlac-serve-hello".into())
                            .spawn(move || {
                                let _held = held;
                                let mut stream = stream;
                                match handshake(&mut stream, &options, &busy, &failures, me, workers)
                                {
                                    Ok(()) => {
                                        // A closed channel: the worker served its one controller.
                                        let _ = to_session.send((stream, peer));
                                    }
                                    Err(HandshakeRefusal::Logged(why)) => {
                                        log.line(format!("worker {me}: refused {peer}: {why}"))
                                    }
                                    Err(HandshakeRefusal::Summary(n)) => log.line(format!(
                                        "worker {me}: {n} more failed hellos in the last minute were not answered (over {} a minute)",
                                        options.failed_hellos_per_minute
                                    )),
                                    Err(HandshakeRefusal::Quiet) => {}
                                }
                            });
                    }
                })?
    };
    drop(gate);
    while let Ok((mut stream, peer)) = sessions.recv() {
        log.line(format!("worker {me}: controller {peer} connected"));
        let end = run_session(&mut stream, options, transport, &log);
        // Free before the connection closes: a controller that sees it close may
        // reconnect at once.
        busy.release();
        drop(stream);
        log.line(format!("worker {me}: controller {peer} {end}"));
        if options.once {
            break;
        }
    }
    Ok(())
}

/// One connection in its handshake; dropping it frees its place under the pending cap.
struct Pending(Arc<AtomicUsize>);

impl Drop for Pending {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Failed hellos of the current minute.
struct FailedHellos {
    per_minute: u32,
    /// When the minute started, failures in it, and how many of them went unanswered.
    window: Mutex<(Instant, u32, u64)>,
}

impl FailedHellos {
    fn new(per_minute: u32) -> FailedHellos {
        FailedHellos {
            per_minute,
            window: Mutex::new((Instant::now(), 0, 0)),
        }
    }

    /// Counts one failure: whether it may be answered, and the unanswered count of the
    /// minute that just ended, if one did and had any.
    fn record(&self) -> (bool, Option<u64>) {
        let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
        let mut ended = None;
        if w.0.elapsed() >= Duration::from_secs(60) {
            ended = (w.2 > 0).then_some(w.2);
            *w = (Instant::now(), 0, 0);
        }
        w.1 = w.1.saturating_add(1);
        let answered = w.1 <= self.per_minute;
        if !answered {
            w.2 += 1;
        }
        (answered, ended)
    }
}

/// Why a handshake failed, as the log should show it.
enum HandshakeRefusal {
    /// One line naming the reason.
    Logged(String),
    /// Unanswered over the rate; the count of the minute that ended.
    Summary(u64),
    /// Unanswered over the rate, nothing to log.
    Quiet,
}

/// A connection read against one deadline for the whole handshake: each read may wait only
/// for what is left, so a peer sending a byte at a time cannot stretch it.
struct DeadlineReader<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl std::io::Read for DeadlineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the handshake's deadline passed",
            ));
        }
        self.stream.set_read_timeout(Some(left))?;
        std::io::Read::read(&mut &*self.stream, buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the handshake's deadline passed",
            ),
            _ => e,
        })
    }
}

/// Reads the hello within `options.handshake_timeout` in all; on success the worker is
/// busy with this controller.
fn handshake(
    stream: &mut TcpStream,
    options: &ServeOptions,
    busy: &Busy,
    failures: &FailedHellos,
    me: usize,
    workers: usize,
) -> Result<(), HandshakeRefusal> {
    let until = Instant::now() + options.handshake_timeout;
    let _ = stream.set_write_timeout(Some(options.handshake_timeout));
    let _ = stream.set_nodelay(true);
    let fail = |stream: &mut TcpStream, why: String, answer: bool| {
        let (answered, ended) = failures.record();
        if answered {
            if answer {
                let _ = write_frame(
                    stream,
                    &refuse(ErrorKind::Unauthenticated, why.clone()).encode(),
                );
            }
            return HandshakeRefusal::Logged(why);
        }
        // Over the rate: no answer, and the connection is held until its deadline.
        let mut sink = [0u8; 256];
        let mut r = DeadlineReader {
            stream: &*stream,
            until,
        };
        while matches!(std::io::Read::read(&mut r, &mut sink), Ok(n) if n > 0) {}
        ended.map_or(HandshakeRefusal::Quiet, HandshakeRefusal::Summary)
    };
    // The hello is read before anything else, with a small limit.
    let read = read_frame(
        &mut DeadlineReader {
            stream: &*stream,
            until,
        },
        HELLO_LIMIT,
    );
    let frame = match read {
        Ok(f) => f,
        Err(e) => {
            let answer = matches!(e, FrameError::TooLarge { .. });
            return Err(fail(stream, format!("no hello: {e}"), answer));
        }
    };
    let (version, token) = match Request::decode(&frame) {
        Ok(Request::Hello { version, token }) => (version, token),
        Ok(other) => {
            let why = format!("a {} before the hello", other.name());
            return Err(fail(stream, why, true));
        }
        Err(e) => {
            let why = format!("a hello that does not decode ({e})");
            return Err(fail(stream, why, true));
        }
    };
    if !options.token.matches(&token) {
        return Err(fail(stream, "a wrong token".into(), true));
    }
    let reply = |stream: &mut TcpStream, r: Response| {
        let _ = write_frame(stream, &r.encode());
    };
    if version != PROTOCOL_VERSION {
        let why = format!("protocol version {version}; this worker speaks {PROTOCOL_VERSION}");
        reply(stream, refuse(ErrorKind::Unauthenticated, why.clone()));
        return Err(HandshakeRefusal::Logged(why));
    }
    if !busy.take(options.busy_grace) {
        let why = "another controller is connected".to_string();
        reply(stream, refuse(ErrorKind::Busy, why.clone()));
        return Err(HandshakeRefusal::Logged(why));
    }
    reply(
        stream,
        Response::Welcome {
            worker: me as u32,
            workers: workers as u32,
        },
    );
    let _ = stream.set_read_timeout(None);
    let _ = stream.set_write_timeout(None);
    Ok(())
}

/// Serves one controller until it says bye or its connection ends; returns how it ended.
fn run_session(
    stream: &mut TcpStream,
    options: &ServeOptions,
    transport: &Transport,
    log: &WorkerLog,
) -> String {
    let me = transport.worker();
    let mut session = Session::default();
    for n in 1u64.. {
        let frame = match read_frame(stream, options.max_message_bytes) {
            Ok(f) => f,
            Err(FrameError::Closed) => return "disconnected".into(),
            Err(e @ (FrameError::TooLarge { .. } | FrameError::OutOfMemory { .. })) => {
                // The rest of the frame cannot be skipped safely: refuse and hang up.
                let _ = write_frame(
                    stream,
                    &refuse(ErrorKind::BadMessage, e.to_string()).encode(),
                );
                return format!("sent a message over the limit ({e}); session ended");
            }
            Err(e) => return format!("disconnected mid-request: {e}"),
        };
        let started = Instant::now();
        let (response, what, bye) = match Request::decode(&frame) {
            Ok(request) => {
                let what = describe(&request);
                let bye = request == Request::Bye;
                (
                    session.handle(request, transport, options, stream),
                    what,
                    bye,
                )
            }
            Err(e) => (
                refuse(ErrorKind::BadMessage, format!("request {n}: {e}")).into(),
                format!("{} bytes that do not decode", frame.len()),
                false,
            ),
        };
        drop(frame);
        let outcome = match &response {
            Reply::Message(Response::Error { kind, message }) => format!("{kind}: {message}"),
            _ => "ok".into(),
        };
        log.line(format!(
            "worker {me}: request {n}: {what}: {outcome} ({:.1} ms)",
            started.elapsed().as_secs_f64() * 1e3
        ));
        if let Err(e) = write_frame(stream, &response.into_bytes()) {
            return format!(
                "disconnected before the reply: {}",
                crate::io::io_error_text(&e)
            );
        }
        if bye {
            return "said bye".into();
        }
    }
    unreachable!("a session ends by returning")
}

/// One log line's description of a request (never its data).
fn describe(r: &Request) -> String {
    match r {
        Request::Hello { .. } => "hello".into(),
        Request::Compile {
            executable,
            program,
        } => format!("compile e{executable} ({} bytes of HLO)", program.len()),
        Request::MakeArray { array, data } => {
            format!("make-array a{array} {}", Shape::Array(data.shape.clone()))
        }
        Request::Execute {
            executable,
            arguments,
            results,
        } => format!(
            "execute e{executable} ({}) -> ({})",
            ids_text(arguments),
            ids_text(results)
        ),
        Request::Fetch { array } => format!("fetch a{array}"),
        Request::Delete { array } => format!("delete a{array}"),
        Request::DeleteExecutable { executable } => format!("delete-executable e{executable}"),
        Request::Bye => "bye".into(),
        Request::CompileOn {
            executable,
            program,
            devices,
        } => format!(
            "compile e{executable} on workers {devices:?} ({} bytes of HLO)",
            program.len()
        ),
    }
}

fn ids_text(ids: &[u64]) -> String {
    ids.iter()
        .map(|i| format!("a{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A reply: a message, or an array's reply already encoded where the array lies.
enum Reply {
    Message(Response),
    Encoded(Vec<u8>),
}

impl Reply {
    fn into_bytes(self) -> Vec<u8> {
        match self {
            Reply::Message(r) => r.encode(),
            Reply::Encoded(b) => b,
        }
    }
}

impl From<Response> for Reply {
    fn from(r: Response) -> Reply {
        Reply::Message(r)
    }
}

impl Session {
    fn handle(
        &mut self,
        request: Request,
        transport: &Transport,
        options: &ServeOptions,
        connection: &TcpStream,
    ) -> Reply {
        if let Request::Fetch { array } = request {
            return match self.array(array, transport.worker()) {
                Ok(Literal::Array(a)) => match Response::encode_array(a) {
                    Ok(bytes) => Reply::Encoded(bytes),
                    Err(e) => refuse(ErrorKind::Failed, format!("fetch a{array}: {e}")).into(),
                },
                Ok(_) => refuse(ErrorKind::Failed, format!("a{array} is not an array")).into(),
                Err(r) => Response::from(r).into(),
            };
        }
        if let Request::Execute {
            executable,
            arguments,
            results,
        } = request
        {
            return self
                .execute(
                    executable,
                    &arguments,
                    &results,
                    transport.worker(),
                    options,
                    connection,
                )
                .into();
        }
        self.handle_other(request, transport, options).into()
    }

    fn handle_other(
        &mut self,
        request: Request,
        transport: &Transport,
        options: &ServeOptions,
    ) -> Response {
        match request {
            Request::Hello { .. } => refuse(ErrorKind::BadMessage, "a second hello"),
            Request::Compile {
                executable,
                program,
            } => self.compile(executable, &program, None, transport, options),
            Request::CompileOn {
                executable,
                program,
                devices,
            } => self.compile(executable, &program, Some(&devices), transport, options),
            Request::MakeArray { array, data } => {
                if let Err(r) = self.fresh(array) {
                    return r.into();
                }
                self.arrays.insert(array, Literal::Array(data));
                Response::Done
            }
            Request::Execute { .. } | Request::Fetch { .. } => {
                unreachable!("answered by Session::handle")
            }
            Request::Delete { array } => match self.arrays.remove(&array) {
                Some(_) => {
                    self.deleted.insert(array);
                    Response::Done
                }
                None => self.missing(array, transport.worker()).into(),
            },
            Request::DeleteExecutable { executable } => {
                match self.executables.remove(&executable) {
                    Some(_) => Response::Done,
                    None => refuse(ErrorKind::NotFound, format!("no executable e{executable}")),
                }
            }
            Request::Bye => {
                *self = Session::default();
                Response::Done
            }
        }
    }

    /// Compiles `program` for the job's workers (`devices`: for these workers, partition
    /// `p` on `devices[p]`) and keeps this worker's device of it as `executable`.
    fn compile(
        &mut self,
        executable: u64,
        program: &str,
        devices: Option<&[u64]>,
        transport: &Transport,
        options: &ServeOptions,
    ) -> Response {
        if self.executables.contains_key(&executable) {
            return refuse(
                ErrorKind::Failed,
                format!("executable e{executable} exists"),
            );
        }
        match compile(program, devices, transport, options) {
            Ok(p) => {
                let reply = Response::Compiled {
                    device: transport.worker() as u32,
                    parameters: p.parameters.clone(),
                    results: p.results.clone(),
                };
                self.executables.insert(executable, p);
                reply
            }
            Err(r) => r.into(),
        }
    }

    /// Ids are never reused, so a stale handle can never name a new array.
    fn fresh(&self, array: u64) -> Result<(), Refusal> {
        if self.arrays.contains_key(&array) || self.deleted.contains(&array) {
            return Err(Refusal::new(
                ErrorKind::Failed,
                format!("array a{array} exists or existed: ids are not reused"),
            ));
        }
        Ok(())
    }

    fn missing(&self, array: u64, me: usize) -> Refusal {
        if self.deleted.contains(&array) {
            Refusal::new(ErrorKind::NotFound, format!("array a{array} was deleted"))
        } else {
            Refusal::new(
                ErrorKind::NotFound,
                format!("no array a{array} on worker {me}"),
            )
        }
    }

    fn array(&self, array: u64, me: usize) -> Result<&Literal, Refusal> {
        self.arrays
            .get(&array)
            .ok_or_else(|| self.missing(array, me))
    }

    fn execute(
        &mut self,
        executable: u64,
        arguments: &[u64],
        results: &[u64],
        me: usize,
        options: &ServeOptions,
        connection: &TcpStream,
    ) -> Response {
        let Some(program) = self.executables.get(&executable) else {
            return refuse(ErrorKind::NotFound, format!("no executable e{executable}"));
        };
        if arguments.len() != program.parameters.len() {
            return refuse(
                ErrorKind::Failed,
                format!(
                    "{} takes {} arguments, {} given",
                    program.name,
                    program.parameters.len(),
                    arguments.len()
                ),
            );
        }
        if results.len() != program.results.len() {
            return refuse(
                ErrorKind::BadMessage,
                format!(
                    "{} returns {} arrays, {} result ids given",
                    program.name,
                    program.results.len(),
                    results.len()
                ),
            );
        }
        for (i, &r) in results.iter().enumerate() {
            if results[..i].contains(&r) {
                return refuse(ErrorKind::BadMessage, format!("result id a{r} given twice"));
            }
            if let Err(resp) = self.fresh(r) {
                return resp.into();
            }
        }
        for (i, (&a, want)) in arguments.iter().zip(&program.parameters).enumerate() {
            let got = match self.array(a, me) {
                Err(r) => return r.into(),
                Ok(lit) => lit,
            };
            let got = match got {
                Literal::Array(x) => ShardType {
                    dtype: x.shape.element_type,
                    dims: x.shape.dims.clone(),
                },
                _ => {
                    return refuse(ErrorKind::Failed, format!("argument {i} is not an array"));
                }
            };
            if &got != want {
                return refuse(
                    ErrorKind::Failed,
                    format!(
                        "argument {i} (a{a}) is {} on worker {me}; {} takes {}",
                        type_text(&got),
                        program.name,
                        type_text(want)
                    ),
                );
            }
        }
        // Checked above: every argument exists and fits. Borrow the two maps apart.
        let Session {
            executables,
            arrays,
            ..
        } = self;
        let args: Vec<&Literal> = arguments.iter().map(|a| &arrays[a]).collect();
        let program = executables.get_mut(&executable).expect("looked up above");
        let collectives: Arc<dyn Collectives> = match &program.collectives {
            Some(c) => c.clone(),
            None => Arc::new(InProcess::new(
                program.loaded.grid().clone(),
                CollectiveMode::Deterministic,
            )),
        };
        let cancel = Cancel::new();
        program.loaded.set_limits(RunLimits {
            timeout: options.execute_timeout,
            start: None,
            max_while_iterations: options.max_while_iterations,
            cancel: Some(cancel.clone()),
        });
        let outcome = while_connected(connection, &cancel, || {
            program
                .loaded
                .execute_device(program.device, &args, collectives)
        });
        let result = match outcome {
            Ok((result, _trace)) => result,
            Err(e) => return refuse(ErrorKind::Failed, format!("{}: {e}", program.name)),
        };
        // The result's own buffers become the arrays: no second copy of a result.
        let mut leaves = Vec::new();
        into_leaves(result, &mut leaves);
        let mut stored = Vec::with_capacity(leaves.len());
        for leaf in leaves {
            match leaf.into_row_major() {
                Ok(a) => stored.push(Literal::Array(a)),
                Err(e) => return refuse(ErrorKind::Failed, format!("{}: {e}", program.name)),
            }
        }
        let types = program.results.clone();
        for (&id, leaf) in results.iter().zip(stored) {
            arrays.insert(id, leaf);
        }
        Response::Executed { results: types }
    }
}

/// The array leaves of `literal`, depth-first, moved out of it.
fn into_leaves(literal: Literal, out: &mut Vec<ArrayLiteral>) {
    match literal {
        Literal::Array(a) => out.push(a),
        Literal::Tuple(items) => items.into_iter().for_each(|l| into_leaves(l, out)),
        Literal::Token => {}
    }
}

/// How often the watcher of [`while_connected`] looks at the connection.
const HANGUP_POLL: Duration = Duration::from_millis(100);

/// Runs `work` while a watcher raises `cancel` if the controller hangs up (its
/// connection reaches end of file or fails), so a run it no longer waits for stops at its
/// next while iteration and the worker is free for the next controller. A controller that
/// sends its next request early is alive: the watcher then stops looking.
///
/// The watcher is not waited for: it notices `done` within one poll, and the reply does not
/// wait that long. Only this thread sets the socket's read timeout (before the watcher starts
/// and after the work), so a late watcher cannot leave its poll timeout on the connection; at
/// worst its last look waits, harmlessly, for the next request or the end of the connection.
fn while_connected<T>(connection: &TcpStream, cancel: &Cancel, work: impl FnOnce() -> T) -> T {
    let Ok(watched) = connection.try_clone() else {
        return work();
    };
    if connection.set_read_timeout(Some(HANGUP_POLL)).is_err() {
        return work();
    }
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (done, cancel) = (done.clone(), cancel.clone());
        std::thread::Builder::new()
            .name("xlac-serve-hangup".into())
            .spawn(move || {
                let mut probe = [0u8; 1];
                while !done.load(Ordering::SeqCst) {
                    match watched.peek(&mut probe) {
                        Ok(0) => return cancel.raise(),
                        Ok(_) => return,
                        Err(e)
                            if matches!(
                                e.kind(),
                                std::io::ErrorKind::WouldBlock
                                    | std::io::ErrorKind::TimedOut
                                    | std::io::ErrorKind::Interrupted
                            ) => {}
                        Err(_) => return cancel.raise(),
                    }
                }
            })
    };
    let out = work();
    done.store(true, Ordering::SeqCst);
    let _ = connection.set_read_timeout(None);
    drop(watcher);
    out
}

/// Parses, plans and compiles `program` for this worker's device: with `devices`, partition
/// `p` runs on worker `devices[p]`; without, partition `w` on worker `w` of every worker.
#[cfg_attr(not(feature = "mpi"), allow(unused_variables))]
fn compile(
    program: &str,
    devices: Option<&[u64]>,
    transport: &Transport,
    options: &ServeOptions,
) -> Result<LoadedProgram, Refusal> {
    let failed = |m: String| Refusal::new(ErrorKind::Failed, m);
    let parsed = crate::ir::hlo_text::parse_module(program, "<program>")
        .map_err(|e| failed(e.to_string()))?;
    let module = parsed.module;
    crate::ir::verifier::verify(&module).map_err(|errors| {
        failed(
            errors
                .first()
                .map_or("the verifier rejected the module".into(), |e| e.to_string()),
        )
    })?;
    let (me, workers) = (transport.worker(), transport.workers());
    let assignment: Option<Vec<usize>> = devices
        .map(|d| {
            d.iter()
                .map(|&w| {
                    usize::try_from(w)
                        .ok()
                        .filter(|&w| w < workers)
                        .ok_or_else(|| failed(format!("worker {w}: this job has {workers}")))
                })
                .collect::<Result<_, _>>()
        })
        .transpose()?;
    let plan =
        ProgramPlan::new(&module, assignment.as_deref()).map_err(|e| failed(e.to_string()))?;
    if assignment.is_none() && plan.devices.len() != workers {
        return Err(failed(format!(
            "{} runs on {} devices; this job has {workers} worker{} (one device each)",
            module.name,
            plan.devices.len(),
            if workers == 1 { "" } else { "s" }
        )));
    }
    let Some(device) = plan.devices.iter().position(|&d| d == me) else {
        return Err(failed(format!(
            "{} runs on workers {:?}, not on worker {me}",
            module.name, plan.devices
        )));
    };
    let name = module.name.clone();
    let loaded =
        crate::compiler::load_on_devices(std::slice::from_ref(&module), &plan.grid, &plan.options)
            .map_err(|e| failed(e.to_string()))?;
    // Communicators are split over the whole MPI world, every rank in the same order: only
    // a program on every worker can have them. One without collectives needs none.
    let collectives = match transport {
        Transport::Alone => None,
        #[cfg(feature = "mpi")]
        Transport::Mpi(_) if !has_collectives(loaded.module(device)) => None,
        #[cfg(feature = "mpi")]
        Transport::Mpi(world) => {
            use crate::runtime::collectives::mpi::{Mpi, MpiOptions};
            if plan.devices.len() != workers {
                return Err(failed(format!(
                    "{} has collectives and runs on {} of the job's {workers} workers; xlac runs a program with collectives on every worker of its job",
                    name,
                    plan.devices.len()
                )));
            }
            let mpi = Mpi::new(
                world,
                &[loaded.module(0)],
                &plan.grid,
                MpiOptions {
                    check_order: false,
                    deadline: options.collectives_deadline,
                },
            )
            .map_err(|e| failed(e.to_string()))?;
            debug_assert_eq!(mpi.device(), device);
            Some(Arc::new(mpi) as Arc<dyn Collectives>)
        }
    };
    let per_device = loaded.module(device);
    let parameters = shard_types(
        &per_device.entry_computation().parameter_shapes(),
        "parameter",
    )?;
    let result_leaves: Vec<Shape> = per_device
        .result_shape()
        .leaves()
        .into_iter()
        .map(|a| Shape::Array(a.clone()))
        .collect();
    let results = shard_types(&result_leaves, "result")?;
    Ok(LoadedProgram {
        name,
        loaded,
        device,
        parameters,
        results,
        collectives,
    })
}

/// Whether any computation of `module` has a collective.
#[cfg(feature = "mpi")]
fn has_collectives(module: &crate::ir::Module) -> bool {
    use crate::runtime::collectives::CollectiveKind;
    module.order.iter().any(|&c| {
        module
            .computation(c)
            .iter()
            .any(|(_, i)| CollectiveKind::of(i.opcode()).is_some())
    })
}
