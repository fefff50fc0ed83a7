//! Array sizes, checked: the one place where element counts and byte sizes are computed
//! from dimensions, and where an allocation sized by the input is decided.
//!
//! Every dimension list comes from a file someone else wrote, so `f32[4294967296,4294967296]`
//! (whose element count wraps a `u64` to 0) or `s32[2^62]` must be an error, never a wrapped
//! size that a kernel then reads past. Three rules:
//!
//! - Counts and sizes are checked products ([`element_count`], [`byte_size`]): a negative
//!   dimension or an overflow is a [`SizeError`].
//! - One array may hold at most [`max_array_bytes`] bytes (default
//!   [`DEFAULT_MAX_ARRAY_BYTES`], 2^40 = 1 TiB; `--max-array-bytes B` changes it for the
//!   process). The verifier rejects any instruction whose shape is larger
//!   ([`check_shape`]), so nothing downstream (buffer assignment, codegen, the runtime)
//!   ever sees a size that does not fit comfortably in an `i64`.
//! - Memory whose size the input decides (random parameters, splat and iota constants, `.npy`
//!   payloads, the executable's buffers) is requested through [`check_allocation`] or
//!   [`try_filled_vec`]: over the cap, over the machine's memory, or refused by the allocator,
//!   it is one [`AllocError`] (`cannot allocate N bytes for parameter 0 (f32[...])`), never
//!   Rust's abort on allocation failure.
//!
//! XLA: `ShapeUtil::ByteSizeOf` and `ShapeUtil::ValidateShape` (which rejects shapes whose
//! size overflows `int64`).

use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{ArrayShape, PrimitiveType, Shape};

/// The default largest array, in bytes: 2^40 (1 TiB).
pub const DEFAULT_MAX_ARRAY_BYTES: u64 = 1 << 40;

/// The highest cap `--max-array-bytes` accepts: 2^62, so that any byte offset into an
/// array, plus a few vector widths, still fits in the `i64` arithmetic of generated code.
pub const MAX_SETTABLE_ARRAY_BYTES: u64 = 1 << 62;

static MAX_ARRAY_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_ARRAY_BYTES);

/// The largest array this process accepts, in bytes.
pub fn max_array_bytes() -> u64 {
    MAX_ARRAY_BYTES.load(Ordering::Relaxed)
}

/// Sets the largest array this process accepts (`--max-array-bytes`), clamped to
/// [`MAX_SETTABLE_ARRAY_BYTES`]. Process-wide because the check sits in the verifier, the
/// parsers and the runtime alike; the CLI sets it once before loading anything.
pub fn set_max_array_bytes(bytes: u64) {
    MAX_ARRAY_BYTES.store(bytes.min(MAX_SETTABLE_ARRAY_BYTES), Ordering::Relaxed);
}

/// Why a shape has no usable size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeError {
    /// A dimension is negative.
    NegativeDimension {
        /// The shape, as error messages print it.
        shape: String,
        /// The dimension's value.
        dimension: i64,
    },
    /// The element count or the byte size does not fit in 64 bits.
    Overflow {
        /// The shape, as error messages print it.
        shape: String,
    },
    /// The array is larger than [`max_array_bytes`].
    OverLimit {
        /// The shape, as error messages print it.
        shape: String,
        /// Its size in bytes.
        bytes: u64,
        /// The limit in force.
        limit: u64,
    },
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::NegativeDimension { shape, dimension } => {
                write!(f, "{shape} has a negative dimension {dimension}")
            }
            SizeError::Overflow { shape } => write!(
                f,
                "{shape} is too large: its size in bytes does not fit in 64 bits"
            ),
            SizeError::OverLimit {
                shape,
                bytes,
                limit,
            } => write!(
                f,
                "{shape} is {bytes} bytes, over the limit of {limit} bytes per array \
                 (--max-array-bytes)"
            ),
        }
    }
}

impl std::error::Error for SizeError {}

/// The product of `dims`, or `None` if a dimension is negative or the product overflows.
pub fn element_count(dims: &[i64]) -> Option<u64> {
    dims.iter()
        .try_fold(1u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?))
}

/// The bytes of a dense array of `ty` and `dims` (one byte per `pred` and sub-byte
/// element, as XLA:CPU stores them), or `None` on a negative dimension or an overflow.
pub fn byte_size(ty: PrimitiveType, dims: &[i64]) -> Option<u64> {
    element_count(dims)?.checked_mul(ty.byte_size() as u64)
}

