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
//!
//! This file holds the worker and its options; its connections are `connection.rs`'s, a
//! session's requests `session.rs`'s and compiling a program `compile.rs`'s.

use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::token::Token;

mod compile;
mod connection;
mod session;

use compile::compile;
use connection::{serve_sessions, while_connected};
use session::{LoadedProgram, Refusal, Reply, Session, describe, refuse, shard_types};

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
