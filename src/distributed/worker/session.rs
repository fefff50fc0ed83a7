//! What one controller's session holds (compiled programs, arrays, deleted ids) and how it
//! answers each request: compile, put, fetch, execute, delete. A request that cannot be
//! honoured becomes an error reply with its kind.

use std::collections::{HashMap, HashSet};
use std::net::TcpStream;
use std::sync::Arc;

use super::{ServeOptions, Transport, compile, while_connected};
use crate::compiler::LoadedDevices;
use crate::distributed::protocol::{ErrorKind, Request, Response, ShardType};
use crate::eval::limits::{Cancel, RunLimits};
use crate::ir::{ArrayLiteral, Literal, Shape};
use crate::runtime::collectives::{CollectiveMode, Collectives, InProcess};

/// One compiled program: this worker's device of it.
pub(super) struct LoadedProgram {
    pub(super) name: String,
    pub(super) loaded: LoadedDevices,
    pub(super) device: usize,
    pub(super) parameters: Vec<ShardType>,
    pub(super) results: Vec<ShardType>,
    /// The MPI collectives, split once at compile (every worker compiles in the same order).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(super) collectives: Option<Arc<dyn Collectives>>,
}
/// What one controller's session holds.
#[derive(Default)]
pub(super) struct Session {
    executables: HashMap<u64, LoadedProgram>,
    arrays: HashMap<u64, Literal>,
    deleted: HashSet<u64>,
}

/// An error reply.
pub(super) fn refuse(kind: ErrorKind, message: impl Into<String>) -> Response {
    Refusal::new(kind, message).into()
}

/// Why a request is refused, before it becomes the error reply.
pub(super) struct Refusal {
    kind: ErrorKind,
    message: String,
}

impl Refusal {
    pub(super) fn new(kind: ErrorKind, message: impl Into<String>) -> Refusal {
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

pub(super) fn shard_types(shape: &[Shape], what: &str) -> Result<Vec<ShardType>, Refusal> {
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

/// One log line's description of a request (never its data).
pub(super) fn describe(r: &Request) -> String {
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
pub(super) enum Reply {
    Message(Response),
    Encoded(Vec<u8>),
}

impl Reply {
    pub(super) fn into_bytes(self) -> Vec<u8> {
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
    pub(super) fn handle(
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
