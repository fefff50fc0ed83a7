//! The controller/worker messages, modelled on IFRT's proxy
//! (`xla/python/ifrt_proxy/common/ifrt_service.proto`: `CompileRequest`,
//! `MakeArrayFromHostBufferRequest`, `LoadedExecutableExecuteRequest`,
//! `CopyToHostBufferRequest`, `DeleteArrayRequest`). One request per IFRT call; the
//! controller names every executable and array with an id it chooses, so a worker never
//! invents a handle.
//!
//! The encoding is explicit little-endian, written out here rather than derived, because it
//! is part of what a learner reads and the Python client (`jax_plugins/xlac/controller.py`)
//! speaks it too. A message is one frame ([`super::frame`]); inside it:
//!
//! ```text
//! message  = tag:u8 field*
//! u32/u64  = little-endian          i64 = little-endian two's complement
//! bytes    = len:u64 byte*          str = bytes (UTF-8)
//! list<T>  = count:u64 T*           dtype = str (HLO's name: "f32", "s32", "pred", ...)
//! array    = dtype dims:list<i64> data:bytes   (row-major, data.len = product(dims) * size)
//! ```
//!
//! Decoding checks every length against the bytes that remain before it allocates, so a
//! message can claim no more memory than it occupies.

use std::fmt;

use crate::ir::{ArrayLiteral, ArrayShape, PrimitiveType, Shape};

/// The protocol's version; a controller and a worker of different versions refuse each
/// other at the handshake.
pub const PROTOCOL_VERSION: u32 = 1;

/// The most dimensions an array of a message may have (HLO has no limit; this one stops a
/// message from claiming millions).
pub const MAX_RANK: usize = 64;

/// What a controller asks a worker.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// The first message of a connection: the protocol version and the shared secret.
    Hello {
        /// [`PROTOCOL_VERSION`] of the controller.
        version: u32,
        /// The token.
        token: Vec<u8>,
    },
    /// Compile a global (SPMD) program for the job's devices; the worker keeps its own
    /// device's executable under `executable`.
    Compile {
        /// The id the controller gives it.
        executable: u64,
        /// The program: HLO text or StableHLO text.
        program: String,
    },
    /// Keep `data` as this worker's shard of array `array`.
    MakeArray {
        /// The id the controller gives the array.
        array: u64,
        /// The shard.
        data: ArrayLiteral,
    },
    /// Run `executable` on this worker's shards of `arguments`; keep the result leaves as
    /// this worker's shards of `results` (one id per leaf).
    Execute {
        /// The executable.
        executable: u64,
        /// One array per parameter.
        arguments: Vec<u64>,
        /// One new id per result leaf.
        results: Vec<u64>,
    },
    /// Send back this worker's shard of `array`.
    Fetch {
        /// The array.
        array: u64,
    },
    /// Forget this worker's shard of `array`.
    Delete {
        /// The array.
        array: u64,
    },
    /// Forget executable `executable`.
    DeleteExecutable {
        /// The executable.
        executable: u64,
    },
    /// The controller is done: the worker drops the session's arrays and executables.
    Bye,
    /// Compile a global (SPMD) program for the given workers' devices only: partition `p`
    /// runs on worker `devices[p]` (XLA's device assignment). Sent to those workers alone;
    /// their collectives run on communicators of just them.
    CompileOn {
        /// The id the controller gives it.
        executable: u64,
        /// The program: HLO text or StableHLO text.
        program: String,
        /// The worker of each partition.
        devices: Vec<u64>,
    },
}

/// Why a worker refused a request (the kind travels in the message, not in its words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The token was wrong or missing, or the versions differ.
    Unauthenticated,
    /// Another controller holds this worker.
    Busy,
    /// The message could not be decoded, or broke a limit.
    BadMessage,
    /// An id names nothing (never made, or deleted).
    NotFound,
    /// The request was valid but could not be carried out (a compile error, a failed run,
    /// a shape that does not match).
    Failed,
}

impl ErrorKind {
    fn code(self) -> u8 {
        match self {
            ErrorKind::Unauthenticated => 1,
            ErrorKind::Busy => 2,
            ErrorKind::BadMessage => 3,
            ErrorKind::NotFound => 4,
            ErrorKind::Failed => 5,
        }
    }

