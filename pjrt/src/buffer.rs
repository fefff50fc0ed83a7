//! Buffers and events.
//!
//! A buffer is host memory: an xlac array literal, always dense and row-major (what the
//! framework assumes of every buffer without the Layouts extension; xlac's own layout
//! choices stay inside the executable, which converts at the boundary). `IsOnCpu` is true,
//! so JAX makes zero-copy numpy views of results through
//! `OpaqueDeviceMemoryDataPointer`, holding an external reference that keeps the memory
//! alive even after the buffer is deleted.
//!
//! An output of an asynchronous execute is pending until its run ends: its ready event
//! fires then, and whatever reads its data (`ToHostBuffer`, copies, a zero-copy view)
//! waits for it; what the run reads or writes it holds itself, so deleting or destroying a
//! buffer while a run uses it is safe. Transfers from the host finish before their call
//! returns, and their events are born fired.

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use half::{bf16, f16};
use num_complex::Complex;
use xlac::ir::{ArrayData, ArrayLiteral, ArrayShape, Literal, NativeType, PrimitiveType, Shape};

use crate::abi::*;
use crate::client::{Client, check_device, check_memory, client_ref};
use crate::error::{Code, Error, Result, entry_points, guard, slice};
use crate::event::{Event, Signal};

/// The largest buffer accepted from the host, in bytes (allocation failures would abort
/// the process, so sizes are bounded and allocations fallible).
pub const MAX_BUFFER_BYTES: usize = 1 << 40;
/// The most dimensions a buffer may have.
pub const MAX_RANK: usize = 64;

/// `PJRT_Buffer_Type_TOKEN`.
pub const PJRT_BUFFER_TYPE_TOKEN: PJRT_Buffer_Type = 23;

/// The element types xlac stores, by `PJRT_Buffer_Type`.
pub fn element_type(t: PJRT_Buffer_Type) -> Result<PrimitiveType> {
    use PrimitiveType as P;
    Ok(match t {
        1 => P::Pred,
        2 => P::S8,
        3 => P::S16,
        4 => P::S32,
        5 => P::S64,
        6 => P::U8,
        7 => P::U16,
        8 => P::U32,
        9 => P::U64,
        10 => P::F16,
        11 => P::F32,
        12 => P::F64,
        13 => P::BF16,
        14 => P::C64,
        15 => P::C128,
        16 => P::F8E5M2,
        17 => P::F8E4M3FN,
        18 => P::F8E4M3B11FNUZ,
        19 => P::F8E5M2FNUZ,
        20 => P::F8E4M3FNUZ,
        21 => P::S4,
        22 => P::U4,
        PJRT_BUFFER_TYPE_TOKEN => {
            return Err(Error::invalid(
                "a token is not a buffer of data (PJRT_Buffer_Type_TOKEN)",
            ));
        }
        24 => P::S2,
        25 => P::U2,
        26 => P::F8E4M3,
        27 => P::F8E3M4,
        28 => P::F8E8M0FNU,
        29 => P::F4E2M1FN,
        30 => P::S1,
        31 => P::U1,
        _ => return Err(Error::invalid(format!("unknown PJRT_Buffer_Type {t}"))),
    })
}

/// The `PJRT_Buffer_Type` of an xlac element type.
pub fn buffer_type(t: PrimitiveType) -> Result<PJRT_Buffer_Type> {
    use PrimitiveType as P;
    Ok(match t {
        P::Pred => 1,
        P::S8 => 2,
        P::S16 => 3,
        P::S32 => 4,
        P::S64 => 5,
        P::U8 => 6,
        P::U16 => 7,
        P::U32 => 8,
        P::U64 => 9,
        P::F16 => 10,
        P::F32 => 11,
        P::F64 => 12,
        P::BF16 => 13,
        P::C64 => 14,
        P::C128 => 15,
        P::F8E5M2 => 16,
        P::F8E4M3FN => 17,
        P::F8E4M3B11FNUZ => 18,
        P::F8E5M2FNUZ => 19,
        P::F8E4M3FNUZ => 20,
        P::S4 => 21,
        P::U4 => 22,
        P::S2 => 24,
        P::U2 => 25,
        P::F8E4M3 => 26,
        P::F8E3M4 => 27,
        P::F8E8M0FNU => 28,
        P::F4E2M1FN => 29,
        P::S1 => 30,
        P::U1 => 31,
        other => {
            return Err(Error::unimplemented(format!(
                "xlac cannot hand out a buffer of type {}",
                other.name()
            )));
        }
    })
}

