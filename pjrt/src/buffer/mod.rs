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

mod host_data;
mod queries;
#[cfg(test)]
mod tests;

use host_data::gather_strided;
pub use host_data::*;
pub use queries::*;

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