/// The byte size of one array shape, checked against [`max_array_bytes`].
pub fn check_array(shape: &ArrayShape) -> Result<u64, SizeError> {
    let name = || Shape::Array(shape.clone()).to_string();
    if let Some(&d) = shape.dims.iter().find(|&&d| d < 0) {
        return Err(SizeError::NegativeDimension {
            shape: name(),
            dimension: d,
        });
    }
    let bytes = byte_size(shape.element_type, &shape.dims)
        .ok_or_else(|| SizeError::Overflow { shape: name() })?;
    let limit = max_array_bytes();
    if bytes > limit {
        return Err(SizeError::OverLimit {
            shape: name(),
            bytes,
            limit,
        });
    }
    Ok(bytes)
}

/// Checks every array of a shape (tuple elements one by one: the cap is per array).
/// Returns the sum of their sizes.
pub fn check_shape(shape: &Shape) -> Result<u64, SizeError> {
    match shape {
        Shape::Array(a) => check_array(a),
        Shape::Tuple(elements) => elements
            .iter()
            .try_fold(0u64, |sum, e| Ok(sum.saturating_add(check_shape(e)?))),
        Shape::Token | Shape::Opaque => Ok(0),
    }
}

/// An allocation that cannot be made: prints as `cannot allocate N bytes for WHAT` and
/// why (over the cap, over the machine's memory, or refused by the allocator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocError {
    /// The bytes asked for (`u64::MAX` when the size itself overflowed).
    pub bytes: u64,
    /// What the memory was for: `parameter 0 (f32[100000000000])`.
    pub what: String,
    /// Why it was refused.
    pub reason: AllocRefusal,
}

/// Why an allocation was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocRefusal {
    /// Over [`max_array_bytes`].
    OverLimit(u64),
    /// Over what the process may have (see [`process_memory`]).
    OverMemory(u64, MemoryBound),
    /// The allocator returned nothing.
    Refused,
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.bytes == u64::MAX {
            write!(f, "cannot allocate {}: its size overflows", self.what)?;
            return Ok(());
        }
        write!(f, "cannot allocate {} bytes for {}", self.bytes, self.what)?;
        match self.reason {
            AllocRefusal::OverLimit(limit) => {
                write!(f, ": over --max-array-bytes {limit}")
            }
            AllocRefusal::OverMemory(memory, bound) => {
                write!(f, ": {bound} {memory} bytes")
            }
            AllocRefusal::Refused => f.write_str(": out of memory"),
        }
    }
}

impl std::error::Error for AllocError {}

/// RAM plus swap, in bytes, read once from `/proc/meminfo`; `None` where that file does
/// not exist. With Linux's default overcommit, a request above this fails anyway, and one
/// just below it would be killed later: refusing it up front gives one clean error line.
pub fn machine_memory() -> Option<u64> {
    static MEMORY: OnceLock<Option<u64>> = OnceLock::new();
    *MEMORY.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        let field = |name: &str| -> Option<u64> {
            let line = text.lines().find(|l| l.starts_with(name))?;
            let kib: u64 = line[name.len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()?;
            kib.checked_mul(1024)
        };
        Some(field("MemTotal:")?.saturating_add(field("SwapTotal:").unwrap_or(0)))
    })
}

/// The address-space limit of this process (`ulimit -v`, RLIMIT_AS), if it has one. Read
/// at every call: a test or an embedding host may lower it at run time.
pub fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit through a valid pointer.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// The memory limit of this process's cgroup (v2 `memory.max`, or v1
/// `memory.limit_in_bytes`), if it has one; read once.
pub fn cgroup_memory_limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        for line in own.lines() {
            // `0::/path` (v2) or `N:memory:/path` (v1).
            let mut parts = line.splitn(3, ':');
            let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            let file = if controllers.is_empty() {
                format!("/sys/fs/cgroup{path}/memory.max")
            } else if controllers.split(',').any(|c| c == "memory") {
                format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes")
            } else {
                continue;
            };
            // "max" (v2) or a huge number (v1) means no limit.
            if let Some(n) = std::fs::read_to_string(&file)
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok())
                .filter(|&n| n < 1 << 60)
            {
                return Some(n);
            }
        }
        None
    })
}

/// The most memory this process may have: the least of [`machine_memory`],
/// [`address_space_limit`] and [`cgroup_memory_limit`], with what set it.
pub fn process_memory() -> Option<(u64, MemoryBound)> {
    [
        machine_memory().map(|m| (m, MemoryBound::Machine)),
        address_space_limit().map(|m| (m, MemoryBound::AddressSpace)),
        cgroup_memory_limit().map(|m| (m, MemoryBound::Cgroup)),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|&(m, _)| m)
}

