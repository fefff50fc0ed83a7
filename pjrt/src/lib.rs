//! `xlac_pjrt`: xlac as a PJRT C API plugin (API 0.112), so `jax.jit` compiles and runs on
//! xlac. The shared library exports one symbol, [`GetPjrtApi`], which returns the table of
//! 138 function slots the framework calls through.
//!
//! What fills the slots:
//! - real functions for everything a JAX session calls: the client and its one CPU device
//!   and memory ([`client`]), buffers ([`buffer`]) and events ([`event`]), compile and
//!   execute ([`executable`], with the compile options read by [`compile_options`]; one-device
//!   runs go to a per-device worker, [`execute_queue`], and Execute returns at once);
//! - NULL for the 8 slots the client tests for NULL ([`abi::NULL_SLOTS`]);
//! - a named trampoline returning UNIMPLEMENTED for every other slot ([`unimplemented`]),
//!   because a NULL in a slot the client calls unconditionally is a segfault.
//!
//! Every entry point runs under [`error::guard`]: panics become `INTERNAL` errors, and
//! failures carry a PJRT code and xlac's one-line `error:` message. With `log_calls`, every
//! call is logged in order ([`call_log`]).

// The C API's constants keep the header's names (`PJRT_NamedValue_kString`).
#![allow(non_upper_case_globals)]
// Every `pub unsafe extern "C" fn` has one safety contract, the header's: a valid args
// struct whose pointers are valid for the call; it is stated once, here.
#![allow(clippy::missing_safety_doc)]

pub mod abi;
pub mod buffer;
pub mod call_log;
pub mod client;
pub mod compile_options;
pub mod error;
pub mod event;
pub mod executable;
pub mod execute_queue;
pub mod host_callback;
pub mod mpi_job;
pub mod option_overrides;
pub mod sharded;
pub mod shardings;
pub mod topology;
pub mod unimplemented;

use std::ffi::c_void;
use std::sync::OnceLock;

use abi::{PJRT_API_MAJOR, PJRT_API_MINOR, PJRT_Api, PJRT_Api_Version, SLOT_COUNT, slot_index};

/// The table `GetPjrtApi` hands out: built once, never changed.
fn api() -> &'static PJRT_Api {
    static API: OnceLock<PJRT_Api> = OnceLock::new();
    API.get_or_init(|| {
        call_log::configure_from_env();
        let mut slots = unimplemented::trampolines();
        for name in abi::NULL_SLOTS {
            slots[slot_index(name)] = std::ptr::null();
        }
        for (name, f) in implemented() {
            slots[slot_index(name)] = f;
        }
        PJRT_Api {
            struct_size: std::mem::size_of::<PJRT_Api>(),
            // The Shardings extension (a program's parameter and output shardings), then
            // the FFI extension (how the framework hands a run its host callbacks).
            extension_start: shardings::extension(host_callback::ffi_extension()),
            pjrt_api_version: PJRT_Api_Version {
                struct_size: std::mem::size_of::<PJRT_Api_Version>(),
                extension_start: std::ptr::null_mut(),
                major_version: PJRT_API_MAJOR,
                minor_version: PJRT_API_MINOR,
            },
            slots,
        }
    })
}