/// Checked element count and byte size of a shape.
pub fn checked_size(dims: &[i64], ty: PrimitiveType) -> Result<(usize, usize)> {
    if dims.len() > MAX_RANK {
        return Err(Error::invalid(format!(
            "a buffer of rank {}; at most {MAX_RANK} dimensions are accepted",
            dims.len()
        )));
    }
    let mut count: usize = 1;
    for &d in dims {
        let d = usize::try_from(d)
            .map_err(|_| Error::invalid(format!("negative dimension {d} in {dims:?}")))?;
        count = count
            .checked_mul(d)
            .ok_or_else(|| Error::invalid(format!("dimensions {dims:?} overflow")))?;
    }
    let bytes = count
        .checked_mul(ty.byte_size())
        .filter(|&b| b <= MAX_BUFFER_BYTES)
        .ok_or_else(|| {
            Error::new(
                Code::ResourceExhausted,
                format!(
                    "a {} buffer {dims:?} is over the {MAX_BUFFER_BYTES}-byte limit",
                    ty.name()
                ),
            )
        })?;
    Ok((count, bytes))
}

fn typed_from_bytes<T: NativeType>(bytes: &[u8]) -> Result<ArrayData> {
    let n = bytes.len() / std::mem::size_of::<T>();
    let mut v: Vec<T> = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        Error::new(
            Code::ResourceExhausted,
            format!("cannot allocate {} bytes", bytes.len()),
        )
    })?;
    // SAFETY: T is plain data with no invalid bit patterns (bool is handled apart), the
    // vector has room for `n` elements, and `bytes` holds exactly `n` of them.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            v.as_mut_ptr().cast::<u8>(),
            n * std::mem::size_of::<T>(),
        );
        v.set_len(n);
    }
    Ok(T::wrap(v))
}

/// Builds typed element storage from dense row-major bytes.
pub fn array_data_from_bytes(ty: PrimitiveType, bytes: &[u8]) -> Result<ArrayData> {
    use PrimitiveType as P;
    match ty {
        P::Pred => {
            let mut v = Vec::new();
            v.try_reserve_exact(bytes.len()).map_err(|_| {
                Error::new(
                    Code::ResourceExhausted,
                    format!("cannot allocate {} bytes", bytes.len()),
                )
            })?;
            v.extend(bytes.iter().map(|&b| b != 0));
            Ok(ArrayData::Pred(v))
        }
        P::S8 => typed_from_bytes::<i8>(bytes),
        P::S16 => typed_from_bytes::<i16>(bytes),
        P::S32 => typed_from_bytes::<i32>(bytes),
        P::S64 => typed_from_bytes::<i64>(bytes),
        P::U8 => typed_from_bytes::<u8>(bytes),
        P::U16 => typed_from_bytes::<u16>(bytes),
        P::U32 => typed_from_bytes::<u32>(bytes),
        P::U64 => typed_from_bytes::<u64>(bytes),
        P::F16 => typed_from_bytes::<f16>(bytes),
        P::BF16 => typed_from_bytes::<bf16>(bytes),
        P::F32 => typed_from_bytes::<f32>(bytes),
        P::F64 => typed_from_bytes::<f64>(bytes),
        P::C64 => typed_from_bytes::<Complex<f32>>(bytes),
        P::C128 => typed_from_bytes::<Complex<f64>>(bytes),
        // The narrow formats: one byte per element holding the bit pattern, as jax's host
        // arrays (ml_dtypes) hold them and xlac's literals store them.
        _ => {
            let mut v = Vec::new();
            v.try_reserve_exact(bytes.len()).map_err(|_| {
                Error::new(
                    Code::ResourceExhausted,
                    format!("cannot allocate {} bytes", bytes.len()),
                )
            })?;
            v.extend_from_slice(bytes);
            Ok(ArrayData::Raw(v))
        }
    }
}

/// The bytes of a literal's elements, in its storage order.
pub fn literal_bytes(a: &ArrayLiteral) -> &[u8] {
    xlac::runtime::buffers::literal_bytes(a)
}

