//! `xlac serve`: a worker of the single controller (`crate::distributed`).
//! Under `mpirun -np N` (a build with the `mpi` feature) the N ranks are the job's workers,
//! rank r running device r and listening on the given port + r; alone, it is a job of one.
//! Each worker prints one `listening` line to standard output, so whoever starts it knows
//! where to connect, then logs connections and requests to standard error.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::Failure;
use crate::distributed::frame::DEFAULT_MESSAGE_LIMIT;
use crate::distributed::{ServeOptions, Token, Transport, Worker, WorkerLog};

/// `xlac serve`.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Where to listen. Port 0 lets the system choose; under mpirun rank r adds r to a
    /// nonzero port. Another host than 127.0.0.1 only when given here.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// The file holding the shared secret every controller must present (default: the
    /// XLAC_SERVE_TOKEN environment variable).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The most bytes one message may have.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MESSAGE_LIMIT)]
    pub max_message_bytes: u64,
    /// Serve one controller, then exit (every worker of an mpirun job, so the job ends
    /// with the controller's session).
    #[arg(long)]
    pub once: bool,
    /// How long a collective may wait for the other workers (seconds).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub collectives_deadline: f64,
    /// Print nothing after the `listening` line (no connection or request lines).
    #[arg(long)]
    pub quiet: bool,
}

/// Runs `xlac serve`.
pub fn serve(args: &ServeArgs) -> Result<(), Failure> {
    let token =
        Token::configured(args.token_file.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
    let deadline = args.collectives_deadline;
    if !(deadline.is_finite() && deadline > 0.0 && deadline <= 86_400.0) {
        return Err(Failure::usage(format!(
            "--collectives-deadline {deadline}: give seconds between 0 and 86400"
        )));
    }
    let transport = transport()?;
    let mut listen = args.listen;
    if listen.port() != 0 {
        let port = u16::try_from(listen.port() as usize + transport.worker()).map_err(|_| {
            Failure::usage(format!(
                "--listen {listen}: port + rank {} is past 65535",
                transport.worker()
            ))
        })?;
        listen.set_port(port);
    }
    let options = ServeOptions {
        listen,
        token,
        max_message_bytes: args.max_message_bytes,
        once: args.once,
        handshake_timeout: Duration::from_secs(10),
        busy_grace: Duration::from_secs(2),
        collectives_deadline: Duration::from_secs_f64(deadline),
    };
    let (me, workers) = (transport.worker(), transport.workers());
    let worker = Worker::bind(options, transport).map_err(|e| {
        Failure::error(format!(
            "cannot listen on {listen}: {}",
            crate::io::io_error_text(&e)
        ))
    })?;
    let addr = worker
        .local_addr()
        .map_err(|e| Failure::error(crate::io::io_error_text(&e)))?;
    // One line to stdout, flushed: the launcher reads it to learn the port.
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "xlac serve: worker {me} of {workers} (pid {}) listening on {addr}",
            std::process::id()
        );
        let _ = out.flush();
    }
    let log = if args.quiet {
        WorkerLog::silent()
    } else {
        WorkerLog::stderr()
    };
    worker
        .serve(log)
        .map_err(|e| Failure::error(format!("serve: {}", crate::io::io_error_text(&e))))
}

/// The MPI world when started by an MPI launcher, else a job of one.
fn transport() -> Result<Transport, Failure> {
    let launched = super::distributed::launcher_rank().is_some();
    #[cfg(feature = "mpi")]
    if launched {
        let world = crate::runtime::collectives::mpi::MpiWorld::initialize()
            .map_err(|e| Failure::error(e.to_string()))?;
        return Ok(Transport::Mpi(world));
    }
    #[cfg(not(feature = "mpi"))]
    if launched {
        return Err(Failure::usage(
            "xlac serve under mpirun: this xlac was built without MPI; build it with `cargo build --release --features mpi`",
        ));
    }
    Ok(Transport::Alone)
}
