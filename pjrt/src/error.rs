//! Errors across the C boundary, and the guard every `extern "C"` body runs under.
//!
//! A `PJRT_Error*` is a boxed [`Error`]: a PJRT (absl) status code and xlac's one-line
//! message. The client frees it with `PJRT_Error_Destroy`. [`guard`] runs an entry point's
//! body under `catch_unwind`, so a panic becomes an `INTERNAL` error instead of unwinding
//! into C++ (which would abort the host process), and writes the call log line.

use std::ffi::{c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::abi::{PJRT_Error_Code, PJRT_Error_FunctionTable, PJRT_Error_PayloadVisitor};
use crate::call_log;

/// The absl status codes PJRT uses (`PJRT_Error_Code`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Code {
    /// `CANCELLED`
    Cancelled = 1,
    /// `INVALID_ARGUMENT`: the caller's program, options or arguments are wrong.
    InvalidArgument = 3,
    /// `NOT_FOUND`
    NotFound = 5,
    /// `RESOURCE_EXHAUSTED`: a size limit was hit.
    ResourceExhausted = 8,
    /// `FAILED_PRECONDITION`: e.g. a deleted buffer was used.
    FailedPrecondition = 9,
    /// `OUT_OF_RANGE`
    OutOfRange = 11,
    /// `UNIMPLEMENTED`: a PJRT function or a program feature xlac does not have.
    Unimplemented = 12,
    /// `INTERNAL`: a bug in xlac (a panic, a broken invariant).
    Internal = 13,
    /// `UNAVAILABLE`: a process of the job is gone.
    Unavailable = 14,
}

/// The status name as absl prints it (`INVALID_ARGUMENT`).
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Cancelled => "CANCELLED",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::NotFound => "NOT_FOUND",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
    }
}

/// The error behind a `PJRT_Error*`. `vtable` comes first, as the 0.107 header lays out
/// `struct PJRT_Error`.
#[repr(C)]
pub struct Error {
    vtable: *const PJRT_Error_FunctionTable,
    /// The status code.
    pub code: Code,
    /// xlac's one-line message (`error:` lines without the prefix).
    pub message: String,
}

/// A result whose error becomes a `PJRT_Error*`.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error with a code and a message.
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error {
            vtable: &ERROR_VTABLE.0,
            code,
            message: message.into(),
        }
    }

    /// `INVALID_ARGUMENT`.
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(Code::InvalidArgument, message)
    }

    /// `UNIMPLEMENTED`.
    pub fn unimplemented(message: impl Into<String>) -> Error {
        Error::new(Code::Unimplemented, message)
    }

    /// Hands the error to C.
    pub fn into_raw(self) -> *mut c_void {
        Box::into_raw(Box::new(self)).cast()
    }
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.code, self.message)
    }
}

/// The error vtable; a wrapper because a static must be `Sync`.
struct VTable(PJRT_Error_FunctionTable);

// SAFETY: the table only holds function pointers and a NULL extension.
unsafe impl Sync for VTable {}

static ERROR_VTABLE: VTable = VTable(PJRT_Error_FunctionTable {
    struct_size: std::mem::size_of::<PJRT_Error_FunctionTable>(),
    instance_size: std::mem::size_of::<Error>(),
    extension_start: std::ptr::null_mut(),
    destroy: vtable_destroy,
    message: vtable_message,
    get_code: vtable_get_code,
    for_each_payload: vtable_for_each_payload,
});

// SAFETY: the vtable pointer is to an immutable static.
unsafe impl Sync for Error {}
unsafe impl Send for Error {}

unsafe extern "C" fn vtable_destroy(e: *mut c_void) {
    let _ = catch_unwind(|| {
        if !e.is_null() {
            // SAFETY: `e` came from `Error::into_raw`.
            drop(unsafe { Box::from_raw(e.cast::<Error>()) });
        }
    });
}

unsafe extern "C" fn vtable_message(
    e: *const c_void,
    message: *mut *const c_char,
    size: *mut usize,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `e` is a live error; the out pointers are the caller's.
        let e = unsafe { &*e.cast::<Error>() };
        unsafe {
            *message = e.message.as_ptr().cast();
            *size = e.message.len();
        }
    }));
}

unsafe extern "C" fn vtable_get_code(e: *const c_void) -> PJRT_Error_Code {
    // SAFETY: `e` is a live error.
    catch_unwind(|| unsafe { (*e.cast::<Error>()).code as i32 }).unwrap_or(Code::Internal as i32)
}

unsafe extern "C" fn vtable_for_each_payload(
    _: *const c_void,
    _: PJRT_Error_PayloadVisitor,
    _: *mut c_void,
) {
    // xlac's errors carry no payloads.
}