/// The slots with real functions, by name.
fn implemented() -> Vec<(&'static str, *const c_void)> {
    use buffer::*;
    use client::*;
    use event::*;
    use executable::*;
    macro_rules! table {
        ($( $name:literal => $f:expr ),* $(,)?) => { vec![ $( ($name, $f as *const c_void) ),* ] };
    }
    table! {
        "Error_Destroy" => error_destroy,
        "Error_Message" => error_message,
        "Error_GetCode" => error_get_code,
        "Error_ForEachPayload" => error_for_each_payload,
        "Plugin_Initialize" => plugin_initialize,
        "Plugin_Attributes" => plugin_attributes,
        "Event_Destroy" => event_destroy,
        "Event_IsReady" => event_is_ready,
        "Event_Error" => event_error,
        "Event_Await" => event_await,
        "Event_OnReady" => event_on_ready,
        "Client_Create" => client_create,
        "Client_Destroy" => client_destroy,
        "Client_PlatformName" => client_platform_name,
        "Client_ProcessIndex" => client_process_index,
        "Client_UpdateGlobalProcessInfo" => client_update_global_process_info,
        "Client_PlatformVersion" => client_platform_version,
        "Client_Devices" => client_devices,
        "Client_AddressableDevices" => client_addressable_devices,
        "Client_LookupDevice" => client_lookup_device,
        "Client_LookupAddressableDevice" => client_lookup_addressable_device,
        "Client_AddressableMemories" => client_addressable_memories,
        "Client_Compile" => client_compile,
        "Client_DefaultDeviceAssignment" => client_default_device_assignment,
        "Client_BufferFromHostBuffer" => client_buffer_from_host_buffer,
        "DeviceDescription_Id" => device_description_id,
        "DeviceDescription_ProcessIndex" => device_description_process_index,
        "DeviceDescription_Attributes" => device_description_attributes,
        "DeviceDescription_Kind" => device_description_kind,
        "DeviceDescription_DebugString" => device_description_debug_string,
        "DeviceDescription_ToString" => device_description_to_string,
        "Device_GetDescription" => device_get_description,
        "Device_IsAddressable" => device_is_addressable,
        "Device_LocalHardwareId" => device_local_hardware_id,
        "Device_AddressableMemories" => device_addressable_memories,
        "Device_DefaultMemory" => device_default_memory,
        "Memory_Id" => memory_id,
        "Memory_Kind" => memory_kind,
        "Memory_Kind_Id" => memory_kind_id,
        "Memory_DebugString" => memory_debug_string,
        "Memory_ToString" => memory_to_string,
        "Memory_AddressableByDevices" => memory_addressable_by_devices,
        "Executable_Destroy" => executable_destroy,
        "Executable_Name" => executable_name,
        "Executable_NumReplicas" => executable_num_replicas,
        "Executable_NumPartitions" => executable_num_partitions,
        "Executable_NumOutputs" => executable_num_outputs,
        "Executable_SizeOfGeneratedCodeInBytes" => executable_size_of_generated_code_in_bytes,
        "Executable_GetCostAnalysis" => executable_get_cost_analysis,
        "Executable_GetCompiledMemoryStats" => executable_get_compiled_memory_stats,
        "Executable_OutputMemoryKinds" => executable_output_memory_kinds,
        "Executable_OutputElementTypes" => executable_output_element_types,
        "Executable_OutputDimensions" => executable_output_dimensions,
        "Executable_OptimizedProgram" => executable_optimized_program,
        "Executable_Fingerprint" => executable_fingerprint,
        "LoadedExecutable_Destroy" => loaded_executable_destroy,
        "LoadedExecutable_GetExecutable" => loaded_executable_get_executable,
        "LoadedExecutable_AddressableDevices" => loaded_executable_addressable_devices,
        "LoadedExecutable_Delete" => loaded_executable_delete,
        "LoadedExecutable_IsDeleted" => loaded_executable_is_deleted,
        "LoadedExecutable_Execute" => loaded_executable_execute,
        "LoadedExecutable_Fingerprint" => loaded_executable_fingerprint,
        "LoadedExecutable_GetDeviceAssignment" => loaded_executable_get_device_assignment,
        "Buffer_Destroy" => buffer_destroy,
        "Buffer_ElementType" => buffer_element_type,
        "Buffer_Dimensions" => buffer_dimensions,
        "Buffer_UnpaddedDimensions" => buffer_unpadded_dimensions,
        "Buffer_DynamicDimensionIndices" => buffer_dynamic_dimension_indices,
        "Buffer_GetMemoryLayout" => buffer_get_memory_layout,
        "Buffer_OnDeviceSizeInBytes" => buffer_on_device_size_in_bytes,
        "Buffer_Device" => buffer_device,
        "Buffer_Memory" => buffer_memory,
        "Buffer_Delete" => buffer_delete,
        "Buffer_IsDeleted" => buffer_is_deleted,
        "Buffer_CopyToDevice" => buffer_copy_to_device,
        "Buffer_CopyToMemory" => buffer_copy_to_memory,
        "Buffer_ToHostBuffer" => buffer_to_host_buffer,
        "Buffer_CopyRawToHost" => buffer_copy_raw_to_host,
        "Buffer_IsOnCpu" => buffer_is_on_cpu,
        "Buffer_ReadyEvent" => buffer_ready_event,
        "Buffer_UnsafePointer" => buffer_unsafe_pointer,
        "Buffer_IncreaseExternalReferenceCount" => buffer_increase_external_reference_count,
        "Buffer_DecreaseExternalReferenceCount" => buffer_decrease_external_reference_count,
        "Buffer_OpaqueDeviceMemoryDataPointer" => buffer_opaque_device_memory_data_pointer,
        "ExecuteContext_Create" => host_callback::execute_context_create,
        "ExecuteContext_Destroy" => host_callback::execute_context_destroy,
    }
}

