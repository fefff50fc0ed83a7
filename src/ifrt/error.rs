//! What can go wrong in the IFRT API, one variant per kind; each prints as one line.

use std::fmt;

use super::DeviceId;

/// An IFRT error.
#[derive(Clone, Debug, PartialEq)]
pub enum IfrtError {
    /// A client of 0 devices, or more than [`super::MAX_DEVICES`].
    DeviceCount {
        /// Devices asked for.
        requested: usize,
    },
    /// A program for more devices than xlac runs (its `num_partitions=` or
    /// `replica_count=`).
    Grid(crate::runtime::collectives::DeviceCountError),
    /// A device id the client does not have.
    NoSuchDevice {
        /// The id.
        device: DeviceId,
        /// The client's device count.
        devices: usize,
    },
    /// A mesh or partition spec that does not make sense (sizes, names, devices).
    BadMesh(String),
    /// A sharding that does not fit the array (rank, device count, kind).
    BadSharding(String),
    /// A dimension the sharding splits into unequal parts (jax refuses these in
    /// `device_put`, and so does `make_array_from_host`).
    UnevenSharding {
        /// The sharding, as printed.
        sharding: String,
        /// The dimension.
        dim: usize,
        /// Its size.
        size: i64,
        /// Into how many parts it is split.
        parts: i64,
    },
    /// A shape that differs from the expected one.
    ShapeMismatch {
        /// What has the shape.
        what: String,
        /// The shape expected, as `f32[8,16]`.
        expected: String,
        /// The shape given.
        given: String,
    },
    /// An array on the wrong devices, or single-device arrays that do not match a sharding.
    DeviceMismatch(String),
    /// An array used after [`super::Array::delete`].
    ArrayDeleted {
        /// Which array, as the caller's operation names it.
        what: String,
    },
    /// A call with the wrong number of arguments.
    ArgumentCount {
        /// Parameters of the executable.
        expected: usize,
        /// Arrays given.
        given: usize,
    },
    /// An argument whose sharding puts other data on the devices than the executable's
    /// parameter expects (reshard it first).
    ShardingMismatch {
        /// The parameter number.
        parameter: usize,
        /// The parameter's sharding.
        expected: String,
        /// The argument's.
        given: String,
    },
    /// The module did not partition or compile.
    Compile(String),
    /// A run failed (a collective mismatch, a deadlock report's headline, a device error).
    Execute(String),
    /// Something the API does not do yet.
    Unsupported(String),
}

impl fmt::Display for IfrtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IfrtError::DeviceCount { requested } => write!(
                f,
                "a client needs 1 to {} devices, not {requested}",
                super::MAX_DEVICES
            ),
            IfrtError::Grid(e) => write!(f, "{e}"),
            IfrtError::NoSuchDevice { device, devices } => {
                write!(
                    f,
                    "device {device} does not exist (the client has {devices})"
                )
            }
            IfrtError::BadMesh(m) | IfrtError::BadSharding(m) | IfrtError::DeviceMismatch(m) => {
                f.write_str(m)
            }
            IfrtError::UnevenSharding {
                sharding,
                dim,
                size,
                parts,
            } => write!(
                f,
                "{sharding} splits dimension {dim} of size {size} into {parts} parts; the parts must be equal"
            ),
            IfrtError::ShapeMismatch {
                what,
                expected,
                given,
            } => write!(f, "{what} is {given}, expected {expected}"),
            IfrtError::ArrayDeleted { what } => write!(f, "{what} was deleted"),
            IfrtError::ArgumentCount { expected, given } => write!(
                f,
                "the executable takes {expected} arrays, {given} were given"
            ),
            IfrtError::ShardingMismatch {
                parameter,
                expected,
                given,
            } => write!(
                f,
                "parameter {parameter} expects {expected}, the array is {given} (reshard it first)"
            ),
            IfrtError::Compile(m) => write!(f, "compile: {m}"),
            IfrtError::Execute(m) => write!(f, "execute: {m}"),
            IfrtError::Unsupported(m) => write!(f, "not supported: {m}"),
        }
    }
}

impl std::error::Error for IfrtError {}

/// Results of the IFRT API.
pub type Result<T> = std::result::Result<T, IfrtError>;