/// Copies a strided host array (`byte_strides` per dimension, any sign of order) into dense
/// row-major bytes.
///
/// # Safety
/// Every element the strides reach from `data` must be readable.
unsafe fn gather_strided(
    data: *const u8,
    dims: &[usize],
    strides: &[i64],
    element: usize,
    total: usize,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    out.try_reserve_exact(total).map_err(|_| {
        Error::new(
            Code::ResourceExhausted,
            format!("cannot allocate {total} bytes"),
        )
    })?;
    if total == 0 {
        return Ok(out);
    }
    let rank = dims.len();
    let mut index = vec![0usize; rank];
    loop {
        let offset: i64 = index.iter().zip(strides).map(|(&i, &s)| i as i64 * s).sum();
        // SAFETY: the caller guarantees the strided element is readable.
        let src = unsafe { std::slice::from_raw_parts(data.offset(offset as isize), element) };
        out.extend_from_slice(src);
        let mut k = rank;
        loop {
            if k == 0 {
                return Ok(out);
            }
            k -= 1;
            index[k] += 1;
            if index[k] < dims[k] {
                break;
            }
            index[k] = 0;
        }
    }
}

/// Dense row-major byte strides of `dims`.
pub fn row_major_strides(dims: &[i64], element: usize) -> Vec<i64> {
    let mut strides = vec![0i64; dims.len()];
    let mut s = element as i64;
    for (i, &d) in dims.iter().enumerate().rev() {
        strides[i] = s;
        s = s.saturating_mul(d.max(1));
    }
    strides
}

/// What a buffer holds.
enum Data {
    /// Its value.
    Ready(Arc<Literal>),
    /// An output of an asynchronous run, filled when the run ends.
    Pending(Arc<Produced>),
    /// Nothing: deleted or donated.
    Gone,
}

/// One output of an asynchronous run: its value is set when the run ends, before the run's
/// signal fires.
pub struct Produced {
    run: Arc<Signal>,
    value: Mutex<Option<Arc<Literal>>>,
}

impl Produced {
    /// An output of the run whose end `run` signals.
    pub fn new(run: Arc<Signal>) -> Arc<Produced> {
        Arc::new(Produced {
            run,
            value: Mutex::new(None),
        })
    }

    /// Sets the value (row-major, as every buffer is); the run fires its signal after.
    pub fn set(&self, value: Literal) {
        let value = match value {
            Literal::Array(a) => Literal::Array(row_major(a)),
            other => other,
        };
        *self.value.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(value));
    }

    /// Waits for the run; its value, or its failure.
    pub fn wait(&self) -> Result<Arc<Literal>> {
        self.run.wait().map_err(|f| f.error())?;
        self.value
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| Error::new(Code::Internal, "a run ended without setting an output"))
    }
}

/// Where a run finds one argument: a value, or the output of a run that may still be in
/// flight.
pub enum Source {
    /// The value.
    Ready(Arc<Literal>),
    /// An earlier run's output.
    Pending(Arc<Produced>),
}

impl Source {
    /// True if the data is there: no run in flight produces it.
    pub fn is_ready(&self) -> bool {
        match self {
            Source::Ready(_) => true,
            Source::Pending(p) => p.run.outcome().is_some_and(|o| o.is_ok()),
        }
    }

    /// The value, once the run producing it has ended (its failure if it failed). The
    /// handle on the producing run is let go first, so a donated value may be the only
    /// reference left.
    pub fn wait(self) -> Result<Arc<Literal>> {
        match self {
            Source::Ready(l) => Ok(l),
            Source::Pending(p) => p.wait(),
        }
    }
}

/// `a`, row-major.
fn row_major(a: ArrayLiteral) -> ArrayLiteral {
    if a.shape.rank() > 1 && !a.shape.layout.is_row_major() {
        a.to_row_major()
    } else {
        a
    }
}