    fn from_code(code: u8) -> Option<ErrorKind> {
        Some(match code {
            1 => ErrorKind::Unauthenticated,
            2 => ErrorKind::Busy,
            3 => ErrorKind::BadMessage,
            4 => ErrorKind::NotFound,
            5 => ErrorKind::Failed,
            _ => return None,
        })
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Unauthenticated => "unauthenticated",
            ErrorKind::Busy => "busy",
            ErrorKind::BadMessage => "bad message",
            ErrorKind::NotFound => "not found",
            ErrorKind::Failed => "failed",
        })
    }
}

/// One array's type, as a worker reports its shards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardType {
    /// Element type.
    pub dtype: PrimitiveType,
    /// Dimensions of this worker's shard.
    pub dims: Vec<i64>,
}

/// What a worker answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    /// The request was refused.
    Error {
        /// Why, as a kind.
        kind: ErrorKind,
        /// xlac's one-line message.
        message: String,
    },
    /// The handshake succeeded.
    Welcome {
        /// This worker's index in the job (its MPI rank; 0 for a lone worker).
        worker: u32,
        /// How many workers the job has.
        workers: u32,
    },
    /// The program compiled; the shard types this worker's device takes and returns.
    Compiled {
        /// The device this worker runs.
        device: u32,
        /// One per parameter.
        parameters: Vec<ShardType>,
        /// One per result leaf.
        results: Vec<ShardType>,
    },
    /// Done, nothing to return.
    Done,
    /// An executable ran; its result shards are kept.
    Executed {
        /// One per result leaf.
        results: Vec<ShardType>,
    },
    /// A shard's data.
    Array(ArrayLiteral),
}

/// A message that does not decode: where, and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset in the message.
    pub offset: usize,
    /// What was expected.
    pub expected: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: expected {}", self.offset, self.expected)
    }
}

impl std::error::Error for DecodeError {}

// ---- encoding --------------------------------------------------------------------------

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    fn ids(&mut self, ids: &[u64]) {
        self.u64(ids.len() as u64);
        for &i in ids {
            self.u64(i);
        }
    }
    fn dims(&mut self, dims: &[i64]) {
        self.u64(dims.len() as u64);
        for &d in dims {
            self.0.extend_from_slice(&d.to_le_bytes());
        }
    }
    fn shard_types(&mut self, types: &[ShardType]) {
        self.u64(types.len() as u64);
        for t in types {
            self.str(&t.dtype.to_string());
            self.dims(&t.dims);
        }
    }
    fn array(&mut self, a: &ArrayLiteral) {
        // Copied only when it is not row-major already: a reply of a large array must not
        // double the memory it takes.
        let a = if a.is_row_major() {
            std::borrow::Cow::Borrowed(a)
        } else {
            std::borrow::Cow::Owned(a.to_row_major())
        };
        self.str(&a.shape.element_type.to_string());
        self.dims(&a.shape.dims);
        self.bytes(crate::runtime::buffers::literal_bytes(&a));
    }
}

impl Request {
    /// The message's bytes (without the frame header).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        match self {
            Request::Hello { version, token } => {
                w.u8(1);
                w.u32(*version);
                w.bytes(token);
            }
            Request::Compile {
                executable,
                program,
            } => {
                w.u8(2);
                w.u64(*executable);
                w.str(program);
            }
            Request::MakeArray { array, data } => {
                w.u8(3);
                w.u64(*array);
                w.array(data);
            }
            Request::Execute {
                executable,
                arguments,
                results,
            } => {
                w.u8(4);
                w.u64(*executable);
                w.ids(arguments);
                w.ids(results);
            }
            Request::Fetch { array } => {
                w.u8(5);
                w.u64(*array);
            }
            Request::Delete { array } => {
                w.u8(6);
                w.u64(*array);
            }
            Request::DeleteExecutable { executable } => {
                w.u8(7);
                w.u64(*executable);
            }
            Request::Bye => w.u8(8),
            Request::CompileOn {
                executable,
                program,
                devices,
            } => {
                w.u8(9);
                w.u64(*executable);
                w.str(program);
                w.ids(devices);
            }
        }
        w.0
    }

    /// Reads one request; every field is checked before it is used.
    pub fn decode(bytes: &[u8]) -> Result<Request, DecodeError> {
        let mut r = Reader { bytes, at: 0 };
        let request = match r.u8("a request tag")? {
            1 => Request::Hello {
                version: r.u32("the protocol version")?,
                token: r.bytes("the token")?.to_vec(),
            },
            2 => Request::Compile {
                executable: r.u64("an executable id")?,
                program: r.str("the program text")?,
            },
            3 => Request::MakeArray {
                array: r.u64("an array id")?,
                data: r.array()?,
            },
            4 => Request::Execute {
                executable: r.u64("an executable id")?,
                arguments: r.ids("argument ids")?,
                results: r.ids("result ids")?,
            },
            5 => Request::Fetch {
                array: r.u64("an array id")?,
            },
            6 => Request::Delete {
                array: r.u64("an array id")?,
            },
            7 => Request::DeleteExecutable {
                executable: r.u64("an executable id")?,
            },
            8 => Request::Bye,
            9 => Request::CompileOn {
                executable: r.u64("an executable id")?,
                program: r.str("the program text")?,
                devices: r.ids("the partitions' workers")?,
            },
            t => {
                return Err(DecodeError {
                    offset: 0,
                    expected: format!("a request tag 1-9, not {t}"),
                });
            }
        };
        r.end()?;
        Ok(request)
    }

    /// The request's name, as the logs print it.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Hello { .. } => "hello",
            Request::Compile { .. } => "compile",
            Request::MakeArray { .. } => "make-array",
            Request::Execute { .. } => "execute",
            Request::Fetch { .. } => "fetch",
            Request::Delete { .. } => "delete",
            Request::DeleteExecutable { .. } => "delete-executable",
            Request::Bye => "bye",
            Request::CompileOn { .. } => "compile-on",
        }
    }
}

