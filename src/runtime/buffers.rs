//! Memory: 64-byte aligned allocations, and moving arrays between [`Literal`]s and raw
//! buffers (with a relayout when the physical layouts differ).
//!
//! Literals store elements in physical layout order (`src/ir/literal.rs`), so a literal
//! whose layout matches a buffer's is a plain byte copy. `pred` is one byte per element
//! (0 or 1), sub-byte and fp8 types one byte per element (as on XLA:CPU).
//! XLA: `xla/backends/cpu/runtime/buffer_allocations.h`, `MaybeOwningDeviceMemory`.

use std::alloc::{Layout as AllocLayout, alloc_zeroed, dealloc};

use crate::ir::size::{AllocError, AllocRefusal};
use crate::ir::{ArrayData, ArrayLiteral, ArrayShape, Literal};
use crate::layout::buffer_assignment::ALIGNMENT;
use crate::with_array_data;

/// One block of zeroed memory aligned to [`ALIGNMENT`] bytes, owned by the executable;
/// or, for `--guard-buffers`, placed against a protected page ([`AlignedBuffer::guarded`]).
pub struct AlignedBuffer {
    ptr: *mut u8,
    size: usize,
    /// `(base, length)` of the guarded mapping, for `munmap`; `None` for heap memory.
    mapping: Option<(usize, usize)>,
}

/// Where a guarded buffer starts relative to its end: a multiple of this many bytes, so
/// element and vector accesses stay aligned while the first byte past the buffer is at
/// most 15 bytes before the guard page (0 when the size is a multiple of 16).
pub const GUARD_ALIGNMENT: usize = 16;

// The executable hands out raw pointers into the buffer; the buffer itself is plain memory.
unsafe impl Send for AlignedBuffer {}
unsafe impl Sync for AlignedBuffer {}

impl AlignedBuffer {
    /// `size` zero bytes (at least one alignment unit is reserved, so even an empty buffer
    /// has a distinct, aligned address).
    pub fn new(size: usize) -> AlignedBuffer {
        let layout = Self::layout(size);
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuffer {
            ptr,
            size,
            mapping: None,
        }
    }

    /// `size` zero bytes that end (rounded up to [`GUARD_ALIGNMENT`]) where an inaccessible
    /// page begins, with another inaccessible page before the data's page: any access past
    /// the end faults at once (`--guard-buffers`, a debugging mode). Memory comes from
    /// `mmap`, one mapping per buffer.
    pub fn guarded(
        size: usize,
        what: impl FnOnce() -> String,
    ) -> Result<AlignedBuffer, AllocError> {
        let mut what = Some(what);
        let mut name = || what.take().map(|f| f()).unwrap_or_default();
        crate::ir::size::check_allocation(size as u64, &mut name)?;
        guarded_mapping(size).map_err(|_| AllocError {
            bytes: size as u64,
            what: name(),
            reason: AllocRefusal::Refused,
        })
    }

    /// [`AlignedBuffer::new`], or an [`AllocError`] naming `what` when the size is over the
    /// limits of [`crate::ir::size::check_allocation`] or the allocator refuses it.
    pub fn try_new(
        size: usize,
        what: impl FnOnce() -> String,
    ) -> Result<AlignedBuffer, AllocError> {
        let mut what = Some(what);
        let mut name = || what.take().map(|f| f()).unwrap_or_default();
        crate::ir::size::check_allocation(size as u64, &mut name)?;
        let refused = |what: String| AllocError {
            bytes: size as u64,
            what,
            reason: AllocRefusal::Refused,
        };
        let layout = AllocLayout::from_size_align(size.max(ALIGNMENT), ALIGNMENT)
            .map_err(|_| refused(name()))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(refused(name()));
        }
        Ok(AlignedBuffer {
            ptr,
            size,
            mapping: None,
        })
    }

    fn layout(size: usize) -> AllocLayout {
        AllocLayout::from_size_align(size.max(ALIGNMENT), ALIGNMENT)
            .unwrap_or_else(|_| AllocLayout::new::<u8>())
    }

    /// The base address.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// Bytes.
    pub fn size(&self) -> usize {
        self.size
    }
}

impl Drop for AlignedBuffer {
    fn drop(&mut self) {
        match self.mapping {
            #[cfg(unix)]
            // SAFETY: the mapping was made by `guarded_mapping` with this base and length.
            Some((base, len)) => unsafe {
                libc::munmap(base as *mut libc::c_void, len);
            },
            #[cfg(not(unix))]
            Some(_) => {}
            // SAFETY: allocated in `new` with this layout.
            None => unsafe { dealloc(self.ptr, Self::layout(self.size)) },
        }
    }
}

