//! Host callbacks from JAX (`jax.debug.print`, `pure_callback`, `io_callback`): the FFI
//! extension, the execute context, and the channel back into Python.
//!
//! How the callables reach a run, as jaxlib 0.10.2 does it for a CPU platform:
//! 1. jax lowers each callback to an `xla_ffi_python_cpu_callback` custom call whose
//!    `index` attribute names one entry of the compile's host-callback list;
//! 2. at each execute, IFRT puts `FfiLoadedHostCallbacks { void** callbacks; uint32 n }`
//!    (the callables as `PyObject*`) into an execute context, but only for a platform whose
//!    name is "cpu" (or a GPU's) and only through a plugin with the FFI extension: it calls
//!    `PJRT_ExecuteContext_Create`, then the extension's `user_data_add`, and passes the
//!    context in `PJRT_ExecuteOptions.context`;
//! 3. the run meets the custom call and calls the callable with numpy arrays.
//!
//! xlac cannot call a `PyObject*` itself (it does not link libpython). The Python package
//! registers a trampoline at start-up ([`xlac_pjrt_set_host_callback_trampoline`], through
//! ctypes, which takes the GIL when it is called); the run hands it the callable and the
//! operands as [`HostArray`]s, and it writes the results into the buffers given.

use std::ffi::{c_char, c_int, c_void};
use std::sync::{Arc, Mutex, RwLock};

use xlac::eval::host_callback::{HostCallbackHandler, HostCallbacks};
use xlac::ir::{ArrayLiteral, ArrayShape, Literal, PrimitiveType, Shape};

use crate::abi::{PJRT_Buffer_Type, PJRT_Extension_Base};
use crate::buffer::{array_data_from_bytes, buffer_type, checked_size, literal_bytes};
use crate::error::{Code, Error, Result, entry_points, guard};

/// `PJRT_Extension_Base` with its fields: the plugin's own extension chain.
#[repr(C)]
pub struct ExtensionBase {
    /// `sizeof` the whole extension struct.
    pub struct_size: usize,
    /// `PJRT_Extension_Type`.
    pub type_: c_int,
    /// The next extension, or NULL.
    pub next: *mut ExtensionBase,
}

/// `PJRT_Extension_Type_FFI`.
pub const PJRT_EXTENSION_TYPE_FFI: c_int = 5;

type ExtensionFn = unsafe extern "C" fn(*mut c_void) -> *mut c_void;

/// `PJRT_FFI_Extension` (version 3, as the C API client of jaxlib 0.10.2 reads it).
#[repr(C)]
pub struct FfiExtension {
    /// The chain link.
    pub base: ExtensionBase,
    /// `type_register`.
    pub type_register: ExtensionFn,
    /// `user_data_add`.
    pub user_data_add: ExtensionFn,
    /// `register_handler`.
    pub register_handler: ExtensionFn,
}

/// `PJRT_FFI_UserData`: a type id and a pointer the framework keeps alive for the run.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PJRT_FFI_UserData {
    /// The framework's FFI type id.
    pub type_id: i64,
    /// The object.
    pub data: *mut c_void,
}

/// `PJRT_FFI_UserData_Add_Args`.
#[repr(C)]
pub struct PJRT_FFI_UserData_Add_Args {
    /// `sizeof`.
    pub struct_size: usize,
    /// Unused.
    pub extension_start: *mut PJRT_Extension_Base,
    /// A context from `PJRT_ExecuteContext_Create`.
    pub context: *mut c_void,
    /// What to add.
    pub user_data: PJRT_FFI_UserData,
}

/// `PJRT_FFI_Type_Register_Args` and `PJRT_FFI_Register_Handler_Args` (xlac refuses both;
/// only the header is read).
#[repr(C)]
pub struct PJRT_FFI_Unsupported_Args {
    /// `sizeof`.
    pub struct_size: usize,
}

/// `PJRT_ExecuteContext_Create_Args` / `_Destroy_Args`.
#[repr(C)]
pub struct PJRT_ExecuteContext_Create_Args {
    /// `sizeof`.
    pub struct_size: usize,
    /// Unused.
    pub extension_start: *mut PJRT_Extension_Base,
    /// Out (create) or in (destroy).
    pub context: *mut c_void,
}

/// `PJRT_ExecuteContext_Destroy_Args` (the same fields).
#[allow(non_camel_case_types)]
pub type PJRT_ExecuteContext_Destroy_Args = PJRT_ExecuteContext_Create_Args;

