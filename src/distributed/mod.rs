//! Beyond one process without MPI's launcher deciding who does what: the single
//! controller. A controller process ([`Controller`]) holds the program and the arrays'
//! metadata; worker processes (`xlac serve`, [`Worker`]) hold the shards and run their
//! device's program when told to. Requests are modelled on IFRT's proxy: compile,
//! make-array, execute, fetch, reshard (fetches and puts the controller plans), delete.
//!
//! - [`protocol`]: the messages and their checked encoding;
//! - [`frame`]: length-prefixed frames with size limits;
//! - [`token`]: the shared secret a controller presents first;
//! - [`worker`]: `xlac serve`;
//! - [`controller`]: the controller API (the Python client in
//!   `python/jax_plugins/xlac/controller.py` speaks the same protocol).
//!
//! The workers of one job meet only in collectives, over MPI when started by `mpirun`
//! (cargo feature `mpi`); the controller is not in the data path of a collective.

pub mod controller;
pub mod frame;
pub mod protocol;
pub mod token;
pub mod worker;

pub use controller::{Controller, ControllerError, RemoteArray, RemoteExecutable};
pub use protocol::{ErrorKind, Request, Response};
pub use token::{TOKEN_ENV, Token, TokenError};
pub use worker::{ServeOptions, Transport, Worker, WorkerLog};
