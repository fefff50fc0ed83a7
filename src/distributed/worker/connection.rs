//! The worker's connections: one controller at a time (the busy lock, with a grace for the
//! previous session to end), the hello handshake with its token and deadline, the limit on
//! failed hellos, the read-answer loop of one session, and the watcher that cancels a run
//! whose controller hung up. Apart from the requests because this is the protocol's
//! transport, not what a request does.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::{Reply, ServeOptions, Session, Transport, WorkerLog, describe, refuse};
use crate::distributed::frame::{FrameError, HELLO_LIMIT, read_frame, write_frame};
use crate::distributed::protocol::{ErrorKind, PROTOCOL_VERSION, Request, Response};
use crate::eval::limits::Cancel;

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
/// Serves controllers one at a time on `listener` (see [`super::Worker::serve`]).
pub(super) fn serve_sessions(
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
pub(super) fn while_connected<T>(
    connection: &TcpStream,
    cancel: &Cancel,
    work: impl FnOnce() -> T,
) -> T {
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
