//! The C ABI of the PJRT C API 0.112, written by hand from `xla/pjrt/c/pjrt_c_api.h` (the
//! header is not part of this repository). Only the argument structs xlac implements are
//! spelled out; every other slot of [`PJRT_Api`] points at an UNIMPLEMENTED trampoline that
//! never reads its arguments. Names are the header's, so a reader can grep both.
//!
//! Every args struct starts with `struct_size` and `extension_start`. The caller sets
//! `struct_size` to the size *it* was compiled with; fields past it must not be touched
//! (see [`has_field`]). C enums are plain `i32`s here: a value the caller made up must not
//! become an invalid Rust enum.
//!
//! The sizes asserted in the tests were measured with the C compiler against the header at
//! XLA 5a9e73cb (the commit jaxlib 0.10.2 was built from).

#![allow(non_camel_case_types, non_snake_case, missing_docs)]

use std::ffi::{c_char, c_int, c_void};

/// `PJRT_API_MAJOR`.
pub const PJRT_API_MAJOR: c_int = 0;
/// `PJRT_API_MINOR` of the header these structs follow.
pub const PJRT_API_MINOR: c_int = 112;

/// `PJRT_Error_Code` (absl status codes).
pub type PJRT_Error_Code = c_int;
/// `PJRT_Buffer_Type`.
pub type PJRT_Buffer_Type = c_int;
/// `PJRT_NamedValue_Type`.
pub type PJRT_NamedValue_Type = c_int;
/// `PJRT_HostBufferSemantics`.
pub type PJRT_HostBufferSemantics = c_int;
/// `PJRT_Buffer_MemoryLayout_Type`.
pub type PJRT_Buffer_MemoryLayout_Type = c_int;

pub const PJRT_NamedValue_kString: PJRT_NamedValue_Type = 0;
pub const PJRT_NamedValue_kInt64: PJRT_NamedValue_Type = 1;
pub const PJRT_NamedValue_kInt64List: PJRT_NamedValue_Type = 2;
pub const PJRT_NamedValue_kFloat: PJRT_NamedValue_Type = 3;
pub const PJRT_NamedValue_kBool: PJRT_NamedValue_Type = 4;

pub const PJRT_Buffer_MemoryLayout_Type_Tiled: PJRT_Buffer_MemoryLayout_Type = 0;
pub const PJRT_Buffer_MemoryLayout_Type_Strides: PJRT_Buffer_MemoryLayout_Type = 1;

/// Opaque to xlac: the caller's extension chain (xlac implements no extension).
pub type PJRT_Extension_Base = c_void;

/// True when a struct of `struct_size` bytes (as the caller declared it) reaches past
/// `offset + size` bytes, i.e. holds the field there.
pub fn has_field(struct_size: usize, offset: usize, size: usize) -> bool {
    struct_size >= offset + size
}

#[repr(C)]
pub struct PJRT_Api_Version {
    pub struct_size: usize,
    pub extension_start: *mut PJRT_Extension_Base,
    pub major_version: c_int,
    pub minor_version: c_int,
}

/// `PJRT_Error_FunctionTable`: errors carry a vtable since 0.107 (the client still calls
/// the `PJRT_Error_*` functions; the table is there for callers that use it).
#[repr(C)]
pub struct PJRT_Error_FunctionTable {
    pub struct_size: usize,
    pub instance_size: usize,
    pub extension_start: *mut PJRT_Extension_Base,
    pub destroy: unsafe extern "C" fn(*mut c_void),
    pub message: unsafe extern "C" fn(*const c_void, *mut *const c_char, *mut usize),
    pub get_code: unsafe extern "C" fn(*const c_void) -> PJRT_Error_Code,
    pub for_each_payload:
        unsafe extern "C" fn(*const c_void, PJRT_Error_PayloadVisitor, *mut c_void),
}

pub type PJRT_Error_PayloadVisitor =
    Option<unsafe extern "C" fn(*const c_char, usize, *const c_char, usize, *mut c_void)>;