/// The most user-data entries one context takes (jaxlib adds one).
const MAX_USER_DATA: usize = 64;

/// `PJRT_ExecuteContext`: the user data the framework added for one execute.
#[derive(Default)]
pub struct ExecuteContext {
    user_data: Mutex<Vec<PJRT_FFI_UserData>>,
}

// SAFETY: the pointers are the framework's, valid for the run, and only read.
unsafe impl Send for ExecuteContext {}
unsafe impl Sync for ExecuteContext {}

/// `FfiLoadedHostCallbacks` of `xla/pjrt/host_callback.h`.
#[repr(C)]
struct FfiLoadedHostCallbacks {
    callbacks: *mut *mut c_void,
    num_callbacks: u32,
}

/// The most host callbacks one executable may name.
const MAX_CALLBACKS: u32 = 1 << 16;

impl ExecuteContext {
    /// The host callbacks of this run, if the framework added them: the one user-data
    /// entry jaxlib adds on a CPU platform is `FfiLoadedHostCallbacks` (its type id is the
    /// framework's own, so the entry is recognized by being the only one).
    pub fn host_callbacks(&self) -> Result<Option<Arc<dyn xlac::eval::CustomCallHandler>>> {
        let data = self.user_data.lock().unwrap_or_else(|p| p.into_inner());
        let entry = match data.as_slice() {
            [] => return Ok(None),
            [one] => *one,
            more => {
                return Err(Error::invalid(format!(
                    "the execute context holds {} user-data entries; xlac reads one (the host \
                     callbacks)",
                    more.len()
                )));
            }
        };
        // SAFETY: the framework's FfiLoadedHostCallbacks, alive for the run.
        let loaded = unsafe { entry.data.cast::<FfiLoadedHostCallbacks>().as_ref() }
            .ok_or_else(|| Error::invalid("the host callbacks' user data is NULL"))?;
        if loaded.num_callbacks > MAX_CALLBACKS {
            return Err(Error::invalid(format!(
                "{} host callbacks; at most {MAX_CALLBACKS} are accepted",
                loaded.num_callbacks
            )));
        }
        // jaxlib adds the list to every execute, empty for a program without callbacks:
        // such a run needs no host (and may run asynchronously).
        if loaded.num_callbacks == 0 {
            return Ok(None);
        }
        // SAFETY: `callbacks` holds `num_callbacks` pointers.
        let callables = unsafe {
            crate::error::slice(
                loaded.callbacks.cast_const(),
                loaded.num_callbacks as usize,
                "host callbacks",
            )?
        }
        .iter()
        .map(|&p| p as usize)
        .collect();
        Ok(Some(Arc::new(HostCallbackHandler(Arc::new(
            PythonCallbacks { callables },
        )))))
    }
}

/// Borrows a context handle.
///
/// # Safety
/// `p` must be NULL or a live context from [`execute_context_create`].
pub unsafe fn context_ref<'a>(p: *mut c_void) -> Result<Option<&'a ExecuteContext>> {
    // SAFETY: the caller's contract.
    Ok(unsafe { p.cast::<ExecuteContext>().as_ref() })
}

entry_points! {
    fn execute_context_create(a: PJRT_ExecuteContext_Create_Args) {
        a.context = Box::into_raw(Box::<ExecuteContext>::default()).cast();
        Ok(())
    }

    fn execute_context_destroy(a: PJRT_ExecuteContext_Destroy_Args) {
        if !a.context.is_null() {
            // SAFETY: from `execute_context_create`; destroyed once.
            drop(unsafe { Box::from_raw(a.context.cast::<ExecuteContext>()) });
        }
        Ok(())
    }
}

/// `PJRT_FFI_Extension.user_data_add`.
unsafe extern "C" fn ffi_user_data_add(args: *mut c_void) -> *mut c_void {
    guard(
        "FFI_UserData_Add",
        args.cast::<PJRT_FFI_UserData_Add_Args>(),
        |a| {
            // SAFETY: a live context from `execute_context_create`.
            let context = unsafe { context_ref(a.context)? }
                .ok_or_else(|| Error::invalid("PJRT_FFI_UserData_Add: the context is NULL"))?;
            let mut data = context.user_data.lock().unwrap_or_else(|p| p.into_inner());
            if data.len() >= MAX_USER_DATA {
                return Err(Error::invalid(format!(
                    "an execute context takes at most {MAX_USER_DATA} user-data entries"
                )));
            }
            data.push(a.user_data);
            Ok(())
        },
    )
}