/// Borrows the [`Error`] behind a `PJRT_Error*`.
///
/// # Safety
/// `e` must be NULL or come from [`Error::into_raw`] and not be destroyed.
pub unsafe fn error_ref<'a>(e: *const c_void) -> Result<&'a Error> {
    if e.is_null() {
        return Err(Error::invalid("the PJRT_Error is NULL"));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { &*e.cast::<Error>() })
}

/// PJRT entry points, one row each: `fn name(a: PJRT_X_Args) { body }` becomes
/// `pub unsafe extern "C" fn name(args: *mut PJRT_X_Args) -> *mut c_void`, which runs
/// `body` on the args through [`guard`] (a NULL args struct, an error and a panic all
/// return a `PJRT_Error`), under the API name `X` for the call log and messages.
macro_rules! entry_points {
    ($( $(#[$doc:meta])* fn $name:ident($a:ident: $args:ident $(,)?) $body:block )*) => {
        $(
            $(#[$doc])*
            pub unsafe extern "C" fn $name(args: *mut $args) -> *mut c_void {
                guard($crate::error::api_name(stringify!($args)), args, |$a| $body)
            }
        )*
    };
}
pub(crate) use entry_points;

/// The API name of a PJRT args struct (`PJRT_Client_Destroy_Args` is `Client_Destroy`).
pub(crate) fn api_name(args_struct: &'static str) -> &'static str {
    args_struct
        .strip_prefix("PJRT_")
        .and_then(|s| s.strip_suffix("_Args"))
        .unwrap_or(args_struct)
}

/// Runs one entry point: logs the call, catches panics, and turns an error into a
/// `PJRT_Error*` (NULL on success). `args` is the args struct, checked for NULL here.
pub(crate) fn guard<A>(
    name: &'static str,
    args: *mut A,
    body: impl FnOnce(&mut A) -> Result<()>,
) -> *mut c_void {
    call_log::record(name);
    if args.is_null() {
        return Error::invalid(format!("PJRT_{name}: the args struct is NULL")).into_raw();
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the caller hands a valid, exclusive args struct for the call's duration.
        body(unsafe { &mut *args })
    }));
    match outcome {
        Ok(Ok(())) => std::ptr::null_mut(),
        Ok(Err(e)) => {
            call_log::record_error(name, &e);
            e.into_raw()
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            let e = Error::new(
                Code::Internal,
                format!("xlac internal error in PJRT_{name}: {what}"),
            );
            call_log::record_error(name, &e);
            e.into_raw()
        }
    }
}

/// [`guard`] for the two functions that return `void` (`Error_Destroy`, `Error_Message`):
/// a panic is swallowed, as there is no way to report it.
pub(crate) fn guard_void<A>(name: &'static str, args: *mut A, body: impl FnOnce(&mut A)) {
    call_log::record(name);
    if args.is_null() {
        return;
    }
    // SAFETY: as in `guard`.
    let _ = catch_unwind(AssertUnwindSafe(|| body(unsafe { &mut *args })));
}

/// Reads a `(pointer, length)` byte string from C; NULL with length 0 is empty.
///
/// # Safety
/// `ptr` must be valid for `len` bytes when non-NULL.
pub unsafe fn bytes<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::invalid(format!(
            "{what} is NULL but has {len} bytes"
        )));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// Reads a `(pointer, count)` array from C; NULL with count 0 is empty.
///
/// # Safety
/// `ptr` must be valid for `count` elements when non-NULL.
pub unsafe fn slice<'a, T>(ptr: *const T, count: usize, what: &str) -> Result<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::invalid(format!(
            "{what} is NULL but has {count} elements"
        )));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, count) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_error() {
        let mut x = 0u8;
        let e = guard("Test_Panic", &mut x, |_| panic!("boom"));
        assert!(!e.is_null());
        // SAFETY: `guard` returned a live error.
        let err = unsafe { Box::from_raw(e.cast::<Error>()) };
        assert_eq!(err.code, Code::Internal);
        assert!(err.message.contains("boom"), "{}", err.message);
    }

    #[test]
    fn null_args_are_invalid_and_success_is_null() {
        let e = guard::<u8>("Test_Null", std::ptr::null_mut(), |_| Ok(()));
        // SAFETY: `guard` returned a live error.
        let err = unsafe { Box::from_raw(e.cast::<Error>()) };
        assert_eq!(err.code, Code::InvalidArgument);
        let mut x = 0u8;
        assert!(guard("Test_Ok", &mut x, |_| Ok(())).is_null());
    }
}