/// `PJRT_Buffer`.
pub struct Buffer {
    client: *const Client,
    /// The device (and memory) the buffer is on.
    device: usize,
    /// Dimensions, kept for `Buffer_Dimensions` (the pointer must stay valid).
    dims: Vec<i64>,
    /// Row-major `minor_to_major`, kept for `Buffer_GetMemoryLayout`.
    minor_to_major: Vec<i64>,
    element_type: PrimitiveType,
    /// A token (`PJRT_Buffer_Type_TOKEN`): no data.
    token: bool,
    /// The data.
    data: Mutex<Data>,
    /// One clone of the data per external reference (zero-copy views hold memory alive).
    external: Mutex<Vec<Arc<Literal>>>,
}

// SAFETY: `client` is only read, and outlives its buffers (the framework destroys buffers
// before the client).
unsafe impl Send for Buffer {}
unsafe impl Sync for Buffer {}

fn gone() -> Error {
    Error::new(
        Code::FailedPrecondition,
        "the buffer has been deleted or donated",
    )
}

impl Buffer {
    fn with(client: &Client, device: usize, shape: Option<&ArrayShape>, data: Data) -> Buffer {
        let (dims, element_type) = match shape {
            Some(s) => (s.dims.clone(), s.element_type),
            None => (Vec::new(), PrimitiveType::Pred),
        };
        Buffer {
            client,
            device,
            minor_to_major: (0..dims.len() as i64).rev().collect(),
            dims,
            element_type,
            token: shape.is_none(),
            data: Mutex::new(data),
            external: Mutex::new(Vec::new()),
        }
    }

    /// A buffer on device `device` over an array literal (made row-major if it is not).
    pub fn new(client: &Client, device: usize, literal: ArrayLiteral) -> Buffer {
        let literal = row_major(literal);
        let shape = literal.shape.clone();
        let data = Data::Ready(Arc::new(Literal::Array(literal)));
        Buffer::with(client, device, Some(&shape), data)
    }

    /// A token buffer (`PJRT_Buffer_Type_TOKEN`, no data) on device `device`: what a program with ordered
    /// effects returns, and takes back in its next call.
    pub fn token(client: &Client, device: usize) -> Buffer {
        Buffer::with(client, device, None, Data::Ready(Arc::new(Literal::Token)))
    }

    /// An output of an asynchronous run on device `device`: an array of `shape`, or a
    /// token for `None`, whose value `produced` gets when the run ends.
    pub fn pending(
        client: &Client,
        device: usize,
        shape: Option<&ArrayShape>,
        produced: Arc<Produced>,
    ) -> Buffer {
        Buffer::with(client, device, shape, Data::Pending(produced))
    }

    /// The device the buffer is on.
    pub fn device(&self) -> usize {
        self.device
    }

    /// True for a token buffer.
    pub fn is_token(&self) -> bool {
        self.token
    }

    /// The buffer's shape as a parameter sees it.
    pub fn shape(&self) -> Shape {
        if self.token {
            Shape::Token
        } else {
            Shape::Array(ArrayShape::new(self.element_type, &self.dims))
        }
    }