/// `PJRT_Memory_FunctionTable` (0.105): the client calls `set_user_data` when non-NULL.
#[repr(C)]
pub struct PJRT_Memory_FunctionTable {
    pub struct_size: usize,
    pub extension_start: *mut PJRT_Extension_Base,
    pub instance_struct_size: usize,
    pub get_user_data: Option<unsafe extern "C" fn(*mut c_void, *const c_void) -> *mut c_void>,
    pub set_user_data: Option<
        unsafe extern "C" fn(
            *mut c_void,
            *const c_void,
            *mut c_void,
            Option<unsafe extern "C" fn(*mut c_void)>,
        ),
    >,
}

/// Declares `#[repr(C)]` args structs: every one starts with `struct_size` and
/// `extension_start`, then the listed fields.
macro_rules! args_structs {
    ($( $name:ident { $( $field:ident : $ty:ty ),* $(,)? } )*) => {$(
        #[repr(C)]
        pub struct $name {
            pub struct_size: usize,
            pub extension_start: *mut PJRT_Extension_Base,
            $( pub $field: $ty, )*
        }
    )*};
}

// Opaque handles: the plugin's own types behind them (see client.rs, buffer.rs, ...).
pub type PJRT_Error = c_void;
pub type PJRT_Event = c_void;
pub type PJRT_Client = c_void;
pub type PJRT_Device = c_void;
pub type PJRT_Memory = c_void;
pub type PJRT_DeviceDescription = c_void;
pub type PJRT_Executable = c_void;
pub type PJRT_LoadedExecutable = c_void;
pub type PJRT_Buffer = c_void;
pub type PJRT_TopologyDescription = c_void;
pub type PJRT_ExecuteContext = c_void;

/// `PJRT_CallbackError`: what the framework's key-value callbacks build their errors with.
pub type PJRT_CallbackError =
    unsafe extern "C" fn(PJRT_Error_Code, *const c_char, usize) -> *mut PJRT_Error;
/// `PJRT_KeyValueGetCallback_ValueDeleter`.
pub type PJRT_KeyValueGetCallback_ValueDeleter = Option<unsafe extern "C" fn(*mut c_char)>;

pub type PJRT_Event_OnReadyCallback = Option<unsafe extern "C" fn(*mut PJRT_Error, *mut c_void)>;

/// `PJRT_NamedValue`: the union is one 8-byte slot, read according to `type_`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PJRT_NamedValue {
    pub struct_size: usize,
    pub extension_start: *mut PJRT_Extension_Base,
    pub name: *const c_char,
    pub name_size: usize,
    pub type_: PJRT_NamedValue_Type,
    pub value: NamedValueUnion,
    pub value_size: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union NamedValueUnion {
    pub string_value: *const c_char,
    pub int64_value: i64,
    pub int64_array_value: *const i64,
    pub float_value: f32,
    pub bool_value: bool,
}