impl Response {
    /// The message's bytes (without the frame header).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        match self {
            Response::Error { kind, message } => {
                w.u8(0);
                w.u8(kind.code());
                w.str(message);
            }
            Response::Welcome { worker, workers } => {
                w.u8(1);
                w.u32(*worker);
                w.u32(*workers);
            }
            Response::Compiled {
                device,
                parameters,
                results,
            } => {
                w.u8(2);
                w.u32(*device);
                w.shard_types(parameters);
                w.shard_types(results);
            }
            Response::Done => w.u8(3),
            Response::Executed { results } => {
                w.u8(4);
                w.shard_types(results);
            }
            Response::Array(a) => {
                w.u8(5);
                w.array(a);
            }
        }
        w.0
    }

    /// The bytes of `Response::Array(a)`, encoded from `a` where it lies (no copy of the
    /// array first), or an error when the process cannot hold them.
    pub fn encode_array(a: &ArrayLiteral) -> Result<Vec<u8>, crate::ir::size::AllocError> {
        let data = crate::runtime::buffers::literal_bytes(a).len();
        let header = 64 + 8 * a.shape.dims.len();
        let mut w = Writer(crate::ir::size::try_vec_with_capacity(
            data.saturating_add(header),
            || format!("the reply of {}", Shape::Array(a.shape.clone())),
        )?);
        w.u8(5);
        w.array(a);
        Ok(w.0)
    }

    /// Reads one response; every field is checked before it is used.
    pub fn decode(bytes: &[u8]) -> Result<Response, DecodeError> {
        let mut r = Reader { bytes, at: 0 };
        let response = match r.u8("a response tag")? {
            0 => {
                let at = r.at;
                let code = r.u8("an error kind")?;
                let kind = ErrorKind::from_code(code).ok_or_else(|| DecodeError {
                    offset: at,
                    expected: format!("an error kind 1-5, not {code}"),
                })?;
                Response::Error {
                    kind,
                    message: r.str("an error message")?,
                }
            }
            1 => Response::Welcome {
                worker: r.u32("the worker's index")?,
                workers: r.u32("the worker count")?,
            },
            2 => Response::Compiled {
                device: r.u32("a device id")?,
                parameters: r.shard_types()?,
                results: r.shard_types()?,
            },
            3 => Response::Done,
            4 => Response::Executed {
                results: r.shard_types()?,
            },
            5 => Response::Array(r.array()?),
            t => {
                return Err(DecodeError {
                    offset: 0,
                    expected: format!("a response tag 0-5, not {t}"),
                });
            }
        };
        r.end()?;
        Ok(response)
    }
}