    /// Hands the buffer to C.
    pub fn into_raw(self) -> *mut c_void {
        Box::into_raw(Box::new(self)).cast()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Data> {
        self.data.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The data, once the run producing it has ended; an error if the buffer was deleted
    /// or donated, or if that run failed.
    pub fn literal(&self) -> Result<Arc<Literal>> {
        let produced = match &*self.lock() {
            Data::Ready(l) => return Ok(l.clone()),
            Data::Pending(p) => p.clone(),
            Data::Gone => return Err(gone()),
        };
        // Not under the lock: deleting the buffer meanwhile stays possible.
        let value = produced.wait()?;
        let mut data = self.lock();
        if matches!(&*data, Data::Pending(p) if Arc::ptr_eq(p, &produced)) {
            *data = Data::Ready(value.clone());
        }
        Ok(value)
    }

    /// Where a run finds the data, without waiting for it.
    pub fn source(&self) -> Result<Source> {
        match &*self.lock() {
            Data::Ready(l) => Ok(Source::Ready(l.clone())),
            Data::Pending(p) => Ok(Source::Pending(p.clone())),
            Data::Gone => Err(gone()),
        }
    }

    /// Takes the data out (donation): the buffer counts as deleted afterwards.
    pub fn take(&self) -> Result<Source> {
        match std::mem::replace(&mut *self.lock(), Data::Gone) {
            Data::Ready(l) => Ok(Source::Ready(l)),
            Data::Pending(p) => Ok(Source::Pending(p)),
            Data::Gone => Err(gone()),
        }
    }

    /// The event that fires when the data is there (at once unless a run produces it).
    pub fn ready_event(&self) -> *mut c_void {
        match &*self.lock() {
            Data::Pending(p) => Event::on(p.run.clone()),
            _ => Event::ready(),
        }
    }

    /// True while a zero-copy view (an external reference) holds the data.
    pub fn has_external_references(&self) -> bool {
        !self
            .external
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
    }

    /// The element type.
    pub fn element_type(&self) -> PrimitiveType {
        self.element_type
    }

    /// The dimensions.
    pub fn dims(&self) -> &[i64] {
        &self.dims
    }

    fn array(lit: &Literal) -> Result<&ArrayLiteral> {
        lit.as_array()
            .ok_or_else(|| Error::new(Code::Internal, "an xlac buffer holds a non-array value"))
    }

    fn is_deleted(&self) -> bool {
        matches!(&*self.lock(), Data::Gone)
    }

    fn byte_size(&self) -> usize {
        if self.is_token() {
            return 0;
        }
        checked_size(&self.dims, self.element_type)
            .map(|(_, b)| b)
            .unwrap_or(0)
    }
}

/// Borrows the buffer behind a handle.
///
/// # Safety
/// `p` must be NULL or a live buffer handle from this plugin.
pub unsafe fn buffer_ref<'a>(p: *mut c_void) -> Result<&'a Buffer> {
    // SAFETY: the caller's contract.
    unsafe { p.cast::<Buffer>().as_ref() }.ok_or_else(|| Error::invalid("the PJRT_Buffer is NULL"))
}

// ---- transfers ------------------------------------------------------------------------

/// Reads the host array of a `BufferFromHostBuffer` call into a literal.
///
/// # Safety
/// The args' pointers must be valid as the header describes.
unsafe fn host_literal(a: &PJRT_Client_BufferFromHostBuffer_Args) -> Result<ArrayLiteral> {
    let ty = element_type(a.type_)?;
    // SAFETY: the framework's dims array.
    let dims = unsafe { slice(a.dims, a.num_dims, "dims")? }.to_vec();
    let (count, total) = checked_size(&dims, ty)?;
    if a.data.is_null() && total > 0 {
        return Err(Error::invalid("BufferFromHostBuffer with NULL data"));
    }
    let element = ty.byte_size();
    let dense = row_major_strides(&dims, element);
    // SAFETY: the framework's strides array.
    let strides = unsafe { slice(a.byte_strides, a.num_byte_strides, "byte_strides")? };
    if !strides.is_empty() && strides.len() != dims.len() {
        return Err(Error::invalid(format!(
            "{} byte strides for {} dimensions",
            strides.len(),
            dims.len()
        )));
    }
    // Size-1 dimensions have any stride; only the others decide density.
    let is_dense = strides.is_empty()
        || strides
            .iter()
            .zip(&dense)
            .zip(&dims)
            .all(|((&s, &d), &n)| n <= 1 || s == d);
    let data = if count == 0 {
        array_data_from_bytes(ty, &[])?
    } else if is_dense {
        // SAFETY: a dense host array of `total` bytes.
        let bytes = unsafe { std::slice::from_raw_parts(a.data.cast::<u8>(), total) };
        array_data_from_bytes(ty, bytes)?
    } else {
        let udims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        // SAFETY: the framework's strides describe readable memory.
        let bytes = unsafe { gather_strided(a.data.cast(), &udims, strides, element, total)? };
        array_data_from_bytes(ty, &bytes)?
    };
    Ok(ArrayLiteral {
        shape: ArrayShape::new(ty, &dims),
        data,
    })
}

entry_points! {
    fn client_buffer_from_host_buffer(a: PJRT_Client_BufferFromHostBuffer_Args) {
        // SAFETY: a live client.
        let client = unsafe { client_ref(a.client)? };
        // The memory names the device when given (JAX passes the memory, not the device).
        let device = check_memory(client, a.memory)?
            .or(check_device(client, a.device)?)
            .unwrap_or(0);
        // Any device layout is accepted: xlac stores row-major and converts in executables.
        // SAFETY: the args' pointers per the header.
        let literal = unsafe { host_literal(a)? };
        // The data was copied: the host buffer is free as soon as the call returns.
        a.done_with_host_buffer = Event::ready();
        a.buffer = Buffer::new(client, device, literal).into_raw();
        Ok(())
    }
}

/// Reads `host_layout` (NULL, or a tiled layout without tiles, or strides) as the
/// minor-to-major order the host wants.
///
/// # Safety
/// `layout` must be NULL or valid.
unsafe fn host_minor_to_major(
    layout: *const PJRT_Buffer_MemoryLayout,
    rank: usize,
) -> Result<Vec<i64>> {
    let row_major: Vec<i64> = (0..rank as i64).rev().collect();
    // SAFETY: the caller's contract.
    let Some(l) = (unsafe { layout.as_ref() }) else {
        return Ok(row_major);
    };
    match l.type_ {
        PJRT_Buffer_MemoryLayout_Type_Tiled => {
            // SAFETY: `type_` says the tiled member is set.
            let t = unsafe { l.layout.tiled };
            if t.num_tiles != 0 {
                return Err(Error::unimplemented(
                    "xlac does not write tiled host layouts",
                ));
            }
            // SAFETY: the framework's array.
            let m2m = unsafe { slice(t.minor_to_major, t.minor_to_major_size, "minor_to_major")? };
            let mut sorted = m2m.to_vec();
            sorted.sort_unstable();
            if sorted != (0..rank as i64).collect::<Vec<_>>() {
                return Err(Error::invalid(format!(
                    "host layout minor_to_major {m2m:?} is not a permutation of {rank} dimensions"
                )));
            }
            Ok(m2m.to_vec())
        }
        PJRT_Buffer_MemoryLayout_Type_Strides => Err(Error::unimplemented(
            "xlac writes host buffers by minor-to-major layouts, not strides",
        )),
        other => Err(Error::invalid(format!("unknown host layout type {other}"))),
    }
}

entry_points! {
    fn buffer_to_host_buffer(a: PJRT_Buffer_ToHostBuffer_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.src)? };
        let size = b.byte_size();
        if a.dst.is_null() {
            // The size query of the two-call protocol.
            a.dst_size = size;
            return Ok(());
        }
        if a.dst_size < size {
            return Err(Error::invalid(format!(
                "ToHostBuffer: the destination has {} bytes, the buffer {size}",
                a.dst_size
            )));
        }
        let lit = b.literal()?;
        let array = Buffer::array(&lit)?;
        // SAFETY: the framework's layout.
        let m2m = unsafe { host_minor_to_major(a.host_layout, b.dims.len())? };
        let owned;
        let array = if m2m.iter().rev().copied().eq(0..b.dims.len() as i64) || b.dims.len() <= 1 {
            array
        } else {
            let layout = xlac::ir::Layout {
                minor_to_major: m2m.iter().map(|&d| d as usize).collect(),
                ..array.shape.layout.clone()
            };
            owned = array.with_layout(&layout);
            &owned
        };
        let bytes = literal_bytes(array);
        // SAFETY: `dst` has room for `size` bytes, checked above.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), a.dst.cast::<u8>(), bytes.len().min(size))
        };
        a.event = Event::ready();
        Ok(())
    }
}

