//! The devices of an MPI job behind the proxy: `mpirun -np N xlac serve --protocol
//! ifrt-proxy`. Rank 0 is the front jax connects to; every rank, rank 0 included, runs one
//! device as an `xlac serve` worker ([`crate::distributed::worker`]), and the front drives
//! them as the single controller does ([`Controller`]): one worker request per IFRT call,
//! so each worker's log shows the requests it served and never the script.
//!
//! What lives where:
//! - **Programs** are compiled on the workers of their device assignment (partition `p` on
//!   worker `devices[p]`), each worker compiling its own partition; a program with
//!   collectives runs on every worker and its collectives cross ranks over MPI
//!   ([`crate::runtime::collectives::mpi`]), never through the front.
//! - **Arrays** live on the front, in the session's [`Client`] (host memory of rank 0).
//!   An execute puts each argument's shards on the workers that run them, runs, fetches
//!   the results' shards back and drops the workers' copies. This is the simple choice:
//!   every other request (assemble, disassemble, reshard, copy to host, fully replicated
//!   shard) stays the in-process code the one-process server runs, and a worker holds
//!   nothing between requests. The cost is that each execute moves its arguments and
//!   results between rank 0 and the ranks; keeping shards on their ranks between executes
//!   would need those requests on the workers too.
//! - **A rank that dies**: its worker's connection closes, the front answers the request
//!   with UNAVAILABLE naming the rank at once, and every later request of the session fails
//!   the same way; the ranks still waiting for it in a collective stop the job when the
//!   collectives deadline passes.

use std::net::SocketAddr;

use super::convert::ProxyError;
use crate::distributed::{Controller, ControllerError, RemoteArray, RemoteExecutable, Token};
use crate::ifrt::{self, Array, ArraySpec, Client, IfrtError, LoadedExecutable};
use crate::ir::Module;

/// Where the job's workers listen (in rank order) and the token they share.
#[derive(Clone, Debug)]
pub struct JobWorkers {
    /// Worker `r`'s address: rank `r`, device `r`.
    pub addrs: Vec<SocketAddr>,
    /// The token the front presents to them.
    pub token: Token,
}

/// An executable of a session: in this process, or on the job's workers.
pub enum Loaded {
    /// Compiled here, for the session's own client.
    Local(LoadedExecutable),
    /// Compiled on the workers of its devices.
    Job(RemoteExecutable),
}

impl Loaded {
    /// The module's name.
    pub fn name(&self) -> &str {
        match self {
            Loaded::Local(e) => e.name(),
            Loaded::Job(e) => &e.name,
        }
    }

    /// The devices, partition `p` on `devices()[p]`.
    pub fn devices(&self) -> &[ifrt::DeviceId] {
        match self {
            Loaded::Local(e) => e.devices(),
            Loaded::Job(e) => &e.plan.devices,
        }
    }

    /// The parameters' global types and shardings.
    pub fn parameters(&self) -> &[ArraySpec] {
        match self {
            Loaded::Local(e) => e.parameters(),
            Loaded::Job(e) => &e.plan.parameters,
        }
    }

    /// The result leaves' global types and shardings.
    pub fn results(&self) -> &[ArraySpec] {
        match self {
            Loaded::Local(e) => e.results(),
            Loaded::Job(e) => &e.plan.results,
        }
    }
}

/// A session's connection to the job's workers.
pub struct Job {
    controller: Controller,
}

impl Job {
    /// Connects to every worker.
    pub fn connect(workers: &JobWorkers) -> Result<Job, ProxyError> {
        let controller = Controller::connect(&workers.addrs, &workers.token).map_err(job_error)?;
        Ok(Job { controller })
    }

    /// How many devices (ranks) the job has.
    pub fn devices(&self) -> usize {
        self.controller.devices()
    }

