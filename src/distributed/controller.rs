//! The single controller: one process holds the program and every array's
//! metadata (global shape, dtype, sharding); the workers (`xlac serve`,
//! [`super::worker`]) hold the shards. Each IFRT call is one request to each worker
//! concerned, and one line of the controller's [`log`](Controller::log): the whole job, seen
//! from the one place that knows it.
//!
//! ```no_run
//! use xlac::distributed::{Controller, Token};
//! use xlac::ifrt::{Mesh, Sharding};
//! use xlac::ir::ArrayLiteral;
//! use xlac::pspec;
//!
//! let token = Token::configured(None)?; // XLAC_SERVE_TOKEN
//! let addrs = ["127.0.0.1:7000".parse()?, "127.0.0.1:7001".parse()?];
//! let mut c = Controller::connect(&addrs, &token)?;
//! let mesh = Mesh::new(&[("x", 2)], vec![0, 1])?;
//! let x = ArrayLiteral::from_vec(&[4], vec![1f32, 2., 3., 4.]);
//! let a = c.make_array_from_host(&x, Sharding::named(&mesh, pspec!("x")))?;
//! assert_eq!(c.copy_to_host(&a)?, x);
//! c.close()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::net::{SocketAddr, TcpStream};

use super::frame::{DEFAULT_MESSAGE_LIMIT, FrameError, read_frame, write_frame};
use super::protocol::{DecodeError, ErrorKind, PROTOCOL_VERSION, Request, Response, ShardType};
use super::token::Token;
use crate::ifrt::copy::{copy_box, empty_like};
use crate::ifrt::{ArraySpec, IfrtError, IndexDomain, ProgramPlan, Sharding};
use crate::ir::{ArrayLiteral, Module, PrimitiveType};

/// Why a controller call failed.
#[derive(Debug)]
pub enum ControllerError {
    /// A worker could not be reached.
    Connect {
        /// Its address.
        addr: SocketAddr,
        /// Why.
        error: std::io::Error,
    },
    /// A worker's connection failed or closed.
    Connection {
        /// The worker.
        worker: usize,
        /// Why.
        error: FrameError,
    },
    /// A worker's reply did not decode.
    Decode {
        /// The worker.
        worker: usize,
        /// Where and what.
        error: DecodeError,
    },
    /// A worker refused the request.
    Refused {
        /// The worker.
        worker: usize,
        /// Why, as a kind.
        kind: ErrorKind,
        /// Its message.
        message: String,
    },
    /// The workers do not form the job this controller expects.
    Job(String),
    /// A sharding, shape or argument that does not fit.
    Ifrt(IfrtError),
    /// The array was deleted.
    Deleted(u64),
    /// A worker's connection failed earlier: the job lost it.
    Lost {
        /// The worker.
        worker: usize,
    },
    /// A worker answered something other than what the request calls for.
    Protocol {
        /// The worker.
        worker: usize,
        /// What came back.
        got: String,
    },
}

impl fmt::Display for ControllerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ControllerError::Connect { addr, error } => write!(
                f,
                "cannot reach the worker at {addr}: {}",
                crate::io::io_error_text(error)
            ),
            ControllerError::Connection { worker, error } => write!(f, "worker {worker}: {error}"),
            ControllerError::Decode { worker, error } => {
                write!(f, "worker {worker}: a reply that does not decode: {error}")
            }
            ControllerError::Refused {
                worker,
                kind,
                message,
            } => write!(f, "worker {worker} refused ({kind}): {message}"),
            ControllerError::Job(m) => write!(f, "{m}"),
            ControllerError::Ifrt(e) => write!(f, "{e}"),
            ControllerError::Deleted(id) => write!(f, "array a{id} was deleted"),
            ControllerError::Lost { worker } => write!(
                f,
                "worker {worker} was lost earlier in this session; the job cannot run programs without it"
            ),
            ControllerError::Protocol { worker, got } => {
                write!(f, "worker {worker}: an unexpected reply: {got}")
            }
        }
    }
}

impl std::error::Error for ControllerError {}

impl From<IfrtError> for ControllerError {
    fn from(e: IfrtError) -> ControllerError {
        ControllerError::Ifrt(e)
    }
}