// ---- buffer queries -------------------------------------------------------------------

entry_points! {
    fn buffer_destroy(a: PJRT_Buffer_Destroy_Args) {
        if !a.buffer.is_null() {
            // SAFETY: the handle came from `Buffer::into_raw`; destroyed once.
            drop(unsafe { Box::from_raw(a.buffer.cast::<Buffer>()) });
        }
        Ok(())
    }

    fn buffer_element_type(a: PJRT_Buffer_ElementType_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        a.type_ = if b.is_token() {
            PJRT_BUFFER_TYPE_TOKEN
        } else {
            buffer_type(b.element_type)?
        };
        Ok(())
    }

    fn buffer_dimensions(a: PJRT_Buffer_Dimensions_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        a.dims = b.dims.as_ptr();
        a.num_dims = b.dims.len();
        Ok(())
    }

    fn buffer_unpadded_dimensions(a: PJRT_Buffer_UnpaddedDimensions_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        a.unpadded_dims = b.dims.as_ptr();
        a.num_dims = b.dims.len();
        Ok(())
    }

    fn buffer_dynamic_dimension_indices(a: PJRT_Buffer_DynamicDimensionIndices_Args) {
        a.dynamic_dim_indices = std::ptr::null();
        a.num_dynamic_dims = 0;
        Ok(())
    }

    fn buffer_on_device_size_in_bytes(a: PJRT_Buffer_OnDeviceSizeInBytes_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        a.on_device_size_in_bytes = b.byte_size();
        Ok(())
    }

    fn buffer_device(a: PJRT_Buffer_Device_Args) {
        // SAFETY: a live buffer whose client outlives it.
        let b = unsafe { buffer_ref(a.buffer)? };
        a.device = unsafe { &*b.client }.device_ptr(b.device);
        Ok(())
    }

    fn buffer_memory(a: PJRT_Buffer_Memory_Args) {
        // SAFETY: a live buffer whose client outlives it.
        let b = unsafe { buffer_ref(a.buffer)? };
        a.memory = unsafe { &*b.client }.memory_ptr(b.device);
        Ok(())
    }

    fn buffer_delete(a: PJRT_Buffer_Delete_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        // External references keep their own clones: views stay valid; a run in flight
        // keeps what it reads or writes.
        *b.lock() = Data::Gone;
        Ok(())
    }

    fn buffer_is_deleted(a: PJRT_Buffer_IsDeleted_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        a.is_deleted = b.is_deleted();
        Ok(())
    }

    fn buffer_is_on_cpu(a: PJRT_Buffer_IsOnCpu_Args) {
        a.is_on_cpu = true;
        Ok(())
    }

    fn buffer_ready_event(a: PJRT_Buffer_ReadyEvent_Args) {
        // SAFETY: a live buffer.
        a.event = unsafe { buffer_ref(a.buffer)? }.ready_event();
        Ok(())
    }
}