    /// Compiles `module` on the workers of `devices` (`None`: `0..n` for its `n` partitions).
    pub fn compile(
        &mut self,
        module: &Module,
        devices: Option<&[ifrt::DeviceId]>,
    ) -> Result<RemoteExecutable, ProxyError> {
        self.controller
            .compile_on(module, devices)
            .map_err(job_error)
    }

    /// Forgets `exe` on its workers.
    pub fn delete_executable(&mut self, exe: &RemoteExecutable) -> Result<(), ProxyError> {
        self.controller.delete_executable(exe).map_err(job_error)
    }

    /// Runs `exe` on `args` (arrays of `client`): their shards go to the workers, the
    /// results come back as arrays of `client`, and the workers keep nothing.
    pub fn execute(
        &mut self,
        client: &Client,
        exe: &RemoteExecutable,
        args: &[Array],
    ) -> Result<Vec<Array>, ProxyError> {
        let mut on_workers = Vec::new();
        let result = self.run(client, exe, args, &mut on_workers);
        for a in &on_workers {
            // A lost job fails these at once; the error that matters is the run's.
            let _ = self.controller.delete(a);
        }
        result
    }

    fn run(
        &mut self,
        client: &Client,
        exe: &RemoteExecutable,
        args: &[Array],
        on_workers: &mut Vec<RemoteArray>,
    ) -> Result<Vec<Array>, ProxyError> {
        let params = &exe.plan.parameters;
        if args.len() != params.len() {
            return Err(IfrtError::ArgumentCount {
                expected: params.len(),
                given: args.len(),
            }
            .into());
        }
        for (i, (a, p)) in args.iter().zip(params).enumerate() {
            if a.dtype() != p.dtype || a.dims() != p.dims.as_slice() {
                return Err(IfrtError::ShapeMismatch {
                    what: format!("argument {i}"),
                    expected: ifrt::shape_text(p.dtype, &p.dims),
                    given: ifrt::shape_text(a.dtype(), a.dims()),
                }
                .into());
            }
            if !a.sharding().is_equivalent(&p.sharding, &p.dims) {
                return Err(IfrtError::ShardingMismatch {
                    parameter: i,
                    expected: p.sharding.to_string(),
                    given: a.sharding().to_string(),
                }
                .into());
            }
            let host = a.copy_to_host()?;
            let remote = self
                .controller
                .make_array_from_host(&host, p.sharding.clone())
                .map_err(job_error)?;
            on_workers.push(remote);
        }
        let refs: Vec<&RemoteArray> = on_workers.iter().collect();
        let outputs = self.controller.execute(exe, &refs).map_err(job_error)?;
        on_workers.extend(outputs.iter().cloned());
        outputs
            .iter()
            .map(|o| {
                let host = self.controller.copy_to_host(o).map_err(job_error)?;
                Ok(client.make_array_from_host(&host, o.sharding.clone())?)
            })
            .collect()
    }

    /// Says bye to every worker, which then drops what the session left.
    pub fn close(self) -> Result<(), ProxyError> {
        self.controller.close().map_err(job_error)
    }
}

/// A controller's failure as the status the client sees: a worker is a rank of the job.
fn job_error(e: ControllerError) -> ProxyError {
    match e {
        ControllerError::Connection { worker, error } => ProxyError::unavailable(format!(
            "rank {worker} of the MPI job is gone ({error}); the job cannot run programs without it"
        )),
        ControllerError::Connect { addr, error } => ProxyError::unavailable(format!(
            "a rank of the MPI job cannot be reached at {addr}: {}",
            crate::io::io_error_text(&error)
        )),
        ControllerError::Lost { worker } => ProxyError::unavailable(format!(
            "rank {worker} of the MPI job was lost earlier in this session; the job cannot run programs without it"
        )),
        ControllerError::Refused {
            worker, message, ..
        } => ProxyError::invalid(format!("rank {worker}: {message}")),
        ControllerError::Ifrt(e) => e.into(),
        other => ProxyError::invalid(other.to_string()),
    }
}