/// A result of this module.
pub type Result<T> = std::result::Result<T, ControllerError>;

/// An array the workers hold: its id and metadata; the data is on the workers.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteArray {
    /// The id every worker holding a shard knows it by.
    pub id: u64,
    /// Element type.
    pub dtype: PrimitiveType,
    /// Global dimensions.
    pub dims: Vec<i64>,
    /// Which device (worker) holds which box.
    pub sharding: Sharding,
}

impl fmt::Display for RemoteArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a{} {}",
            self.id,
            crate::ifrt::shape_text(self.dtype, &self.dims)
        )
    }
}

/// A program compiled on every worker.
#[derive(Clone, Debug)]
pub struct RemoteExecutable {
    /// The id the workers know it by.
    pub id: u64,
    /// The module's name.
    pub name: String,
    /// Its devices, parameters and results.
    pub plan: ProgramPlan,
}

struct Connection {
    stream: TcpStream,
    addr: SocketAddr,
}

/// A controller connected to every worker of a job; worker `w` runs device `w`.
pub struct Controller {
    workers: Vec<Connection>,
    /// The worker whose connection failed: the job cannot run programs any more.
    lost: Option<usize>,
    next_id: u64,
    deleted: HashSet<u64>,
    log: Vec<String>,
    max_message_bytes: u64,
}

impl Controller {
    /// Connects to every worker of a job (`addrs` in any order) and presents `token`.
    pub fn connect(addrs: &[SocketAddr], token: &Token) -> Result<Controller> {
        let mut by_worker: HashMap<usize, Connection> = HashMap::new();
        let mut total = None;
        for &addr in addrs {
            let stream = TcpStream::connect(addr)
                .map_err(|error| ControllerError::Connect { addr, error })?;
            let _ = stream.set_nodelay(true);
            let mut c = Connection { stream, addr };
            let hello = Request::Hello {
                version: PROTOCOL_VERSION,
                token: token.bytes().to_vec(),
            };
            let position = by_worker.len();
            let (worker, workers) = match exchange(&mut c, position, &hello, DEFAULT_MESSAGE_LIMIT)?
            {
                Response::Welcome { worker, workers } => (worker as usize, workers as usize),
                other => return Err(unexpected(position, &other)),
            };
            if *total.get_or_insert(workers) != workers {
                return Err(ControllerError::Job(format!(
                    "the worker at {addr} belongs to a job of {workers} workers, the others to one of {}",
                    total.unwrap_or(0)
                )));
            }
            if by_worker.insert(worker, c).is_some() {
                return Err(ControllerError::Job(format!(
                    "two addresses reach worker {worker}"
                )));
            }
        }
        let workers = total.unwrap_or(0);
        if workers == 0 || by_worker.len() != workers {
            return Err(ControllerError::Job(format!(
                "the job has {workers} workers; {} addresses were given",
                addrs.len()
            )));
        }
        let workers: Vec<Connection> = (0..workers)
            .map(|w| {
                by_worker
                    .remove(&w)
                    .expect("every index 0..n, checked above")
            })
            .collect();
        let mut c = Controller {
            workers,
            lost: None,
            next_id: 1,
            deleted: HashSet::new(),
            log: Vec::new(),
            max_message_bytes: DEFAULT_MESSAGE_LIMIT,
        };
        let addrs: Vec<String> = c.workers.iter().map(|w| w.addr.to_string()).collect();
        c.note(format!(
            "connect {} workers ({})",
            c.workers.len(),
            addrs.join(", ")
        ));
        Ok(c)
    }

    /// How many workers (devices) the job has.
    pub fn devices(&self) -> usize {
        self.workers.len()
    }

    /// One line per call so far.
    pub fn log(&self) -> &[String] {
        &self.log
    }

    fn note(&mut self, line: String) {
        self.log.push(line);
    }

    fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Sends `requests[i].1` to worker `requests[i].0`, all before reading any reply, so the
    /// workers work at once (an execute's collectives need every worker running). The
    /// replies are read as they come, each on its own thread: a worker whose connection
    /// fails (its process died) is reported at once, while the others may still wait for
    /// it in a collective; the job then counts as lost and every later call fails at once.
    fn round(&mut self, requests: Vec<(usize, Request)>) -> Result<Vec<(usize, Response)>> {
        if let Some(worker) = self.lost {
            return Err(ControllerError::Lost { worker });
        }
        for (w, r) in &requests {
            let c = &mut self.workers[*w];
            if let Err(e) = write_frame(&mut c.stream, &r.encode()) {
                return Err(self.lose(*w, FrameError::Io(e)));
            }
        }
        let (tx, rx) = std::sync::mpsc::channel();
        for (w, _) in &requests {
            let w = *w;
            let mut stream = match self.workers[w].stream.try_clone() {
                Ok(s) => s,
                Err(e) => return Err(self.lose(w, FrameError::Io(e))),
            };
            let (tx, limit) = (tx.clone(), self.max_message_bytes);
            let reader = std::thread::Builder::new()
                .name(format!("xlac-controller-reply-{w}"))
                .spawn(move || {
                    let _ = tx.send((w, read_frame(&mut stream, limit)));
                });
            if let Err(e) = reader {
                // The requests are out: without a reader their replies would answer later
                // requests, so the job cannot go on.
                return Err(self.lose(w, FrameError::Io(e)));
            }
        }
        drop(tx);
        let mut replies: Vec<Option<Response>> = vec![None; self.workers.len()];
        let mut first_error = None;
        for _ in 0..requests.len() {
            let Ok((w, frame)) = rx.recv() else { break };
            let frame = match frame {
                Ok(f) => f,
                Err(error) => return Err(self.lose(w, error)),
            };
            match Response::decode(&frame) {
                Ok(Response::Error { kind, message }) => {
                    first_error.get_or_insert(ControllerError::Refused {
                        worker: w,
                        kind,
                        message,
                    });
                }
                Ok(r) => replies[w] = Some(r),
                Err(error) => {
                    first_error.get_or_insert(ControllerError::Decode { worker: w, error });
                }
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        // In the order of the requests.
        Ok(requests
            .iter()
            .filter_map(|(w, _)| replies[*w].take().map(|r| (*w, r)))
            .collect())
    }

    /// Marks worker `w` lost and closes every connection (so the reader threads of the
    /// round end, and the other workers see the controller leave).
    fn lose(&mut self, w: usize, error: FrameError) -> ControllerError {
        self.lost = Some(w);
        for c in &self.workers {
            let _ = c.stream.shutdown(std::net::Shutdown::Both);
        }
        ControllerError::Connection { worker: w, error }
    }

    fn check_live(&self, a: &RemoteArray) -> Result<()> {
        if self.deleted.contains(&a.id) {
            return Err(ControllerError::Deleted(a.id));
        }
        Ok(())
    }

    fn check_devices(&self, sharding: &Sharding) -> Result<()> {
        if let Some(&d) = sharding
            .devices()
            .iter()
            .find(|&&d| d >= self.workers.len())
        {
            return Err(ControllerError::Ifrt(IfrtError::NoSuchDevice {
                device: d,
                devices: self.workers.len(),
            }));
        }
        Ok(())
    }

    /// Compiles `module` (a global SPMD program for every worker's device) on every worker.
    /// The workers get its HLO text, never the source it was written in.
    pub fn compile(&mut self, module: &Module) -> Result<RemoteExecutable> {
        let plan = ProgramPlan::new(module, None)?;
        if plan.devices.len() != self.workers.len() {
            return Err(ControllerError::Job(format!(
                "{} runs on {} devices; the job has {} workers",
                module.name,
                plan.devices.len(),
                self.workers.len()
            )));
        }
        self.compile_plan(module, plan, false)
    }

    /// Compiles `module` on the given workers only: partition `p` on worker `devices[p]`
    /// (XLA's device assignment; `None`: workers `0..n` for its `n` partitions). A program
    /// with collectives must still run on every worker (they split MPI communicators over
    /// the whole job).
    pub fn compile_on(
        &mut self,
        module: &Module,
        devices: Option<&[usize]>,
    ) -> Result<RemoteExecutable> {
        let plan = ProgramPlan::new(module, devices)?;
        if let Some(&d) = plan.devices.iter().find(|&&d| d >= self.workers.len()) {
            return Err(ControllerError::Ifrt(IfrtError::NoSuchDevice {
                device: d,
                devices: self.workers.len(),
            }));
        }
        self.compile_plan(module, plan, true)
    }

    fn compile_plan(
        &mut self,
        module: &Module,
        plan: ProgramPlan,
        assigned: bool,
    ) -> Result<RemoteExecutable> {
        let id = self.fresh_id();
        let program = module.to_string();
        let devices: Vec<u64> = plan.devices.iter().map(|&d| d as u64).collect();
        let requests = plan
            .devices
            .iter()
            .map(|&w| {
                let executable = id;
                let program = program.clone();
                let r = if assigned {
                    Request::CompileOn {
                        executable,
                        program,
                        devices: devices.clone(),
                    }
                } else {
                    Request::Compile {
                        executable,
                        program,
                    }
                };
                (w, r)
            })
            .collect();
        let replies = self.round(requests)?;
        for (w, r) in &replies {
            let Response::Compiled {
                device,
                parameters,
                results,
            } = r
            else {
                return Err(unexpected(*w, r));
            };
            let check = |specs: &[ArraySpec], got: &[ShardType], what: &str| -> Result<()> {
                let want: Vec<ShardType> = specs
                    .iter()
                    .map(|s| {
                        Ok(ShardType {
                            dtype: s.dtype,
                            dims: s.sharding.shard_dims(&s.dims)?,
                        })
                    })
                    .collect::<std::result::Result<_, IfrtError>>()?;
                if want != got {
                    return Err(ControllerError::Job(format!(
                        "worker {w} compiled {} with other {what} shapes than the controller planned",
                        module.name
                    )));
                }
                Ok(())
            };
            if *device as usize != *w {
                return Err(ControllerError::Job(format!(
                    "worker {w} runs device {device}"
                )));
            }
            check(&plan.parameters, parameters, "parameter")?;
            check(&plan.results, results, "result")?;
        }
        self.note(format!(
            "compile e{id} {}: {} parameters, {} results, on {} ({} bytes of HLO each)",
            module.name,
            plan.parameters.len(),
            plan.results.len(),
            if assigned {
                format!("workers {:?}", plan.devices)
            } else {
                format!("{} workers", self.workers.len())
            },
            program.len()
        ));
        Ok(RemoteExecutable {
            id,
            name: module.name.clone(),
            plan,
        })
    }

    /// Forgets `exe` on its workers.
    pub fn delete_executable(&mut self, exe: &RemoteExecutable) -> Result<()> {
        let requests = exe
            .plan
            .devices
            .iter()
            .map(|&w| (w, Request::DeleteExecutable { executable: exe.id }))
            .collect();
        self.round(requests)?;
        self.note(format!("delete-executable e{} {}", exe.id, exe.name));
        Ok(())
    }

    /// Cuts `host` into the shards of `sharding` and puts each on its worker.
    pub fn make_array_from_host(
        &mut self,
        host: &ArrayLiteral,
        sharding: Sharding,
    ) -> Result<RemoteArray> {
        self.check_devices(&sharding)?;
        let host = host.to_row_major();
        let dims = host.shape.dims.clone();
        let domains = sharding.index_domains(&dims)?;
        let id = self.fresh_id();
        let mut bytes = 0;
        let requests: Vec<(usize, Request)> = domains
            .iter()
            .map(|(device, domain)| {
                let mut data = empty_like(&host, &domain.dims());
                copy_box(&mut data, &IndexDomain::full(&domain.dims()), &host, domain);
                bytes += data.shape.byte_size();
                (*device, Request::MakeArray { array: id, data })
            })
            .collect();
        let n = requests.len();
        self.round(requests)?;
        let a = RemoteArray {
            id,
            dtype: host.shape.element_type,
            dims,
            sharding,
        };
        self.note(format!(
            "make-array {a} {}: {}, {bytes} bytes",
            a.sharding,
            count(n, "shard")
        ));
        Ok(a)
    }

    /// Runs `exe` on `args` (one per parameter, each in an equivalent sharding); the result
    /// arrays stay on the workers.
    pub fn execute(
        &mut self,
        exe: &RemoteExecutable,
        args: &[&RemoteArray],
    ) -> Result<Vec<RemoteArray>> {
        let params = &exe.plan.parameters;
        if args.len() != params.len() {
            return Err(ControllerError::Ifrt(IfrtError::ArgumentCount {
                expected: params.len(),
                given: args.len(),
            }));
        }
        for (i, (a, p)) in args.iter().zip(params).enumerate() {
            self.check_live(a)?;
            if a.dtype != p.dtype || a.dims != p.dims {
                return Err(ControllerError::Ifrt(IfrtError::ShapeMismatch {
                    what: format!("argument {i} ({a})"),
                    expected: crate::ifrt::shape_text(p.dtype, &p.dims),
                    given: crate::ifrt::shape_text(a.dtype, &a.dims),
                }));
            }
            if !a.sharding.is_equivalent(&p.sharding, &a.dims) {
                return Err(ControllerError::Ifrt(IfrtError::ShardingMismatch {
                    parameter: i,
                    expected: p.sharding.to_string(),
                    given: a.sharding.to_string(),
                }));
            }
        }
        let results: Vec<u64> = exe.plan.results.iter().map(|_| self.fresh_id()).collect();
        let arguments: Vec<u64> = args.iter().map(|a| a.id).collect();
        let requests = exe
            .plan
            .devices
            .iter()
            .map(|&w| {
                (
                    w,
                    Request::Execute {
                        executable: exe.id,
                        arguments: arguments.clone(),
                        results: results.clone(),
                    },
                )
            })
            .collect();
        for (w, r) in self.round(requests)? {
            if !matches!(r, Response::Executed { .. }) {
                return Err(unexpected(w, &r));
            }
        }
        let out: Vec<RemoteArray> = results
            .iter()
            .zip(&exe.plan.results)
            .map(|(&id, spec)| RemoteArray {
                id,
                dtype: spec.dtype,
                dims: spec.dims.clone(),
                sharding: spec.sharding.clone(),
            })
            .collect();
        let names = |v: &[u64]| {
            v.iter()
                .map(|i| format!("a{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        self.note(format!(
            "execute e{} {}({}) -> ({}) on {}",
            exe.id,
            exe.name,
            names(&arguments),
            names(&results),
            count(exe.plan.devices.len(), "worker")
        ));
        Ok(out)
    }

    /// Fetches one shard of each distinct box and assembles the global array.
    pub fn copy_to_host(&mut self, a: &RemoteArray) -> Result<ArrayLiteral> {
        self.check_live(a)?;
        let domains = a.sharding.index_domains(&a.dims)?;
        let mut wanted: Vec<(usize, IndexDomain)> = Vec::new();
        for (device, domain) in domains {
            if !wanted.iter().any(|(_, d)| *d == domain) {
                wanted.push((device, domain));
            }
        }
        let requests = wanted
            .iter()
            .map(|(w, _)| (*w, Request::Fetch { array: a.id }))
            .collect();
        let replies = self.round(requests)?;
        let mut out = ArrayLiteral::zeros(crate::ir::ArrayShape::new(a.dtype, &a.dims));
        let mut bytes = 0;
        for ((w, r), (_, domain)) in replies.iter().zip(&wanted) {
            let Response::Array(shard) = r else {
                return Err(unexpected(*w, r));
            };
            if !copy_box(
                &mut out,
                domain,
                shard,
                &IndexDomain::full(&shard.shape.dims),
            ) {
                return Err(ControllerError::Protocol {
                    worker: *w,
                    got: format!(
                        "a shard of {} for box {domain} of {a}",
                        crate::ir::Shape::Array(shard.shape.clone())
                    ),
                });
            }
            bytes += shard.shape.byte_size();
        }
        let from: Vec<String> = wanted.iter().map(|(w, _)| w.to_string()).collect();
        self.note(format!(
            "fetch {a}: {}, {bytes} bytes from {} {}",
            count(wanted.len(), "shard"),
            if from.len() == 1 { "worker" } else { "workers" },
            from.join(", ")
        ));
        Ok(out)
    }

    /// Moves `a` to `to`: every destination shard is assembled from the source shards that
    /// overlap it, fetched once each, then put on its worker. `a` stays as it was.
    pub fn reshard(&mut self, a: &RemoteArray, to: Sharding) -> Result<RemoteArray> {
        self.check_live(a)?;
        self.check_devices(&to)?;
        let sources = a.sharding.index_domains(&a.dims)?;
        let targets = to.index_domains(&a.dims)?;
        // The source shards each target needs, one per distinct box.
        let mut needed: Vec<(usize, IndexDomain)> = Vec::new();
        for (_, t) in &targets {
            for (d, s) in &sources {
                if s.intersect(t).is_some() && !needed.iter().any(|(_, n)| n == s) {
                    needed.push((*d, s.clone()));
                }
            }
        }
        let requests = needed
            .iter()
            .map(|(w, _)| (*w, Request::Fetch { array: a.id }))
            .collect();
        let replies = self.round(requests)?;
        let mut fetched = Vec::with_capacity(replies.len());
        for ((w, r), (_, domain)) in replies.into_iter().zip(&needed) {
            let Response::Array(shard) = r else {
                return Err(unexpected(w, &r));
            };
            fetched.push((domain.clone(), shard));
        }
        let id = self.fresh_id();
        let requests: Vec<(usize, Request)> = targets
            .iter()
            .map(|(device, t)| {
                let template = &fetched[0].1;
                let mut data = empty_like(template, &t.dims());
                for (s, shard) in &fetched {
                    if let Some(common) = s.intersect(t) {
                        copy_box(
                            &mut data,
                            &common.relative_to(t),
                            shard,
                            &common.relative_to(s),
                        );
                    }
                }
                (*device, Request::MakeArray { array: id, data })
            })
            .collect();
        let puts = requests.len();
        self.round(requests)?;
        let b = RemoteArray {
            id,
            dtype: a.dtype,
            dims: a.dims.clone(),
            sharding: to,
        };
        self.note(format!(
            "reshard {a} {} -> a{id} {}: {} fetched, {puts} put",
            a.sharding,
            b.sharding,
            count(needed.len(), "shard")
        ));
        Ok(b)
    }

    /// Deletes `a` on every worker holding a shard; later uses of it fail.
    pub fn delete(&mut self, a: &RemoteArray) -> Result<()> {
        self.check_live(a)?;
        let devices: Vec<usize> = a
            .sharding
            .index_domains(&a.dims)?
            .into_iter()
            .map(|d| d.0)
            .collect();
        let requests = devices
            .iter()
            .map(|&w| (w, Request::Delete { array: a.id }))
            .collect();
        self.round(requests)?;
        self.deleted.insert(a.id);
        self.note(format!("delete {a} on {} workers", devices.len()));
        Ok(())
    }

    /// Ends the session: every worker drops its arrays and executables.
    pub fn close(mut self) -> Result<()> {
        let requests = (0..self.workers.len()).map(|w| (w, Request::Bye)).collect();
        self.round(requests)?;
        self.note("bye".into());
        Ok(())
    }
}

fn exchange(c: &mut Connection, worker: usize, r: &Request, limit: u64) -> Result<Response> {
    write_frame(&mut c.stream, &r.encode()).map_err(|e| ControllerError::Connection {
        worker,
        error: FrameError::Io(e),
    })?;
    match receive(c, worker, limit)? {
        Response::Error { kind, message } => Err(ControllerError::Refused {
            worker,
            kind,
            message,
        }),
        r => Ok(r),
    }
}

fn receive(c: &mut Connection, worker: usize, limit: u64) -> Result<Response> {
    let frame = read_frame(&mut c.stream, limit)
        .map_err(|error| ControllerError::Connection { worker, error })?;
    Response::decode(&frame).map_err(|error| ControllerError::Decode { worker, error })
}

/// `1 shard`, `4 shards`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn unexpected(worker: usize, r: &Response) -> ControllerError {
    let got = match r {
        Response::Error { .. } => "an error",
        Response::Welcome { .. } => "a welcome",
        Response::Compiled { .. } => "a compiled",
        Response::Done => "a done",
        Response::Executed { .. } => "an executed",
        Response::Array(_) => "an array",
    };
    ControllerError::Protocol {
        worker,
        got: got.into(),
    }
}