/// `[guard page][padding][data, ending 16-aligned][guard page]` from one `mmap`.
#[cfg(unix)]
fn guarded_mapping(size: usize) -> Result<AlignedBuffer, ()> {
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).map_err(|_| ())?;
    let data = size
        .max(1)
        .checked_next_multiple_of(GUARD_ALIGNMENT)
        .ok_or(())?;
    let body = data.checked_next_multiple_of(page).ok_or(())?;
    let len = body.checked_add(2 * page).ok_or(())?;
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(());
    }
    let base = base as *mut u8;
    // SAFETY: both ranges are whole pages inside the mapping just made.
    let protected = unsafe {
        libc::mprotect(base.cast(), page, libc::PROT_NONE) == 0
            && libc::mprotect(base.add(page + body).cast(), page, libc::PROT_NONE) == 0
    };
    if !protected {
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(base.cast(), len) };
        return Err(());
    }
    Ok(AlignedBuffer {
        // SAFETY: inside the mapping: the data ends where the second guard page starts.
        ptr: unsafe { base.add(page + body - data) },
        size,
        mapping: Some((base as usize, len)),
    })
}

#[cfg(not(unix))]
fn guarded_mapping(size: usize) -> Result<AlignedBuffer, ()> {
    AlignedBuffer::try_new(size, String::new).map_err(|_| ())
}

/// The bytes of an array literal's elements (in its physical order).
pub fn literal_bytes(a: &ArrayLiteral) -> &[u8] {
    with_array_data!(&a.data, v => {
        let len = std::mem::size_of_val(v.as_slice());
        // SAFETY: every element type is plain data (bool is one byte, 0 or 1).
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), len) }
    })
}

/// The bytes of a literal's elements, writable: what a donated argument's storage is
/// when a kernel writes an aliased output into it.
pub fn literal_bytes_mut(a: &mut ArrayLiteral) -> &mut [u8] {
    with_array_data!(&mut a.data, v => {
        let len = std::mem::size_of_val(v.as_slice());
        // SAFETY: every element type is plain data; kernels write bools as 0 or 1.
        unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len) }
    })
}

/// Writes `value` into `dst`, stored in `shape`'s layout (relayout when the literal's
/// layout differs). The caller guarantees `dst` holds `shape.byte_size()` bytes.
///
/// # Safety
/// `dst` must be valid for `shape.byte_size()` bytes of writes.
pub unsafe fn write_array(dst: *mut u8, value: &ArrayLiteral, shape: &ArrayShape) {
    let owned;
    let value =
        if value.shape.layout.minor_to_major != shape.layout.minor_to_major && shape.rank() > 1 {
            owned = value.with_layout(&shape.layout);
            &owned
        } else {
            value
        };
    let bytes = literal_bytes(value);
    let n = bytes.len().min(shape.byte_size());
    // SAFETY: the caller guarantees room for the shape's bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, n) };
}

/// Reads an array of `shape` (in its layout) out of `src` into a fresh literal.
///
/// # Safety
/// `src` must be valid for `shape.byte_size()` bytes of reads.
pub unsafe fn read_array(src: *const u8, shape: &ArrayShape) -> ArrayLiteral {
    let mut out = ArrayLiteral::zeros(shape.clone());
    let count = shape.element_count();
    match &mut out.data {
        // Kernels write 0 or 1, but a bool must never hold anything else.
        ArrayData::Pred(v) => {
            // SAFETY: `count` bytes are readable.
            let bytes = unsafe { std::slice::from_raw_parts(src, count) };
            for (b, x) in v.iter_mut().zip(bytes) {
                *b = *x != 0;
            }
        }
        data => with_array_data!(data, v => {
            let len = std::mem::size_of_val(v.as_slice());
            // SAFETY: the vector holds `len` bytes of plain data; `src` has as many.
            unsafe { std::ptr::copy_nonoverlapping(src, v.as_mut_ptr().cast::<u8>(), len) }
        }),
    }
    out
}