// ---- decoding --------------------------------------------------------------------------

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn fail<T>(&self, expected: impl Into<String>) -> Result<T, DecodeError> {
        Err(DecodeError {
            offset: self.at,
            expected: expected.into(),
        })
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        if self.bytes.len() - self.at < n {
            return self.fail(format!(
                "{what} ({n} bytes; {} remain)",
                self.bytes.len() - self.at
            ));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn u8(&mut self, what: &str) -> Result<u8, DecodeError> {
        Ok(self.take(1, what)?[0])
    }

    fn u32(&mut self, what: &str) -> Result<u32, DecodeError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    fn u64(&mut self, what: &str) -> Result<u64, DecodeError> {
        let b = self.take(8, what)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    /// A count of items of at least `item_bytes` each, checked against what remains.
    fn count(&mut self, item_bytes: usize, what: &str) -> Result<usize, DecodeError> {
        let at = self.at;
        let n = self.u64(what)?;
        let remain = (self.bytes.len() - self.at) as u64;
        if n.checked_mul(item_bytes as u64).is_none_or(|b| b > remain) {
            return Err(DecodeError {
                offset: at,
                expected: format!("{what}: a count of at most {remain} bytes' worth, not {n}"),
            });
        }
        Ok(n as usize)
    }

    fn bytes(&mut self, what: &str) -> Result<&'a [u8], DecodeError> {
        let n = self.count(1, what)?;
        self.take(n, what)
    }

    fn str(&mut self, what: &str) -> Result<String, DecodeError> {
        let at = self.at;
        let b = self.bytes(what)?;
        String::from_utf8(b.to_vec()).map_err(|_| DecodeError {
            offset: at,
            expected: format!("{what} in UTF-8"),
        })
    }

    fn ids(&mut self, what: &str) -> Result<Vec<u64>, DecodeError> {
        let n = self.count(8, what)?;
        (0..n).map(|_| self.u64(what)).collect()
    }

    fn dtype(&mut self) -> Result<PrimitiveType, DecodeError> {
        let at = self.at;
        let name = self.str("an element type")?;
        match name.parse::<PrimitiveType>() {
            Ok(t) if t.is_executable() => Ok(t),
            _ => Err(DecodeError {
                offset: at,
                expected: format!("an array element type, not {name:?}"),
            }),
        }
    }

    fn dims(&mut self) -> Result<Vec<i64>, DecodeError> {
        let at = self.at;
        let n = self.count(8, "dimensions")?;
        if n > MAX_RANK {
            return Err(DecodeError {
                offset: at,
                expected: format!("at most {MAX_RANK} dimensions, not {n}"),
            });
        }
        let mut dims = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.at;
            let d = self.u64("a dimension")? as i64;
            if d < 0 {
                return Err(DecodeError {
                    offset: at,
                    expected: format!("a dimension of at least 0, not {d}"),
                });
            }
            dims.push(d);
        }
        Ok(dims)
    }

    fn shard_types(&mut self) -> Result<Vec<ShardType>, DecodeError> {
        // An entry is at least a dtype (8-byte length + 1) and a dims count (8).
        let n = self.count(17, "shard types")?;
        (0..n)
            .map(|_| {
                Ok(ShardType {
                    dtype: self.dtype()?,
                    dims: self.dims()?,
                })
            })
            .collect()
    }

    fn array(&mut self) -> Result<ArrayLiteral, DecodeError> {
        let dtype = self.dtype()?;
        let dims = self.dims()?;
        let at = self.at;
        let data = self.bytes("array data")?;
        let want = crate::ir::size::byte_size(dtype, &dims);
        if want != Some(data.len() as u64) {
            return Err(DecodeError {
                offset: at,
                expected: format!(
                    "{} bytes of {} data, not {}",
                    want.map_or("more than 2^64".to_string(), |w| w.to_string()),
                    crate::ifrt::shape_text(dtype, &dims),
                    data.len()
                ),
            });
        }
        if dtype == PrimitiveType::Pred
            && let Some(i) = data.iter().position(|&b| b > 1)
        {
            return Err(DecodeError {
                offset: at + 8 + i,
                expected: format!("a pred byte (0 or 1), not {}", data[i]),
            });
        }
        let shape = ArrayShape::new(dtype, &dims);
        // SAFETY: `data` holds exactly `shape.byte_size()` bytes (checked above), row-major.
        Ok(unsafe { crate::runtime::buffers::read_array(data.as_ptr(), &shape) })
    }

    fn end(&self) -> Result<(), DecodeError> {
        if self.at != self.bytes.len() {
            return self.fail(format!(
                "the end of the message ({} bytes left over)",
                self.bytes.len() - self.at
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requests() -> Vec<Request> {
        vec![
            Request::Hello {
                version: PROTOCOL_VERSION,
                token: b"secret".to_vec(),
            },
            Request::Compile {
                executable: 7,
                program: "HloModule m\nENTRY e { ROOT p = f32[] parameter(0) }".into(),
            },
            Request::MakeArray {
                array: 3,
                data: ArrayLiteral::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]),
            },
            Request::MakeArray {
                array: 4,
                data: ArrayLiteral::from_vec(&[0, 5], Vec::<i32>::new()),
            },
            Request::Execute {
                executable: 7,
                arguments: vec![3, 4],
                results: vec![9],
            },
            Request::Fetch { array: 9 },
            Request::Delete { array: 3 },
            Request::DeleteExecutable { executable: 7 },
            Request::Bye,
            Request::CompileOn {
                executable: 8,
                program: "HloModule m\nENTRY e { ROOT p = f32[] parameter(0) }".into(),
                devices: vec![2],
            },
        ]
    }

    #[test]
    fn requests_and_responses_round_trip() {
        for r in requests() {
            assert_eq!(Request::decode(&r.encode()), Ok(r.clone()), "{}", r.name());
        }
        let responses = [
            Response::Error {
                kind: ErrorKind::NotFound,
                message: "array 3 was deleted".into(),
            },
            Response::Welcome {
                worker: 2,
                workers: 4,
            },
            Response::Compiled {
                device: 2,
                parameters: vec![ShardType {
                    dtype: PrimitiveType::F32,
                    dims: vec![16, 32],
                }],
                results: vec![],
            },
            Response::Done,
            Response::Executed { results: vec![] },
            Response::Array(ArrayLiteral::from_vec(&[3], vec![true, false, true])),
        ];
        for r in responses {
            assert_eq!(Response::decode(&r.encode()), Ok(r.clone()));
        }
    }

    #[test]
    fn every_truncation_is_an_error_naming_its_offset() {
        for r in requests() {
            let bytes = r.encode();
            for cut in 0..bytes.len() {
                let e = Request::decode(&bytes[..cut]).unwrap_err();
                assert!(e.offset <= cut, "{}: {e} past the cut {cut}", r.name());
            }
            let mut longer = bytes.clone();
            longer.push(0);
            let e = Request::decode(&longer).unwrap_err();
            assert_eq!(e.offset, bytes.len());
        }
    }

    #[test]
    fn lengths_are_checked_before_anything_is_allocated() {
        // A make-array whose data claims 2^60 bytes, in a 60-byte message.
        let mut bytes = vec![3];
        bytes.extend(1u64.to_le_bytes());
        bytes.extend(3u64.to_le_bytes());
        bytes.extend(b"f32");
        bytes.extend(1u64.to_le_bytes());
        bytes.extend((1i64 << 58).to_le_bytes());
        bytes.extend((1u64 << 60).to_le_bytes());
        let e = Request::decode(&bytes).unwrap_err();
        assert!(e.expected.contains("array data"), "{e}");
        // An execute with 2^61 argument ids.
        let mut bytes = vec![4];
        bytes.extend(1u64.to_le_bytes());
        bytes.extend((1u64 << 61).to_le_bytes());
        let e = Request::decode(&bytes).unwrap_err();
        assert_eq!(e.offset, 9, "{e}");
        // A shape whose data does not match its dims.
        let mut bytes = vec![3];
        bytes.extend(1u64.to_le_bytes());
        bytes.extend(3u64.to_le_bytes());
        bytes.extend(b"f32");
        bytes.extend(1u64.to_le_bytes());
        bytes.extend(4i64.to_le_bytes());
        bytes.extend(8u64.to_le_bytes());
        bytes.extend([0u8; 8]);
        let e = Request::decode(&bytes).unwrap_err();
        assert!(e.expected.contains("16 bytes of f32[4] data, not 8"), "{e}");
    }

    #[test]
    fn unknown_tags_types_and_negative_dims_are_refused() {
        assert!(Request::decode(&[0]).is_err());
        assert!(Request::decode(&[99]).is_err());
        assert!(Request::decode(&[]).is_err());
        let mut bytes = vec![3];
        bytes.extend(1u64.to_le_bytes());
        bytes.extend(5u64.to_le_bytes());
        bytes.extend(b"token");
        bytes.extend(0u64.to_le_bytes());
        bytes.extend(0u64.to_le_bytes());
        assert!(
            Request::decode(&bytes)
                .unwrap_err()
                .expected
                .contains("element type")
        );
        let mut bytes = vec![3];
        bytes.extend(1u64.to_le_bytes());
        bytes.extend(3u64.to_le_bytes());
        bytes.extend(b"f32");
        bytes.extend(1u64.to_le_bytes());
        bytes.extend((-1i64).to_le_bytes());
        assert!(
            Request::decode(&bytes)
                .unwrap_err()
                .expected
                .contains("at least 0")
        );
    }
}