// ---- errors: here because every module returns them ------------------------------------

use abi::{
    PJRT_Error_Destroy_Args, PJRT_Error_ForEachPayload_Args, PJRT_Error_GetCode_Args,
    PJRT_Error_Message_Args,
};

unsafe extern "C" fn error_destroy(args: *mut PJRT_Error_Destroy_Args) {
    error::guard_void("Error_Destroy", args, |a| {
        if !a.error.is_null() {
            // SAFETY: errors come from `Error::into_raw`; destroyed once.
            drop(unsafe { Box::from_raw(a.error.cast::<error::Error>()) });
        }
    })
}

unsafe extern "C" fn error_message(args: *mut PJRT_Error_Message_Args) {
    error::guard_void("Error_Message", args, |a| {
        // SAFETY: a live error.
        if let Ok(e) = unsafe { error::error_ref(a.error) } {
            a.message = e.message.as_ptr().cast();
            a.message_size = e.message.len();
        }
    })
}

unsafe extern "C" fn error_get_code(args: *mut PJRT_Error_GetCode_Args) -> *mut c_void {
    error::guard("Error_GetCode", args, |a| {
        // SAFETY: a live error.
        a.code = unsafe { error::error_ref(a.error)? }.code as i32;
        Ok(())
    })
}

/// Must succeed: the client calls it while converting every plugin error, and a failure
/// there recurses until the stack overflows (measured with jaxlib 0.10.2).
unsafe extern "C" fn error_for_each_payload(
    args: *mut PJRT_Error_ForEachPayload_Args,
) -> *mut c_void {
    error::guard("Error_ForEachPayload", args, |_| Ok(()))
}

/// The plugin's one export: the PJRT C API table, version 0.112.
#[unsafe(no_mangle)]
pub extern "C" fn GetPjrtApi() -> *const PJRT_Api {
    std::panic::catch_unwind(api).map_or(std::ptr::null(), |a| a as *const PJRT_Api)
}

const _: () = assert!(SLOT_COUNT == 138);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_is_filled_except_the_null_ones() {
        let api = api();
        assert_eq!(api.struct_size, 1144);
        assert_eq!(api.pjrt_api_version.major_version, 0);
        assert_eq!(api.pjrt_api_version.minor_version, 112);
        for (i, name) in abi::SLOT_NAMES.iter().enumerate() {
            let null = abi::NULL_SLOTS.contains(name);
            assert_eq!(api.slots[i].is_null(), null, "slot {name}");
        }
        // Every implemented name is a real slot and none is listed twice.
        let names: Vec<_> = implemented().iter().map(|(n, _)| *n).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        for n in &names {
            assert!(!abi::NULL_SLOTS.contains(n), "{n} must stay NULL");
        }
    }
}