/// What bounds a process's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryBound {
    /// The machine's RAM plus swap.
    Machine,
    /// The process's address-space limit (RLIMIT_AS).
    AddressSpace,
    /// Its cgroup's memory limit.
    Cgroup,
}

impl fmt::Display for MemoryBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MemoryBound::Machine => "the machine has",
            MemoryBound::AddressSpace => "the process's address-space limit (ulimit -v) is",
            MemoryBound::Cgroup => "the process's cgroup memory limit is",
        })
    }
}

/// Decides whether `bytes` for `what` may be allocated: under [`max_array_bytes`] and
/// under [`process_memory`]. `what` is only built on failure.
pub fn check_allocation(bytes: u64, what: impl FnOnce() -> String) -> Result<(), AllocError> {
    let limit = max_array_bytes();
    let reason = if bytes > limit {
        AllocRefusal::OverLimit(limit)
    } else {
        match process_memory() {
            Some((memory, bound)) if bytes > memory => AllocRefusal::OverMemory(memory, bound),
            _ => return Ok(()),
        }
    };
    Err(AllocError {
        bytes,
        what: what(),
        reason,
    })
}

/// A vector of `count` copies of `value`, or an [`AllocError`] naming `what` when the
/// memory is over the limits of [`check_allocation`] or the allocator refuses it.
pub fn try_filled_vec<T: Clone>(
    count: usize,
    value: T,
    what: impl FnOnce() -> String,
) -> Result<Vec<T>, AllocError> {
    let mut v = try_vec_with_capacity(count, what)?;
    v.resize(count, value);
    Ok(v)
}

/// An empty vector with room for `count` elements (see [`try_filled_vec`]).
pub fn try_vec_with_capacity<T>(
    count: usize,
    what: impl FnOnce() -> String,
) -> Result<Vec<T>, AllocError> {
    let bytes = (count as u64).checked_mul(std::mem::size_of::<T>() as u64);
    let Some(bytes) = bytes else {
        return Err(AllocError {
            bytes: u64::MAX,
            what: what(),
            reason: AllocRefusal::Refused,
        });
    };
    let mut what = Some(what);
    let mut name = || what.take().map(|f| f()).unwrap_or_default();
    check_allocation(bytes, &mut name)?;
    let mut v = Vec::new();
    v.try_reserve_exact(count).map_err(|_| AllocError {
        bytes,
        what: name(),
        reason: AllocRefusal::Refused,
    })?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_sizes_are_checked_products() {
        assert_eq!(element_count(&[]), Some(1));
        assert_eq!(element_count(&[2, 3]), Some(6));
        assert_eq!(element_count(&[4, 0, -1]), None, "negative");
        assert_eq!(element_count(&[1 << 32, 1 << 32]), None, "wraps to 0");
        assert_eq!(byte_size(PrimitiveType::F32, &[1 << 62]), None);
        assert_eq!(byte_size(PrimitiveType::Pred, &[5]), Some(5));
    }

    #[test]
    fn shapes_over_the_cap_are_errors() {
        let wrap = ArrayShape::new(PrimitiveType::F32, &[1 << 32, 1 << 32]);
        assert_eq!(
            check_array(&wrap).unwrap_err().to_string(),
            "f32[4294967296,4294967296] is too large: its size in bytes does not fit in 64 bits"
        );
        let big = ArrayShape::new(PrimitiveType::S32, &[1 << 40]);
        assert_eq!(
            check_array(&big).unwrap_err().to_string(),
            "s32[1099511627776] is 4398046511104 bytes, over the limit of 1099511627776 bytes \
             per array (--max-array-bytes)"
        );
        let tuple = Shape::Tuple(vec![
            Shape::array(PrimitiveType::F32, &[2]),
            Shape::array(PrimitiveType::F64, &[-3]),
        ]);
        assert_eq!(
            check_shape(&tuple).unwrap_err().to_string(),
            "f64[-3] has a negative dimension -3"
        );
        assert_eq!(check_shape(&Shape::array(PrimitiveType::F32, &[4])), Ok(16));
    }

    #[test]
    fn allocations_over_memory_are_errors_not_aborts() {
        // 2^39 f64 = 4 TiB: over the default cap.
        let e = try_filled_vec(1usize << 39, 0f64, || "test".to_string()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot allocate 4398046511104 bytes for test: over --max-array-bytes 1099511627776"
        );
        let e = try_filled_vec(usize::MAX, 0u32, || "x".to_string()).unwrap_err();
        assert_eq!(e.to_string(), "cannot allocate x: its size overflows");
        assert_eq!(try_filled_vec(3, 7u8, String::new).unwrap(), vec![7, 7, 7]);
    }
}
