//! Drives the plugin through its C table, as the framework does: the cdylib is `dlopen`ed,
//! `GetPjrtApi` gives the table, and every call goes through a slot. No Python involved.

#![allow(dead_code)]

use std::ffi::c_void;
use std::path::PathBuf;

use xlac_pjrt::abi::*;

/// The built `libxlac_pjrt.so` next to the test binary (`target/<profile>/deps/..`).
pub fn library_path() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("deps dir");
    for dir in [deps, deps.parent().expect("profile dir")] {
        let p = dir.join("libxlac_pjrt.so");
        if p.exists() {
            return p;
        }
    }
    panic!("libxlac_pjrt.so not found next to {}", exe.display());
}

/// A loaded plugin.
pub struct Plugin {
    _lib: libloading::Library,
    pub api: &'static PJRT_Api,
}

/// A failed call: the PJRT code and message.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

pub fn load() -> Plugin {
    // SAFETY: the plugin's initializers are Rust statics with no side effects.
    let lib = unsafe { libloading::Library::new(library_path()) }.expect("dlopen");
    // SAFETY: the exported symbol has this signature.
    let get: libloading::Symbol<unsafe extern "C" fn() -> *const PJRT_Api> =
        unsafe { lib.get(b"GetPjrtApi") }.expect("GetPjrtApi");
    // SAFETY: the table is a static inside the library, which lives as long as `_lib`
    // (the tests keep the Plugin alive for their whole run).
    let api = unsafe { &*get() };
    Plugin { _lib: lib, api }
}

pub fn args<T>() -> T {
    // SAFETY: every args struct is plain data; all-zero is a valid "nothing set" value.
    let mut a: T = unsafe { std::mem::zeroed() };
    // SAFETY: every args struct starts with `size_t struct_size`.
    unsafe { *(&mut a as *mut T).cast::<usize>() = std::mem::size_of::<T>() };
    a
}

impl Plugin {
    pub fn slot(&self, name: &str) -> *const c_void {
        self.api.slots[slot_index(name)]
    }

    /// Calls slot `name` with `args`; an error is read and destroyed.
    pub fn call<A>(&self, name: &str, args: &mut A) -> Result<(), Failure> {
        let f = self.slot(name);
        assert!(!f.is_null(), "slot {name} is NULL");
        // SAFETY: every slot but the two void ones takes one args pointer and returns an error.
        let f: unsafe extern "C" fn(*mut A) -> *mut c_void = unsafe { std::mem::transmute(f) };
        // SAFETY: `args` is the struct this slot expects.
        let e = unsafe { f(args) };
        if e.is_null() {
            return Ok(());
        }
        Err(self.take_error(e))
    }

    pub fn take_error(&self, e: *mut c_void) -> Failure {
        let mut code: PJRT_Error_GetCode_Args = args();
        code.error = e;
        self.call("Error_GetCode", &mut code).expect("GetCode");
        let mut msg: PJRT_Error_Message_Args = args();
        msg.error = e;
        // SAFETY: Error_Message returns void.
        let f: unsafe extern "C" fn(*mut PJRT_Error_Message_Args) =
            unsafe { std::mem::transmute(self.slot("Error_Message")) };
        unsafe { f(&mut msg) };
        // SAFETY: the message lives as long as the error.
        let message =
            unsafe { std::slice::from_raw_parts(msg.message.cast::<u8>(), msg.message_size) };
        let message = String::from_utf8_lossy(message).into_owned();
        let mut d: PJRT_Error_Destroy_Args = args();
        d.error = e;
        let f: unsafe extern "C" fn(*mut PJRT_Error_Destroy_Args) =
            unsafe { std::mem::transmute(self.slot("Error_Destroy")) };
        unsafe { f(&mut d) };
        Failure {
            code: code.code,
            message,
        }
    }

    /// `Client_Create` with string options.
    pub fn client(&self, options: &[(&str, &str)]) -> Result<*mut c_void, Failure> {
        let values: Vec<PJRT_NamedValue> = options
            .iter()
            .map(|(k, v)| PJRT_NamedValue {
                struct_size: std::mem::size_of::<PJRT_NamedValue>(),
                extension_start: std::ptr::null_mut(),
                name: k.as_ptr().cast(),
                name_size: k.len(),
                type_: PJRT_NamedValue_kString,
                value: NamedValueUnion {
                    string_value: v.as_ptr().cast(),
                },
                value_size: v.len(),
            })
            .collect();
        let mut a: PJRT_Client_Create_Args = args();
        a.create_options = values.as_ptr();
        a.num_options = values.len();
        self.call("Client_Create", &mut a)?;
        Ok(a.client)
    }