/// `PJRT_FFI_Extension.type_register`: refused, as xlac has no FFI type registry.
unsafe extern "C" fn ffi_type_register(args: *mut c_void) -> *mut c_void {
    guard(
        "FFI_Type_Register",
        args.cast::<PJRT_FFI_Unsupported_Args>(),
        |_| {
            Err(Error::unimplemented(
                "xlac runs no external FFI handlers, so it registers no FFI types",
            ))
        },
    )
}

/// `PJRT_FFI_Extension.register_handler`: refused; xlac runs the custom calls it knows.
unsafe extern "C" fn ffi_register_handler(args: *mut c_void) -> *mut c_void {
    guard(
        "FFI_Register_Handler",
        args.cast::<PJRT_FFI_Unsupported_Args>(),
        |_| {
            Err(Error::unimplemented(
                "xlac runs the custom calls it implements itself; it cannot load an FFI handler",
            ))
        },
    )
}

/// The extension chain `PJRT_Api.extension_start` points at: the FFI extension.
pub fn ffi_extension() -> *mut c_void {
    struct Chain(FfiExtension);
    // SAFETY: function pointers and a NULL link only.
    unsafe impl Send for Chain {}
    unsafe impl Sync for Chain {}
    static CHAIN: std::sync::OnceLock<Chain> = std::sync::OnceLock::new();
    let chain = CHAIN.get_or_init(|| {
        Chain(FfiExtension {
            base: ExtensionBase {
                struct_size: std::mem::size_of::<FfiExtension>(),
                type_: PJRT_EXTENSION_TYPE_FFI,
                next: std::ptr::null_mut(),
            },
            type_register: ffi_type_register,
            user_data_add: ffi_user_data_add,
            register_handler: ffi_register_handler,
        })
    });
    (&chain.0 as *const FfiExtension).cast_mut().cast()
}

// ---- the channel into Python ------------------------------------------------------------

/// One operand or result of a callback, as the trampoline sees it: dense row-major bytes.
/// A token has `data` NULL and `element_type` `PJRT_Buffer_Type_TOKEN` (23).
#[repr(C)]
pub struct HostArray {
    /// The elements (one byte per element for the sub-byte and 8-bit float types).
    pub data: *mut u8,
    /// Bytes at `data`.
    pub byte_size: usize,
    /// `PJRT_Buffer_Type`.
    pub element_type: PJRT_Buffer_Type,
    /// Dimensions.
    pub rank: usize,
    /// `rank` sizes.
    pub dims: *const i64,
}

/// The Python package's trampoline: calls `callable` (a `PyObject*`) on `args` and writes
/// its results into `results`' buffers; returns 0, or non-zero with a message in `error`.
pub type Trampoline = unsafe extern "C" fn(
    callable: *mut c_void,
    args: *const HostArray,
    num_args: usize,
    results: *const HostArray,
    num_results: usize,
    error: *mut c_char,
    error_capacity: usize,
) -> c_int;

static TRAMPOLINE: RwLock<Option<Trampoline>> = RwLock::new(None);

/// Registers (or, with NULL, removes) the trampoline host callbacks go through. The xlac
/// Python package calls it when JAX loads the plugin.
#[unsafe(no_mangle)]
pub extern "C" fn xlac_pjrt_set_host_callback_trampoline(trampoline: Option<Trampoline>) {
    *TRAMPOLINE.write().unwrap_or_else(|p| p.into_inner()) = trampoline;
}

/// `PJRT_Buffer_Type_TOKEN`.
const TOKEN: PJRT_Buffer_Type = 23;
/// Room for the trampoline's error message.
const ERROR_CAPACITY: usize = 4096;

/// The callables of one run, called through the trampoline.
struct PythonCallbacks {
    callables: Vec<usize>,
}

/// A literal's leaf as the trampoline reads it, with the storage it points into.
struct Staged {
    dims: Vec<i64>,
    bytes: Vec<u8>,
    element_type: PJRT_Buffer_Type,
}

impl Staged {
    fn token() -> Staged {
        Staged {
            dims: Vec::new(),
            bytes: Vec::new(),
            element_type: TOKEN,
        }
    }