/// Storage for an array of `shape` that a run writes in full (`bytes` of it): room for
/// its elements but no contents yet, so a result computed straight into it is neither
/// zeroed first nor copied afterwards. `None` for `pred` (a kernel's byte must be checked
/// to be 0 or 1 before it is a bool) and for element types not stored at their byte size.
/// The run writes through [`ResultStorage::ptr`]; [`ResultStorage::written`] makes the
/// literal.
pub fn result_storage(
    shape: &ArrayShape,
    bytes: usize,
) -> Option<Result<ResultStorage, AllocError>> {
    use crate::ir::PrimitiveType as P;
    use crate::ir::size::try_vec_with_capacity;
    fn element_size<T>(_: &[T]) -> usize {
        std::mem::size_of::<T>()
    }
    let count = shape.element_count();
    let what = || format!("result {}", crate::ir::Shape::Array(shape.clone()));
    macro_rules! empty {
        ($variant:ident) => {
            try_vec_with_capacity(count, what).map(ArrayData::$variant)
        };
    }
    let data = match shape.element_type {
        P::S8 => empty!(S8),
        P::S16 => empty!(S16),
        P::S32 => empty!(S32),
        P::S64 => empty!(S64),
        P::U8 => empty!(U8),
        P::U16 => empty!(U16),
        P::U32 => empty!(U32),
        P::U64 => empty!(U64),
        P::F16 => empty!(F16),
        P::BF16 => empty!(BF16),
        P::F32 => empty!(F32),
        P::F64 => empty!(F64),
        P::C64 => empty!(C64),
        P::C128 => empty!(C128),
        _ => return None,
    };
    let mut data = match data {
        Ok(d) => d,
        Err(e) => return Some(Err(e)),
    };
    let element = with_array_data!(&data, v => element_size(v.as_slice()));
    if count.checked_mul(element) != Some(bytes) {
        return None;
    }
    let ptr = with_array_data!(&mut data, v => v.as_mut_ptr().cast::<u8>());
    Some(Ok(ResultStorage {
        literal: ArrayLiteral {
            shape: shape.clone(),
            data,
        },
        ptr,
    }))
}

/// An array's storage handed to a run before it holds anything (see [`result_storage`]).
pub struct ResultStorage {
    /// Its elements have capacity but length 0 until [`ResultStorage::written`].
    literal: ArrayLiteral,
    ptr: *mut u8,
}

impl ResultStorage {
    /// Where the run writes the array's bytes.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// The array, once the run has written every byte of it.
    ///
    /// # Safety
    /// Every element must have been written through [`ResultStorage::ptr`].
    pub unsafe fn written(mut self) -> ArrayLiteral {
        let count = self.literal.shape.element_count();
        // SAFETY: the capacity is `count` and the caller says all of it is written; every
        // stored type takes any bit pattern.
        with_array_data!(&mut self.literal.data, v => unsafe { v.set_len(count) });
        self.literal
    }
}

/// Reads every array leaf of `shape` via `read_leaf(index, leaf shape)` into a literal of
/// the same tuple structure (tokens become [`Literal::Token`]).
pub fn read_value(
    shape: &crate::ir::Shape,
    read_leaf: &mut dyn FnMut(&[usize], &ArrayShape) -> Option<ArrayLiteral>,
) -> Option<Literal> {
    fn walk(
        s: &crate::ir::Shape,
        prefix: &mut Vec<usize>,
        read_leaf: &mut dyn FnMut(&[usize], &ArrayShape) -> Option<ArrayLiteral>,
    ) -> Option<Literal> {
        use crate::ir::Shape;
        Some(match s {
            Shape::Array(a) => Literal::Array(read_leaf(prefix, a)?),
            Shape::Tuple(t) => {
                let mut out = Vec::with_capacity(t.len());
                for (i, e) in t.iter().enumerate() {
                    prefix.push(i);
                    out.push(walk(e, prefix, read_leaf)?);
                    prefix.pop();
                }
                Literal::Tuple(out)
            }
            Shape::Token | Shape::Opaque => Literal::Token,
        })
    }
    walk(shape, &mut Vec::new(), read_leaf)
}

/// The array leaf of `value` at tuple path `index`.
pub fn literal_leaf<'a>(value: &'a Literal, index: &[usize]) -> Option<&'a ArrayLiteral> {
    let mut v = value;
    for &i in index {
        v = v.as_tuple()?.get(i)?;
    }
    v.as_array()
}

/// The array at `index` of `value`, mutably.
pub fn literal_leaf_mut<'a>(
    value: &'a mut Literal,
    index: &[usize],
) -> Option<&'a mut ArrayLiteral> {
    let mut v = value;
    for &i in index {
        v = match v {
            Literal::Tuple(elements) => elements.get_mut(i)?,
            _ => return None,
        };
    }
    match v {
        Literal::Array(a) => Some(a),
        _ => None,
    }
}

/// Moves the array at `index` out of `value`, leaving a token in its place.
pub fn take_literal_leaf(value: &mut Literal, index: &[usize]) -> Option<ArrayLiteral> {
    let mut v = value;
    for &i in index {
        v = match v {
            Literal::Tuple(elements) => elements.get_mut(i)?,
            _ => return None,
        };
    }
    match std::mem::replace(v, Literal::Token) {
        Literal::Array(a) => Some(a),
        other => {
            *v = other;
            None
        }
    }
}