    pub fn destroy_client(&self, client: *mut c_void) {
        let mut a: PJRT_Client_Destroy_Args = args();
        a.client = client;
        self.call("Client_Destroy", &mut a).expect("Client_Destroy");
    }

    pub fn destroy_event(&self, event: *mut c_void) {
        let mut a: PJRT_Event_Destroy_Args = args();
        a.event = event;
        self.call("Event_Destroy", &mut a).expect("Event_Destroy");
    }

    /// `BufferFromHostBuffer` of dense row-major bytes.
    pub fn buffer(
        &self,
        client: *mut c_void,
        ty: i32,
        dims: &[i64],
        data: &[u8],
    ) -> Result<*mut c_void, Failure> {
        let mut a: PJRT_Client_BufferFromHostBuffer_Args = args();
        a.client = client;
        a.data = data.as_ptr().cast();
        a.type_ = ty;
        a.dims = dims.as_ptr();
        a.num_dims = dims.len();
        a.host_buffer_semantics = 2; // kImmutableZeroCopy, as JAX sends
        self.call("Client_BufferFromHostBuffer", &mut a)?;
        self.destroy_event(a.done_with_host_buffer);
        Ok(a.buffer)
    }

    pub fn destroy_buffer(&self, b: *mut c_void) {
        let mut a: PJRT_Buffer_Destroy_Args = args();
        a.buffer = b;
        self.call("Buffer_Destroy", &mut a).expect("Buffer_Destroy");
    }

    /// `ToHostBuffer` in two calls (size, then copy), with the row-major layout JAX passes.
    pub fn to_host(&self, b: *mut c_void) -> Result<Vec<u8>, Failure> {
        let mut a: PJRT_Buffer_ToHostBuffer_Args = args();
        a.src = b;
        self.call("Buffer_ToHostBuffer", &mut a)?;
        let mut out = vec![0u8; a.dst_size];
        a.dst = out.as_mut_ptr().cast();
        self.call("Buffer_ToHostBuffer", &mut a)?;
        self.destroy_event(a.event);
        Ok(out)
    }

    pub fn dims(&self, b: *mut c_void) -> Vec<i64> {
        let mut a: PJRT_Buffer_Dimensions_Args = args();
        a.buffer = b;
        self.call("Buffer_Dimensions", &mut a).expect("Dimensions");
        // SAFETY: the dims live as long as the buffer.
        unsafe { std::slice::from_raw_parts(a.dims, a.num_dims) }.to_vec()
    }

    pub fn element_type(&self, b: *mut c_void) -> i32 {
        let mut a: PJRT_Buffer_ElementType_Args = args();
        a.buffer = b;
        self.call("Buffer_ElementType", &mut a)
            .expect("ElementType");
        a.type_
    }

    /// `Client_Compile` of program bytes with format `mlir` and serialized options.
    pub fn compile(
        &self,
        client: *mut c_void,
        code: &[u8],
        options: &[u8],
    ) -> Result<*mut c_void, Failure> {
        let format = "mlir";
        let mut program: PJRT_Program = args();
        program.code = code.as_ptr().cast_mut().cast();
        program.code_size = code.len();
        program.format = format.as_ptr().cast();
        program.format_size = format.len();
        let mut a: PJRT_Client_Compile_Args = args();
        a.client = client;
        a.program = &program;
        a.compile_options = options.as_ptr().cast();
        a.compile_options_size = options.len();
        self.call("Client_Compile", &mut a)?;
        Ok(a.executable)
    }

    pub fn num_outputs(&self, loaded: *mut c_void) -> usize {
        let mut g: PJRT_LoadedExecutable_GetExecutable_Args = args();
        g.loaded_executable = loaded;
        self.call("LoadedExecutable_GetExecutable", &mut g)
            .expect("GetExecutable");
        let mut n: PJRT_Executable_NumOutputs_Args = args();
        n.executable = g.executable;
        self.call("Executable_NumOutputs", &mut n)
            .expect("NumOutputs");
        let mut d: PJRT_Executable_Destroy_Args = args();
        d.executable = g.executable;
        self.call("Executable_Destroy", &mut d)
            .expect("Executable_Destroy");
        n.num_outputs
    }

