//! `xlac serve`: a worker of the single controller (`crate::distributed`).
//! Under `mpirun -np N` (a build with the `mpi` feature) the N ranks are the job's workers,
//! rank r running device r and listening on the given port + r; alone, it is a job of one.
//! Each worker prints one `listening` line to standard output, so whoever starts it knows
//! where to connect, then logs connections and requests to standard error.
//!
//! `--protocol ifrt-proxy` under `mpirun -np N`: rank 0 is the proxy front jax connects to
//! and every rank (rank 0 too) runs one device as a worker of the front
//! (`crate::distributed::ifrt_proxy::job`); only rank 0 prints a `listening` line to
//! standard output, the workers print theirs to standard error.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::Failure;
use crate::distributed::frame::{DEFAULT_MESSAGE_LIMIT, HELLO_LIMIT, MAX_MESSAGE_LIMIT};
use crate::distributed::{ServeOptions, Token, Transport, Worker, WorkerLog};

/// The protocol `xlac serve` speaks.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// xlac's own controller protocol (`crate::distributed`).
    #[default]
    Xlac,
    /// XLA's IFRT proxy over gRPC, for jaxlib's stock client.
    IfrtProxy,
}

/// `xlac serve`.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// The protocol: xlac's own, or XLA's IFRT proxy (jaxlib's `ifrt_proxy` client).
    #[arg(long, value_enum, default_value_t = Protocol::Xlac)]
    pub protocol: Protocol,
    /// With `--protocol ifrt-proxy`: how many devices the server offers.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub devices: usize,
    /// Where to listen. Port 0 lets the system choose; under mpirun rank r adds r to a
    /// nonzero port. Another host than 127.0.0.1 only when given here.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// The file holding the shared secret every controller must present (default: the
    /// XLAC_SERVE_TOKEN environment variable).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The most bytes one message may have (4096 to 2^36).
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = DEFAULT_MESSAGE_LIMIT,
        value_parser = clap::value_parser!(u64).range(HELLO_LIMIT..=MAX_MESSAGE_LIMIT)
    )]
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
    /// Limits of every execute (`--timeout`, `--max-while-iterations`, as `xlac run`'s) and
    /// of every array (`--max-array-bytes`).
    #[command(flatten)]
    pub limits: super::LimitFlags,
}

/// Runs `xlac serve`.
pub fn serve(args: &ServeArgs) -> Result<(), Failure> {
    if args.protocol == Protocol::IfrtProxy {
        return serve_ifrt_proxy(args);
    }
    if args.devices != 1 {
        return Err(Failure::usage(
            "--devices: only with --protocol ifrt-proxy (an xlac worker runs one device)",
        ));
    }
    let token =
        Token::configured(args.token_file.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
    if let Some(file) = &args.token_file
        && crate::distributed::token::readable_by_others(file)
    {
        eprintln!(
            "warning: {} is readable by other users of this machine; anyone who reads it can run programs on this worker (chmod 600 it)",
            file.display()
        );
    }
    if !args.listen.ip().is_loopback() {
        eprintln!(
            "warning: --listen {}: other machines can reach this worker; its protocol is not encrypted, so the token and the data cross the network in the clear",
            args.listen
        );
    }
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
        max_message_bytes: args.max_message_bytes,
        once: args.once,
        collectives_deadline: Duration::from_secs_f64(deadline),
        execute_timeout: args.limits.timeout.map(Duration::from_secs_f64),
        max_while_iterations: args.limits.max_while_iterations,
        ..ServeOptions::new(listen, token)
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

/// `xlac serve --protocol ifrt-proxy`: one process, `--devices` devices.
fn serve_ifrt_proxy(args: &ServeArgs) -> Result<(), Failure> {
    use crate::distributed::ifrt_proxy::{ProxyOptions, ProxyServer};
    if !(1..=crate::ifrt::MAX_DEVICES).contains(&args.devices) {
        return Err(Failure::usage(format!(
            "--devices {}: give 1 to {}",
            args.devices,
            crate::ifrt::MAX_DEVICES
        )));
    }
    // A token is optional on the loopback, required elsewhere (checked by `bind`).
    let token = match Token::configured(args.token_file.as_deref()) {
        Ok(t) => Some(t),
        Err(crate::distributed::TokenError::Missing) => None,
        Err(e) => return Err(Failure::usage(e.to_string())),
    };
    let mut options = ProxyOptions::new(args.listen, args.devices);
    options.token = token;
    options.max_message_bytes = usize::try_from(args.max_message_bytes).unwrap_or(usize::MAX);
    options.once = args.once;
    options.quiet = args.quiet;
    if super::distributed::launcher_rank().is_some() {
        #[cfg(feature = "mpi")]
        return serve_ifrt_proxy_job(args, options);
        #[cfg(not(feature = "mpi"))]
        return Err(Failure::usage(
            "xlac serve under mpirun: this xlac was built without MPI; build it with `cargo build --release --features mpi`",
        ));
    }
    let server = ProxyServer::bind(options).map_err(|e| Failure::usage(e.to_string()))?;
    let addr = server
        .local_addr()
        .map_err(|e| Failure::error(e.to_string()))?;
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "xlac serve: ifrt-proxy server (pid {}, {} devices) listening on {addr}",
            std::process::id(),
            args.devices
        );
        let _ = out.flush();
    }
    server
        .serve()
        .map_err(|e| Failure::error(format!("serve: {e}")))
}