fn data_pointer(b: &Buffer) -> Result<*mut c_void> {
    // An external reference's clone if the buffer was deleted under a live view.
    let lit = match b.literal() {
        Ok(l) => l,
        Err(e) => b
            .external
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .last()
            .cloned()
            .ok_or(e)?,
    };
    let array = Buffer::array(&lit)?;
    Ok(literal_bytes(array).as_ptr().cast_mut().cast())
}

entry_points! {
    fn buffer_unsafe_pointer(a: PJRT_Buffer_UnsafePointer_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        a.buffer_pointer = data_pointer(b)? as usize;
        Ok(())
    }

    fn buffer_opaque_device_memory_data_pointer(a: PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        a.device_memory_ptr = data_pointer(b)?;
        Ok(())
    }

    fn buffer_increase_external_reference_count(
        a: PJRT_Buffer_IncreaseExternalReferenceCount_Args,
    ) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        let lit = b.literal()?;
        b.external
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(lit);
        Ok(())
    }

    fn buffer_decrease_external_reference_count(
        a: PJRT_Buffer_DecreaseExternalReferenceCount_Args,
    ) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        b.external
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .map(drop)
            .ok_or_else(|| {
                Error::new(
                    Code::FailedPrecondition,
                    "the buffer has no external references",
                )
            })
    }

    fn buffer_get_memory_layout(a: PJRT_Buffer_GetMemoryLayout_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        a.layout = PJRT_Buffer_MemoryLayout {
            struct_size: std::mem::size_of::<PJRT_Buffer_MemoryLayout>(),
            extension_start: std::ptr::null_mut(),
            layout: MemoryLayoutUnion {
                tiled: PJRT_Buffer_MemoryLayout_Tiled {
                    struct_size: std::mem::size_of::<PJRT_Buffer_MemoryLayout_Tiled>(),
                    extension_start: std::ptr::null_mut(),
                    minor_to_major: b.minor_to_major.as_ptr(),
                    minor_to_major_size: b.minor_to_major.len(),
                    tile_dims: std::ptr::null(),
                    tile_dim_sizes: std::ptr::null(),
                    num_tiles: 0,
                },
            },
            type_: PJRT_Buffer_MemoryLayout_Type_Tiled,
        };
        Ok(())
    }

    fn buffer_copy_raw_to_host(a: PJRT_Buffer_CopyRawToHost_Args) {
        // SAFETY: a live buffer.
        let b = unsafe { buffer_ref(a.buffer)? };
        let lit = b.literal()?;
        let bytes = literal_bytes(Buffer::array(&lit)?);
        let (Ok(offset), Ok(size)) = (usize::try_from(a.offset), usize::try_from(a.transfer_size))
        else {
            return Err(Error::invalid("CopyRawToHost: negative offset or size"));
        };
        let end = offset
            .checked_add(size)
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| {
                Error::invalid(format!(
                    "CopyRawToHost: [{offset}, +{size}) is outside {} bytes",
                    bytes.len()
                ))
            })?;
        if size > 0 && a.dst.is_null() {
            return Err(Error::invalid("CopyRawToHost: NULL destination"));
        }
        // SAFETY: the destination holds `size` bytes (the caller's contract).
        unsafe {
            std::ptr::copy_nonoverlapping(bytes[offset..end].as_ptr(), a.dst.cast::<u8>(), size)
        };
        a.event = Event::ready();
        Ok(())
    }

    fn buffer_copy_to_memory(a: PJRT_Buffer_CopyToMemory_Args) {
        // SAFETY: a live buffer whose client outlives it.
        let b = unsafe { buffer_ref(a.buffer)? };
        let client = unsafe { &*b.client };
        let device = check_memory(client, a.dst_memory)?.unwrap_or(b.device);
        let lit = b.literal()?;
        a.dst_buffer = Buffer::new(client, device, Buffer::array(&lit)?.clone()).into_raw();
        Ok(())
    }

    fn buffer_copy_to_device(a: PJRT_Buffer_CopyToDevice_Args) {
        // SAFETY: a live buffer whose client outlives it.
        let b = unsafe { buffer_ref(a.buffer)? };
        let client = unsafe { &*b.client };
        let device = check_device(client, a.dst_device)?.unwrap_or(b.device);
        let lit = b.literal()?;
        a.dst_buffer = Buffer::new(client, device, Buffer::array(&lit)?.clone()).into_raw();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        assert_eq!(checked_size(&[2, 3], PrimitiveType::F32).unwrap(), (6, 24));
        assert_eq!(checked_size(&[], PrimitiveType::F64).unwrap(), (1, 8));
        assert_eq!(checked_size(&[0, 5], PrimitiveType::S8).unwrap(), (0, 0));
        assert!(checked_size(&[-1], PrimitiveType::F32).is_err());
        assert!(checked_size(&[i64::MAX, i64::MAX], PrimitiveType::F32).is_err());
        let e = checked_size(&[1 << 40, 8], PrimitiveType::F32).unwrap_err();
        assert_eq!(e.code, Code::ResourceExhausted);
        assert!(checked_size(&[1; 65], PrimitiveType::F32).is_err());
    }

    #[test]
    fn every_stored_type_round_trips_its_code() {
        // Every PJRT element type but the token, the narrow formats included.
        for code in (1..=31).filter(|&c| c != PJRT_BUFFER_TYPE_TOKEN) {
            let t = element_type(code).unwrap();
            assert_eq!(buffer_type(t).unwrap(), code);
        }
        assert_eq!(
            element_type(PJRT_BUFFER_TYPE_TOKEN).unwrap_err().code,
            Code::InvalidArgument
        );
        assert_eq!(element_type(99).unwrap_err().code, Code::InvalidArgument);
    }

    #[test]
    fn strided_gather_transposes() {
        // A 2x3 f32 array stored column-major: strides (4, 8).
        let col_major: [f32; 6] = [0., 3., 1., 4., 2., 5.];
        // SAFETY: the strides stay inside the array.
        let bytes =
            unsafe { gather_strided(col_major.as_ptr().cast(), &[2, 3], &[4, 8], 4, 24).unwrap() };
        let data = array_data_from_bytes(PrimitiveType::F32, &bytes).unwrap();
        assert_eq!(data, ArrayData::F32(vec![0., 1., 2., 3., 4., 5.]));
    }

    #[test]
    fn pred_bytes_become_bools() {
        let d = array_data_from_bytes(PrimitiveType::Pred, &[0, 1, 2]).unwrap();
        assert_eq!(d, ArrayData::Pred(vec![false, true, true]));
    }
}