    fn array(shape: &ArrayShape, bytes: Vec<u8>) -> Result<Staged> {
        Ok(Staged {
            dims: shape.dims.clone(),
            bytes,
            element_type: buffer_type(shape.element_type)?,
        })
    }

    fn view(&mut self) -> HostArray {
        HostArray {
            data: if self.element_type == TOKEN {
                std::ptr::null_mut()
            } else {
                self.bytes.as_mut_ptr()
            },
            byte_size: self.bytes.len(),
            element_type: self.element_type,
            rank: self.dims.len(),
            dims: self.dims.as_ptr(),
        }
    }
}

fn stage_operand(l: &Literal) -> Result<Staged> {
    match l {
        Literal::Token => Ok(Staged::token()),
        Literal::Array(a) => {
            // Row-major bytes: a literal's storage is its logical row-major order.
            Staged::array(&a.shape, literal_bytes(a).to_vec())
        }
        Literal::Tuple(_) => Err(Error::invalid(
            "a host callback operand is a tuple; jax passes arrays and tokens",
        )),
    }
}

fn stage_result(s: &Shape) -> Result<Staged> {
    match s {
        Shape::Token => Ok(Staged::token()),
        Shape::Array(a) => {
            let (_, bytes) = checked_size(&a.dims, a.element_type)?;
            let mut v = Vec::new();
            v.try_reserve_exact(bytes).map_err(|_| {
                Error::new(
                    Code::ResourceExhausted,
                    format!("cannot allocate {bytes} bytes"),
                )
            })?;
            v.resize(bytes, 0);
            Staged::array(a, v)
        }
        other => Err(Error::invalid(format!(
            "a host callback result of shape {other}; jax returns arrays and tokens"
        ))),
    }
}

fn unstage_result(s: &Shape, staged: Staged) -> Result<Literal> {
    match s {
        Shape::Array(a) => {
            let ty: PrimitiveType = a.element_type;
            let data = array_data_from_bytes(ty, &staged.bytes)?;
            Ok(Literal::Array(ArrayLiteral {
                shape: ArrayShape::new(ty, &a.dims),
                data,
            }))
        }
        _ => Ok(Literal::Token),
    }
}

impl HostCallbacks for PythonCallbacks {
    fn call(
        &self,
        index: u64,
        operands: &[&Literal],
        results: &[Shape],
    ) -> std::result::Result<Vec<Literal>, String> {
        let callable = usize::try_from(index)
            .ok()
            .and_then(|i| self.callables.get(i))
            .copied()
            .ok_or_else(|| {
                format!(
                    "the program calls host callback {index}, but the run was given {}",
                    self.callables.len()
                )
            })?;
        let trampoline =
            (*TRAMPOLINE.read().unwrap_or_else(|p| p.into_inner())).ok_or_else(|| {
                "no host-callback trampoline is registered (the xlac Python package registers \
                 it when JAX loads the plugin)"
                    .to_string()
            })?;
        let err = |e: Error| e.message;
        let mut args: Vec<Staged> = operands
            .iter()
            .map(|l| stage_operand(l))
            .collect::<Result<_>>()
            .map_err(err)?;
        let mut outs: Vec<Staged> = results
            .iter()
            .map(stage_result)
            .collect::<Result<_>>()
            .map_err(err)?;
        let arg_views: Vec<HostArray> = args.iter_mut().map(Staged::view).collect();
        let out_views: Vec<HostArray> = outs.iter_mut().map(Staged::view).collect();
        let mut message = vec![0u8; ERROR_CAPACITY];
        // SAFETY: the views point into `args` and `outs`, which outlive the call; the
        // trampoline writes at most `byte_size` bytes per result and `ERROR_CAPACITY` bytes
        // of message.
        let status = unsafe {
            trampoline(
                callable as *mut c_void,
                arg_views.as_ptr(),
                arg_views.len(),
                out_views.as_ptr(),
                out_views.len(),
                message.as_mut_ptr().cast(),
                ERROR_CAPACITY,
            )
        };
        if status != 0 {
            let end = message
                .iter()
                .position(|&b| b == 0)
                .unwrap_or(message.len());
            return Err(String::from_utf8_lossy(&message[..end]).into_owned());
        }
        results
            .iter()
            .zip(outs)
            .map(|(s, staged)| unstage_result(s, staged))
            .collect::<Result<_>>()
            .map_err(err)
    }
}