/// `xlac serve --protocol ifrt-proxy` under mpirun: every rank runs one device as a worker
/// (on the thread that initialized MPI, so MPI is only ever called from there); rank 0 also
/// runs the proxy front on another thread, a controller of those workers. The workers
/// listen on the `--listen` host at a port the system chooses and accept only a token rank
/// 0 draws at random and sends to the ranks over MPI; rank 0 learns their addresses over
/// MPI too.
#[cfg(feature = "mpi")]
fn serve_ifrt_proxy_job(
    args: &ServeArgs,
    mut options: crate::distributed::ifrt_proxy::ProxyOptions,
) -> Result<(), Failure> {
    use crate::distributed::ifrt_proxy::ProxyServer;
    use crate::distributed::ifrt_proxy::job::JobWorkers;
    use crate::runtime::collectives::mpi::MpiWorld;
    if args.devices != 1 {
        return Err(Failure::usage(format!(
            "--devices {} under mpirun: each rank runs one device (N ranks are N devices); leave --devices out",
            args.devices
        )));
    }
    let deadline = args.collectives_deadline;
    if !(deadline.is_finite() && deadline > 0.0 && deadline <= 86_400.0) {
        return Err(Failure::usage(format!(
            "--collectives-deadline {deadline}: give seconds between 0 and 86400"
        )));
    }
    let world = MpiWorld::initialize().map_err(|e| Failure::error(e.to_string()))?;
    let (rank, ranks) = (world.rank(), world.size());
    let mut secret = [0u8; 32];
    if rank == 0 {
        use std::io::Read;
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut secret))
            .map_err(|e| {
                Failure::error(format!(
                    "cannot draw the workers' token from /dev/urandom: {}",
                    crate::io::io_error_text(&e)
                ))
            })?;
    }
    world.broadcast_from_root(&mut secret);
    let token = Token::new(secret.to_vec()).map_err(|e| Failure::error(e.to_string()))?;
    let worker_options = ServeOptions {
        max_message_bytes: args.max_message_bytes,
        once: args.once,
        collectives_deadline: Duration::from_secs_f64(deadline),
        execute_timeout: args.limits.timeout.map(Duration::from_secs_f64),
        max_while_iterations: args.limits.max_while_iterations,
        ..ServeOptions::new(SocketAddr::new(args.listen.ip(), 0), token.clone())
    };
    let listen = worker_options.listen;
    let worker = Worker::bind(worker_options, Transport::Mpi(world)).map_err(|e| {
        Failure::error(format!(
            "rank {rank}: cannot listen on {listen}: {}",
            crate::io::io_error_text(&e)
        ))
    })?;
    let addr = worker
        .local_addr()
        .map_err(|e| Failure::error(crate::io::io_error_text(&e)))?;
    let Transport::Mpi(world) = worker.transport() else {
        unreachable!("bound with Transport::Mpi above")
    };
    let gathered = world
        .gather_to_root(addr.to_string().as_bytes())
        .map_err(|e| Failure::error(e.to_string()))?;
    {
        // One write: under mpirun the ranks' lines would interleave otherwise.
        use std::io::Write;
        let line = format!(
            "xlac serve: rank {rank} of {ranks} (pid {}): worker of device {rank} listening on {addr}\n",
            std::process::id()
        );
        let _ = std::io::stderr().write_all(line.as_bytes());
    }
    let log = if args.quiet {
        WorkerLog::silent()
    } else {
        WorkerLog::stderr()
    };
    let deadline = Duration::from_secs_f64(deadline);
    // Every rank meets the others before MPI finalizes: finalizing would wait for ever for a
    // rank that died, so past the collectives deadline this rank exits without finalizing
    // (MPI_Abort did not end the job under `mpirun --enable-recovery`; an exit does, and
    // without that flag mpirun stops the other ranks when one exits unfinalized).
    let serve_worker = |worker: Worker| {
        let (served, transport) = worker.serve_keeping_transport(log);
        if let Transport::Mpi(world) = &transport
            && !world.barrier(deadline)
        {
            let line = format!(
                "xlac serve: rank {rank}: not every rank of the job reached its end within {} s (one has died?); exiting\n",
                deadline.as_secs_f64()
            );
            use std::io::Write;
            let _ = std::io::stderr().write_all(line.as_bytes());
            std::process::exit(4);
        }
        drop(transport);
        served.map_err(|e| Failure::error(format!("serve: {}", crate::io::io_error_text(&e))))
    };
    let Some(gathered) = gathered else {
        return serve_worker(worker);
    };
    let addrs = gathered
        .iter()
        .map(|b| {
            std::str::from_utf8(b)
                .ok()
                .and_then(|t| t.parse::<SocketAddr>().ok())
                .ok_or_else(|| Failure::error("a rank sent an address that does not parse"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    options.devices = ranks;
    options.job = Some(JobWorkers { addrs, token });
    let server = ProxyServer::bind(options).map_err(|e| Failure::usage(e.to_string()))?;
    let front = server
        .local_addr()
        .map_err(|e| Failure::error(e.to_string()))?;
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "xlac serve: ifrt-proxy server (pid {}, {ranks} devices on {ranks} MPI ranks) listening on {front}",
            std::process::id()
        );
        let _ = out.flush();
    }
    let front = std::thread::Builder::new()
        .name("ifrt-proxy-front".into())
        .spawn(move || server.serve())
        .map_err(|e| Failure::error(format!("cannot start the proxy front: {e}")))?;
    serve_worker(worker)?;
    // With --once the worker returns when the front's session said bye; the front ends
    // with that session.
    match front.join() {
        Ok(r) => r.map_err(|e| Failure::error(format!("serve: {e}"))),
        Err(_) => Err(Failure::error("the proxy front panicked")),
    }
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