    /// `Execute` on one device, as JAX calls it; returns the output buffers.
    pub fn execute(
        &self,
        loaded: *mut c_void,
        inputs: &[*mut c_void],
    ) -> Result<Vec<*mut c_void>, Failure> {
        self.execute_with(loaded, inputs, &[])
    }

    /// [`Self::execute`] with `non_donatable_input_indices`.
    pub fn execute_with(
        &self,
        loaded: *mut c_void,
        inputs: &[*mut c_void],
        non_donatable: &[i64],
    ) -> Result<Vec<*mut c_void>, Failure> {
        let n = self.num_outputs(loaded);
        let mut outputs = vec![std::ptr::null_mut::<c_void>(); n];
        let input_list: *const *mut c_void = inputs.as_ptr();
        let output_list: *mut *mut c_void = outputs.as_mut_ptr();
        let mut event: *mut c_void = std::ptr::null_mut();
        let mut options: PJRT_ExecuteOptions = args();
        options.launch_id = 1;
        options.non_donatable_input_indices = non_donatable.as_ptr();
        options.num_non_donatable_input_indices = non_donatable.len();
        let mut a: PJRT_LoadedExecutable_Execute_Args = args();
        a.executable = loaded;
        a.options = &mut options;
        a.argument_lists = &input_list;
        a.num_devices = 1;
        a.num_args = inputs.len();
        a.output_lists = &output_list;
        a.device_complete_events = &mut event;
        self.call("LoadedExecutable_Execute", &mut a)?;
        if !event.is_null() {
            let mut w: PJRT_Event_Await_Args = args();
            w.event = event;
            self.call("Event_Await", &mut w)?;
            self.destroy_event(event);
        }
        Ok(outputs)
    }

    /// `Execute` on every device of the program, one argument list per device; returns
    /// each device's output buffers.
    pub fn execute_on_devices(
        &self,
        loaded: *mut c_void,
        inputs: &[&[*mut c_void]],
    ) -> Result<Vec<Vec<*mut c_void>>, Failure> {
        let n = self.num_outputs(loaded);
        let mut outputs = vec![vec![std::ptr::null_mut::<c_void>(); n]; inputs.len()];
        let input_lists: Vec<*const *mut c_void> = inputs.iter().map(|l| l.as_ptr()).collect();
        let output_lists: Vec<*mut *mut c_void> =
            outputs.iter_mut().map(|l| l.as_mut_ptr()).collect();
        let mut events = vec![std::ptr::null_mut::<c_void>(); inputs.len()];
        let mut options: PJRT_ExecuteOptions = args();
        let mut a: PJRT_LoadedExecutable_Execute_Args = args();
        a.executable = loaded;
        a.options = &mut options;
        a.argument_lists = input_lists.as_ptr();
        a.num_devices = inputs.len();
        a.num_args = inputs.first().map_or(0, |l| l.len());
        a.output_lists = output_lists.as_ptr();
        a.device_complete_events = events.as_mut_ptr();
        self.call("LoadedExecutable_Execute", &mut a)?;
        for event in events.into_iter().filter(|e| !e.is_null()) {
            self.destroy_event(event);
        }
        Ok(outputs)
    }

    /// `Buffer_IsDeleted`.
    pub fn is_deleted(&self, b: *mut c_void) -> bool {
        let mut a: PJRT_Buffer_IsDeleted_Args = args();
        a.buffer = b;
        self.call("Buffer_IsDeleted", &mut a).expect("IsDeleted");
        a.is_deleted
    }

    /// `Buffer_OpaqueDeviceMemoryDataPointer`.
    pub fn data_pointer(&self, b: *mut c_void) -> usize {
        let mut a: PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args = args();
        a.buffer = b;
        self.call("Buffer_OpaqueDeviceMemoryDataPointer", &mut a)
            .expect("OpaqueDeviceMemoryDataPointer");
        a.device_memory_ptr as usize
    }

    pub fn destroy_loaded(&self, loaded: *mut c_void) {
        let mut a: PJRT_LoadedExecutable_Destroy_Args = args();
        a.executable = loaded;
        self.call("LoadedExecutable_Destroy", &mut a)
            .expect("LoadedExecutable_Destroy");
    }
}