#[repr(C)]
pub struct PJRT_Program {
    pub struct_size: usize,
    pub extension_start: *mut PJRT_Extension_Base,
    pub code: *mut c_char,
    pub code_size: usize,
    pub format: *const c_char,
    pub format_size: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct PJRT_Buffer_MemoryLayout_Tiled {
    pub struct_size: usize,
    pub extension_start: *mut PJRT_Extension_Base,
    pub minor_to_major: *const i64,
    pub minor_to_major_size: usize,
    pub tile_dims: *const i64,
    pub tile_dim_sizes: *const usize,
    pub num_tiles: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct PJRT_Buffer_MemoryLayout_Strides {
    pub struct_size: usize,
    pub extension_start: *mut PJRT_Extension_Base,
    pub byte_strides: *const i64,
    pub num_byte_strides: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union MemoryLayoutUnion {
    pub tiled: PJRT_Buffer_MemoryLayout_Tiled,
    pub strides: PJRT_Buffer_MemoryLayout_Strides,
}

#[repr(C)]
pub struct PJRT_Buffer_MemoryLayout {
    pub struct_size: usize,
    pub extension_start: *mut PJRT_Extension_Base,
    pub layout: MemoryLayoutUnion,
    pub type_: PJRT_Buffer_MemoryLayout_Type,
}

#[repr(C)]
pub struct PJRT_ExecuteOptions {
    pub struct_size: usize,
    pub extension_start: *mut PJRT_Extension_Base,
    pub send_callbacks: *mut *mut c_void,
    pub recv_callbacks: *mut *mut c_void,
    pub num_send_ops: usize,
    pub num_recv_ops: usize,
    pub launch_id: c_int,
    pub non_donatable_input_indices: *const i64,
    pub num_non_donatable_input_indices: usize,
    pub context: *mut PJRT_ExecuteContext,
    pub call_location: *const c_char,
    pub num_tasks: usize,
    pub task_ids: *mut c_int,
    pub incarnation_ids: *mut i64,
    pub multi_slice_config: *mut c_void,
    pub use_major_to_minor_data_layout_for_callbacks: bool,
    pub hlo_output_callbacks: *mut c_void,
    pub num_hlo_output_callbacks: usize,
}

args_structs! {
    PJRT_Error_Destroy_Args { error: *mut PJRT_Error }
    PJRT_Error_Message_Args { error: *const PJRT_Error, message: *const c_char, message_size: usize }
    PJRT_Error_GetCode_Args { error: *const PJRT_Error, code: PJRT_Error_Code }
    PJRT_Error_ForEachPayload_Args {
        error: *const PJRT_Error, visitor: PJRT_Error_PayloadVisitor, user_arg: *mut c_void,
    }
    PJRT_Plugin_Initialize_Args {}
    PJRT_Plugin_Attributes_Args { attributes: *const PJRT_NamedValue, num_attributes: usize }

    PJRT_Event_Destroy_Args { event: *mut PJRT_Event }
    PJRT_Event_IsReady_Args { event: *mut PJRT_Event, is_ready: bool }
    PJRT_Event_Error_Args { event: *mut PJRT_Event }
    PJRT_Event_Await_Args { event: *mut PJRT_Event }
    PJRT_Event_OnReady_Args {
        event: *mut PJRT_Event, callback: PJRT_Event_OnReadyCallback, user_arg: *mut c_void,
    }

    PJRT_Client_Create_Args {
        create_options: *const PJRT_NamedValue, num_options: usize,
        kv_get_callback: *mut c_void, kv_get_user_arg: *mut c_void,
        kv_put_callback: *mut c_void, kv_put_user_arg: *mut c_void,
        client: *mut PJRT_Client,
        kv_try_get_callback: *mut c_void, kv_try_get_user_arg: *mut c_void,
    }
    PJRT_Client_Destroy_Args { client: *mut PJRT_Client }
    PJRT_KeyValueGetCallback_Args {
        key: *const c_char, key_size: usize, timeout_in_ms: c_int,
        callback_error: *const PJRT_CallbackError, user_arg: *mut c_void,
        value: *mut c_char, value_size: usize,
        value_deleter_callback: PJRT_KeyValueGetCallback_ValueDeleter,
    }
    PJRT_KeyValuePutCallback_Args {
        key: *const c_char, key_size: usize, value: *const c_char, value_size: usize,
        callback_error: *const PJRT_CallbackError, user_arg: *mut c_void,
    }
    PJRT_Client_UpdateGlobalProcessInfo_Args {
        client: *mut PJRT_Client, process_infos: *mut c_void, num_process_infos: usize,
    }
    PJRT_Client_PlatformName_Args {
        client: *mut PJRT_Client, platform_name: *const c_char, platform_name_size: usize,
    }
    PJRT_Client_ProcessIndex_Args { client: *mut PJRT_Client, process_index: c_int }
    PJRT_Client_PlatformVersion_Args {
        client: *mut PJRT_Client, platform_version: *const c_char, platform_version_size: usize,
    }
    PJRT_Client_Devices_Args {
        client: *mut PJRT_Client, devices: *const *mut PJRT_Device, num_devices: usize,
    }
    PJRT_Client_AddressableDevices_Args {
        client: *mut PJRT_Client, addressable_devices: *const *mut PJRT_Device,
        num_addressable_devices: usize,
    }
    PJRT_Client_LookupDevice_Args { client: *mut PJRT_Client, id: c_int, device: *mut PJRT_Device }
    PJRT_Client_LookupAddressableDevice_Args {
        client: *mut PJRT_Client, local_hardware_id: c_int, addressable_device: *mut PJRT_Device,
    }
    PJRT_Client_AddressableMemories_Args {
        client: *mut PJRT_Client, addressable_memories: *const *mut PJRT_Memory,
        num_addressable_memories: usize,
    }
    PJRT_Client_Compile_Args {
        client: *mut PJRT_Client, program: *const PJRT_Program,
        compile_options: *const c_char, compile_options_size: usize,
        executable: *mut PJRT_LoadedExecutable,
    }
    PJRT_Client_DefaultDeviceAssignment_Args {
        client: *mut PJRT_Client, num_replicas: c_int, num_partitions: c_int,
        default_assignment_size: usize, default_assignment: *mut c_int,
    }
    PJRT_Client_BufferFromHostBuffer_Args {
        client: *mut PJRT_Client, data: *const c_void, type_: PJRT_Buffer_Type,
        dims: *const i64, num_dims: usize, byte_strides: *const i64, num_byte_strides: usize,
        host_buffer_semantics: PJRT_HostBufferSemantics, device: *mut PJRT_Device,
        memory: *mut PJRT_Memory, device_layout: *mut PJRT_Buffer_MemoryLayout,
        done_with_host_buffer: *mut PJRT_Event, buffer: *mut PJRT_Buffer,
    }
    PJRT_Client_TopologyDescription_Args {
        client: *mut PJRT_Client, topology: *mut PJRT_TopologyDescription,
    }

    PJRT_DeviceDescription_Id_Args { device_description: *mut PJRT_DeviceDescription, id: c_int }
    PJRT_DeviceDescription_ProcessIndex_Args {
        device_description: *mut PJRT_DeviceDescription, process_index: c_int,
    }
    PJRT_DeviceDescription_Attributes_Args {
        device_description: *mut PJRT_DeviceDescription, num_attributes: usize,
        attributes: *const PJRT_NamedValue,
    }
    PJRT_DeviceDescription_Kind_Args {
        device_description: *mut PJRT_DeviceDescription, device_kind: *const c_char,
        device_kind_size: usize,
    }
    PJRT_DeviceDescription_DebugString_Args {
        device_description: *mut PJRT_DeviceDescription, debug_string: *const c_char,
        debug_string_size: usize,
    }
    PJRT_DeviceDescription_ToString_Args {
        device_description: *mut PJRT_DeviceDescription, to_string: *const c_char,
        to_string_size: usize,
    }

    PJRT_Device_GetDescription_Args {
        device: *mut PJRT_Device, device_description: *mut PJRT_DeviceDescription,
    }
    PJRT_Device_IsAddressable_Args { device: *mut PJRT_Device, is_addressable: bool }
    PJRT_Device_LocalHardwareId_Args { device: *mut PJRT_Device, local_hardware_id: c_int }
    PJRT_Device_AddressableMemories_Args {
        device: *mut PJRT_Device, memories: *const *mut PJRT_Memory, num_memories: usize,
    }
    PJRT_Device_DefaultMemory_Args { device: *mut PJRT_Device, memory: *mut PJRT_Memory }

    PJRT_Memory_Id_Args { memory: *mut PJRT_Memory, id: c_int }
    PJRT_Memory_Kind_Args { memory: *mut PJRT_Memory, kind: *const c_char, kind_size: usize }
    PJRT_Memory_Kind_Id_Args { memory: *mut PJRT_Memory, kind_id: c_int }
    PJRT_Memory_DebugString_Args {
        memory: *mut PJRT_Memory, debug_string: *const c_char, debug_string_size: usize,
    }
    PJRT_Memory_ToString_Args {
        memory: *mut PJRT_Memory, to_string: *const c_char, to_string_size: usize,
    }
    PJRT_Memory_AddressableByDevices_Args {
        memory: *mut PJRT_Memory, devices: *const *mut PJRT_Device, num_devices: usize,
    }

    PJRT_Executable_Destroy_Args { executable: *mut PJRT_Executable }
    PJRT_Executable_Name_Args {
        executable: *mut PJRT_Executable, executable_name: *const c_char,
        executable_name_size: usize,
    }
    PJRT_Executable_NumReplicas_Args { executable: *mut PJRT_Executable, num_replicas: usize }
    PJRT_Executable_NumPartitions_Args { executable: *mut PJRT_Executable, num_partitions: usize }
    PJRT_Executable_NumOutputs_Args { executable: *mut PJRT_Executable, num_outputs: usize }
    PJRT_Executable_SizeOfGeneratedCodeInBytes_Args {
        executable: *mut PJRT_Executable, size_in_bytes: i64,
    }
    PJRT_Executable_Fingerprint_Args {
        executable: *mut PJRT_Executable, executable_fingerprint: *const c_char,
        executable_fingerprint_size: usize,
    }
    PJRT_Executable_GetCostAnalysis_Args {
        executable: *mut PJRT_Executable, num_properties: usize,
        properties: *const PJRT_NamedValue,
    }
    PJRT_Executable_GetCompiledMemoryStats_Args {
        executable: *mut PJRT_Executable,
        generated_code_size_in_bytes: i64, argument_size_in_bytes: i64,
        output_size_in_bytes: i64, alias_size_in_bytes: i64, temp_size_in_bytes: i64,
        host_generated_code_size_in_bytes: i64, host_argument_size_in_bytes: i64,
        host_output_size_in_bytes: i64, host_alias_size_in_bytes: i64,
        host_temp_size_in_bytes: i64, peak_memory_in_bytes: i64,
        total_size_in_bytes: i64, total_allocation_bytes: i64,
        indefinite_allocations: i64, peak_unpadded_heap_bytes: i64,
    }
    PJRT_Executable_OutputElementTypes_Args {
        executable: *mut PJRT_Executable, output_types: *mut PJRT_Buffer_Type,
        num_output_types: usize,
    }
    PJRT_Executable_OutputDimensions_Args {
        executable: *mut PJRT_Executable, num_outputs: usize, dims: *const i64,
        dim_sizes: *const usize,
    }
    PJRT_Executable_OutputMemoryKinds_Args {
        executable: *mut PJRT_Executable, num_outputs: usize,
        memory_kinds: *const *const c_char, memory_kind_sizes: *const usize,
    }
    PJRT_Executable_ParameterMemoryKinds_Args {
        executable: *mut PJRT_Executable, num_parameters: usize,
        memory_kinds: *const *const c_char, memory_kind_sizes: *const usize,
    }
    PJRT_Executable_OptimizedProgram_Args {
        executable: *mut PJRT_Executable, program: *mut PJRT_Program,
    }

    PJRT_LoadedExecutable_Destroy_Args { executable: *mut PJRT_LoadedExecutable }
    PJRT_LoadedExecutable_GetExecutable_Args {
        loaded_executable: *mut PJRT_LoadedExecutable, executable: *mut PJRT_Executable,
    }
    PJRT_LoadedExecutable_AddressableDevices_Args {
        executable: *mut PJRT_LoadedExecutable, addressable_devices: *const *mut PJRT_Device,
        num_addressable_devices: usize,
    }
    PJRT_LoadedExecutable_Delete_Args { executable: *mut PJRT_LoadedExecutable }
    PJRT_LoadedExecutable_IsDeleted_Args {
        executable: *mut PJRT_LoadedExecutable, is_deleted: bool,
    }
    PJRT_LoadedExecutable_Execute_Args {
        executable: *mut PJRT_LoadedExecutable, options: *mut PJRT_ExecuteOptions,
        argument_lists: *const *const *mut PJRT_Buffer, num_devices: usize, num_args: usize,
        output_lists: *const *mut *mut PJRT_Buffer, device_complete_events: *mut *mut PJRT_Event,
        execute_device: *mut PJRT_Device,
    }
    PJRT_LoadedExecutable_Fingerprint_Args {
        executable: *mut PJRT_LoadedExecutable, executable_fingerprint: *const c_char,
        executable_fingerprint_size: usize,
    }
    PJRT_LoadedExecutable_GetDeviceAssignment_Args {
        executable: *mut PJRT_LoadedExecutable, serialized_bytes: *const c_char,
        serialized_bytes_size: usize, serialized_device_assignment: *mut c_void,
        serialized_device_assignment_deleter: Option<unsafe extern "C" fn(*mut c_void)>,
    }

    PJRT_Buffer_Destroy_Args { buffer: *mut PJRT_Buffer }
    PJRT_Buffer_ElementType_Args { buffer: *mut PJRT_Buffer, type_: PJRT_Buffer_Type }
    PJRT_Buffer_Dimensions_Args { buffer: *mut PJRT_Buffer, dims: *const i64, num_dims: usize }
    PJRT_Buffer_UnpaddedDimensions_Args {
        buffer: *mut PJRT_Buffer, unpadded_dims: *const i64, num_dims: usize,
    }
    PJRT_Buffer_DynamicDimensionIndices_Args {
        buffer: *mut PJRT_Buffer, dynamic_dim_indices: *const usize, num_dynamic_dims: usize,
    }
    PJRT_Buffer_GetMemoryLayout_Args { buffer: *mut PJRT_Buffer, layout: PJRT_Buffer_MemoryLayout }
    PJRT_Buffer_ToHostBuffer_Args {
        src: *mut PJRT_Buffer, host_layout: *mut PJRT_Buffer_MemoryLayout, dst: *mut c_void,
        dst_size: usize, event: *mut PJRT_Event,
    }
    PJRT_Buffer_OnDeviceSizeInBytes_Args { buffer: *mut PJRT_Buffer, on_device_size_in_bytes: usize }
    PJRT_Buffer_Delete_Args { buffer: *mut PJRT_Buffer }
    PJRT_Buffer_IsDeleted_Args { buffer: *mut PJRT_Buffer, is_deleted: bool }
    PJRT_Buffer_CopyToDevice_Args {
        buffer: *mut PJRT_Buffer, dst_device: *mut PJRT_Device, dst_buffer: *mut PJRT_Buffer,
    }
    PJRT_Buffer_CopyToMemory_Args {
        buffer: *mut PJRT_Buffer, dst_memory: *mut PJRT_Memory, dst_buffer: *mut PJRT_Buffer,
    }
    PJRT_Buffer_IsOnCpu_Args { buffer: *mut PJRT_Buffer, is_on_cpu: bool }
    PJRT_Buffer_Device_Args { buffer: *mut PJRT_Buffer, device: *mut PJRT_Device }
    PJRT_Buffer_Memory_Args { buffer: *mut PJRT_Buffer, memory: *mut PJRT_Memory }
    PJRT_Buffer_ReadyEvent_Args { buffer: *mut PJRT_Buffer, event: *mut PJRT_Event }
    PJRT_Buffer_UnsafePointer_Args { buffer: *mut PJRT_Buffer, buffer_pointer: usize }
    PJRT_Buffer_IncreaseExternalReferenceCount_Args { buffer: *mut PJRT_Buffer }
    PJRT_Buffer_DecreaseExternalReferenceCount_Args { buffer: *mut PJRT_Buffer }
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args {
        buffer: *mut PJRT_Buffer, device_memory_ptr: *mut c_void,
    }
    PJRT_Buffer_CopyRawToHost_Args {
        buffer: *mut PJRT_Buffer, dst: *mut c_void, offset: i64, transfer_size: i64,
        event: *mut PJRT_Event,
    }
}

/// `PJRT_Api`: version, then the 138 function slots in the header's order. A slot holds a
/// function pointer (cast to `*const c_void`: the slots have different signatures) or NULL.
#[repr(C)]
pub struct PJRT_Api {
    pub struct_size: usize,
    pub extension_start: *mut PJRT_Extension_Base,
    pub pjrt_api_version: PJRT_Api_Version,
    pub slots: [*const c_void; SLOT_COUNT],
}

// SAFETY: the table is immutable after construction and points at functions and statics.
unsafe impl Sync for PJRT_Api {}
unsafe impl Send for PJRT_Api {}

/// The 138 slots of `PJRT_Api` at 0.112, in order (names without the `PJRT_` prefix).
pub const SLOT_NAMES: [&str; SLOT_COUNT] = [
    "Error_Destroy",
    "Error_Message",
    "Error_GetCode",
    "Plugin_Initialize",
    "Plugin_Attributes",
    "Event_Destroy",
    "Event_IsReady",
    "Event_Error",
    "Event_Await",
    "Event_OnReady",
    "Client_Create",
    "Client_Destroy",
    "Client_PlatformName",
    "Client_ProcessIndex",
    "Client_PlatformVersion",
    "Client_Devices",
    "Client_AddressableDevices",
    "Client_LookupDevice",
    "Client_LookupAddressableDevice",
    "Client_AddressableMemories",
    "Client_Compile",
    "Client_DefaultDeviceAssignment",
    "Client_BufferFromHostBuffer",
    "DeviceDescription_Id",
    "DeviceDescription_ProcessIndex",
    "DeviceDescription_Attributes",
    "DeviceDescription_Kind",
    "DeviceDescription_DebugString",
    "DeviceDescription_ToString",
    "Device_GetDescription",
    "Device_IsAddressable",
    "Device_LocalHardwareId",
    "Device_AddressableMemories",
    "Device_DefaultMemory",
    "Device_MemoryStats",
    "Memory_Id",
    "Memory_Kind",
    "Memory_DebugString",
    "Memory_ToString",
    "Memory_AddressableByDevices",
    "Executable_Destroy",
    "Executable_Name",
    "Executable_NumReplicas",
    "Executable_NumPartitions",
    "Executable_NumOutputs",
    "Executable_SizeOfGeneratedCodeInBytes",
    "Executable_GetCostAnalysis",
    "Executable_OutputMemoryKinds",
    "Executable_OptimizedProgram",
    "Executable_Serialize",
    "LoadedExecutable_Destroy",
    "LoadedExecutable_GetExecutable",
    "LoadedExecutable_AddressableDevices",
    "LoadedExecutable_Delete",
    "LoadedExecutable_IsDeleted",
    "LoadedExecutable_Execute",
    "Executable_DeserializeAndLoad",
    "LoadedExecutable_Fingerprint",
    "Buffer_Destroy",
    "Buffer_ElementType",
    "Buffer_Dimensions",
    "Buffer_UnpaddedDimensions",
    "Buffer_DynamicDimensionIndices",
    "Buffer_GetMemoryLayout",
    "Buffer_OnDeviceSizeInBytes",
    "Buffer_Device",
    "Buffer_Memory",
    "Buffer_Delete",
    "Buffer_IsDeleted",
    "Buffer_CopyToDevice",
    "Buffer_ToHostBuffer",
    "Buffer_IsOnCpu",
    "Buffer_ReadyEvent",
    "Buffer_UnsafePointer",
    "Buffer_IncreaseExternalReferenceCount",
    "Buffer_DecreaseExternalReferenceCount",
    "Buffer_OpaqueDeviceMemoryDataPointer",
    "CopyToDeviceStream_Destroy",
    "CopyToDeviceStream_AddChunk",
    "CopyToDeviceStream_TotalBytes",
    "CopyToDeviceStream_GranuleSize",
    "CopyToDeviceStream_CurrentBytes",
    "TopologyDescription_Create",
    "TopologyDescription_Destroy",
    "TopologyDescription_PlatformName",
    "TopologyDescription_PlatformVersion",
    "TopologyDescription_GetDeviceDescriptions",
    "TopologyDescription_Serialize",
    "TopologyDescription_Attributes",
    "Compile",
    "Executable_OutputElementTypes",
    "Executable_OutputDimensions",
    "Buffer_CopyToMemory",
    "Client_CreateViewOfDeviceBuffer",
    "Executable_Fingerprint",
    "Client_TopologyDescription",
    "Executable_GetCompiledMemoryStats",
    "Memory_Kind_Id",
    "ExecuteContext_Create",
    "ExecuteContext_Destroy",
    "Buffer_CopyRawToHost",
    "AsyncHostToDeviceTransferManager_Destroy",
    "AsyncHostToDeviceTransferManager_TransferData",
    "Client_CreateBuffersForAsyncHostToDevice",
    "AsyncHostToDeviceTransferManager_RetrieveBuffer",
    "AsyncHostToDeviceTransferManager_Device",
    "AsyncHostToDeviceTransferManager_BufferCount",
    "AsyncHostToDeviceTransferManager_BufferSize",
    "AsyncHostToDeviceTransferManager_SetBufferError",
    "AsyncHostToDeviceTransferManager_AddMetadata",
    "Client_DmaMap",
    "Client_DmaUnmap",
    "Client_CreateUninitializedBuffer",
    "Client_UpdateGlobalProcessInfo",
    "TopologyDescription_Deserialize",
    "Client_CreateAliasBuffer",
    "Client_FulfillAliasBuffer",
    "LoadedExecutable_GetDeviceAssignment",
    "Client_CreateErrorBuffer",
    "AsyncHostToDeviceTransferManager_TransferLiteral",
    "Buffer_CopyRawToHostFuture",
    "Device_PoisonExecution",
    "Device_CreateAsyncTrackingEvent",
    "AsyncTrackingEvent_Destroy",
    "Executable_GetCompileOptions",
    "Buffer_DonateWithControlDependency",
    "Event_Create",
    "Event_Set",
    "Device_GetAttributes",
    "Client_Load",
    "LoadedExecutable_AddressableDeviceLogicalIds",
    "Buffer_Bitcast",
    "Error_ForEachPayload",
    "TopologyDescription_Fingerprint",
    "Executable_ParameterMemoryKinds",
    "Device_ClearMemoryStats",
    "TopologyDescription_MakeCanonicalShapeForMemorySpace",
    "TopologyDescription_GetMemorySpaceKindIds",
];

/// Number of function slots at 0.112.
pub const SLOT_COUNT: usize = 138;

/// The index of a slot by name (without `PJRT_`); panics on a typo (a build-time bug).
pub const fn slot_index(name: &str) -> usize {
    let mut i = 0;
    while i < SLOT_COUNT {
        if const_str_eq(SLOT_NAMES[i], name) {
            return i;
        }
        i += 1;
    }
    panic!("no such PJRT_Api slot");
}

const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The slots the client tests for NULL to mean "not supported": filling them with a failing
/// function would make the client take paths that abort the process (e.g. `Device_GetAttributes` failing is fatal at minor ≥ 92).
pub const NULL_SLOTS: [&str; 8] = [
    "Device_GetAttributes",
    "Client_Load",
    "Device_ClearMemoryStats",
    "Event_Create",
    "Event_Set",
    "Buffer_Bitcast",
    "LoadedExecutable_AddressableDeviceLogicalIds",
    "TopologyDescription_GetMemorySpaceKindIds",
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// Sizes and offsets measured with the C compiler against the 0.112 header.
    #[test]
    fn struct_sizes_match_the_header() {
        assert_eq!(size_of::<PJRT_Api>(), 1144);
        assert_eq!(size_of::<PJRT_Api_Version>(), 24);
        assert_eq!(size_of::<PJRT_NamedValue>(), 56);
        assert_eq!(size_of::<PJRT_Program>(), 48);
        assert_eq!(size_of::<PJRT_ExecuteOptions>(), 144);
        assert_eq!(size_of::<PJRT_LoadedExecutable_Execute_Args>(), 80);
        assert_eq!(size_of::<PJRT_Client_BufferFromHostBuffer_Args>(), 120);
        assert_eq!(size_of::<PJRT_Client_Compile_Args>(), 56);
        assert_eq!(size_of::<PJRT_Client_Create_Args>(), 88);
        assert_eq!(size_of::<PJRT_KeyValueGetCallback_Args>(), 80);
        assert_eq!(size_of::<PJRT_KeyValuePutCallback_Args>(), 64);
        assert_eq!(size_of::<PJRT_Client_UpdateGlobalProcessInfo_Args>(), 40);
        assert_eq!(size_of::<PJRT_Buffer_MemoryLayout>(), 80);
        assert_eq!(size_of::<PJRT_Buffer_ToHostBuffer_Args>(), 56);
        assert_eq!(
            size_of::<PJRT_Executable_GetCompiledMemoryStats_Args>(),
            144
        );
        assert_eq!(
            size_of::<PJRT_LoadedExecutable_GetDeviceAssignment_Args>(),
            56
        );
        assert_eq!(size_of::<PJRT_Buffer_GetMemoryLayout_Args>(), 104);
        assert_eq!(size_of::<PJRT_Error_FunctionTable>(), 56);
        assert_eq!(size_of::<PJRT_Memory_FunctionTable>(), 40);
        assert_eq!(offset_of!(PJRT_NamedValue, value), 40);
        assert_eq!(
            offset_of!(PJRT_Client_BufferFromHostBuffer_Args, buffer),
            112
        );
        assert_eq!(
            offset_of!(PJRT_LoadedExecutable_Execute_Args, execute_device),
            72
        );
        assert_eq!(
            offset_of!(PJRT_ExecuteOptions, non_donatable_input_indices),
            56
        );
        assert_eq!(offset_of!(PJRT_Buffer_MemoryLayout, type_), 72);
    }

    #[test]
    fn slot_names_are_unique_and_null_slots_exist() {
        let mut names = SLOT_NAMES.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), SLOT_COUNT);
        for n in NULL_SLOTS {
            assert!(SLOT_NAMES.contains(&n), "{n}");
        }
        assert_eq!(slot_index("Error_Destroy"), 0);
        assert_eq!(slot_index("TopologyDescription_GetMemorySpaceKindIds"), 137);
    }
}