/// Copies an array from `src` (stored in `from`'s layout) to `dst` (stored in `to`'s
/// layout): one `memcpy` when the layouts agree, otherwise element by element, walking the
/// destination in its physical order. Shapes must have equal dimensions and element sizes.
///
/// # Safety
/// `src` and `dst` must be valid for the shapes' byte sizes and must not overlap.
pub unsafe fn copy_array(src: *const u8, from: &ArrayShape, dst: *mut u8, to: &ArrayShape) {
    let bytes = to.byte_size().min(from.byte_size());
    if from.layout.minor_to_major == to.layout.minor_to_major
        || from.rank() <= 1
        || from.dims != to.dims
    {
        // SAFETY: the caller guarantees both ranges.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, bytes) };
        return;
    }
    let esz = to.element_type.byte_size();
    let rank = to.rank();
    let count = to.element_count();
    if count == 0 {
        return;
    }
    let src_strides = from.physical_strides();
    // Walk the destination in physical order; the innermost loop runs along its minor
    // dimension, so each step adds one fixed source stride.
    let minor = to.layout.minor_to_major[0];
    let inner = to.dims[minor] as usize;
    let inner_src_stride = src_strides[minor] * esz;
    let mut index = vec![0usize; rank];
    let mut out = 0usize;
    while out < count {
        let base: usize = index.iter().zip(&src_strides).map(|(i, s)| i * s).sum();
        let mut s = base * esz;
        for _ in 0..inner {
            // SAFETY: both offsets are inside the arrays (indices within the dims).
            unsafe { std::ptr::copy_nonoverlapping(src.add(s), dst.add(out * esz), esz) };
            s += inner_src_stride;
            out += 1;
        }
        // Advance the outer dimensions in the destination's physical order.
        for &d in &to.layout.minor_to_major[1..] {
            index[d] += 1;
            if (index[d] as i64) < to.dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Layout;

    #[test]
    fn relayout_copy_matches_literal_relayout() {
        let a = ArrayLiteral::from_vec(&[2, 3, 4], (0..24).map(|x| x as f32).collect());
        let mut to = a.shape.clone();
        to.layout = Layout {
            minor_to_major: vec![0, 2, 1],
            extra: None,
        };
        let mut dst = AlignedBuffer::new(to.byte_size());
        unsafe { copy_array(literal_bytes(&a).as_ptr(), &a.shape, dst.ptr(), &to) };
        let got = unsafe { read_array(dst.ptr(), &to) };
        // Expected from the literal's own relayout (written independently in ir::literal).
        assert_eq!(got, a.with_layout(&to.layout));
        let _ = &mut dst;
    }

    /// The guard works: reading the first byte past a guarded buffer kills a child process
    /// with SIGSEGV, while reading its last byte does not.
    #[test]
    #[cfg(target_os = "linux")]
    fn reading_past_a_guarded_buffer_faults() {
        use std::os::unix::process::ExitStatusExt;
        let child = |offset: usize| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "runtime::buffers::tests::guard_child",
                    "--exact",
                    "--test-threads=1",
                ])
                .env("XLAC_GUARD_CHILD_OFFSET", offset.to_string())
                .output()
                .unwrap()
                .status
        };
        let last = child(127);
        assert!(last.success(), "reading the last byte: {last:?}");
        let past = child(128);
        assert_eq!(
            past.signal(),
            Some(libc::SIGSEGV),
            "reading past the end: {past:?}"
        );
    }

    /// The child of the test above; does nothing unless that test runs it.
    #[test]
    fn guard_child() {
        let Some(offset) = std::env::var_os("XLAC_GUARD_CHILD_OFFSET") else {
            return;
        };
        let offset: usize = offset.to_string_lossy().parse().unwrap();
        let buffer = AlignedBuffer::guarded(128, String::new).unwrap();
        // SAFETY: deliberately not, past 127: the point of the test.
        let value = unsafe { std::ptr::read_volatile(buffer.ptr().add(offset)) };
        assert_eq!(value, 0);
    }

    #[test]
    fn pred_round_trips() {
        let a = ArrayLiteral::from_vec(&[3], vec![true, false, true]);
        let buf = AlignedBuffer::new(3);
        unsafe { write_array(buf.ptr(), &a, &a.shape) };
        assert_eq!(unsafe { read_array(buf.ptr(), &a.shape) }, a);
    }
}
