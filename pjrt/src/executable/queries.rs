//! The queries of compiled programs: `PJRT_LoadedExecutable_*` (destroy, devices,
//! fingerprint, delete) and `PJRT_Executable_*` (name, shapes, costs, the optimized
//! program, serialization, memory statistics).

use super::*;

// ---- loaded executables ---------------------------------------------------------------

entry_points! {
    fn loaded_executable_destroy(a: PJRT_LoadedExecutable_Destroy_Args) {
        if !a.executable.is_null() {
            // SAFETY: from `client_compile`; destroyed once.
            drop(unsafe { Box::from_raw(a.executable.cast::<LoadedExecutable>()) });
        }
        Ok(())
    }

    fn loaded_executable_get_executable(a: PJRT_LoadedExecutable_GetExecutable_Args) {
        // SAFETY: a live loaded executable.
        let l = unsafe { loaded_of(a.loaded_executable)? };
        // A fresh handle each time: the client destroys what it gets.
        a.executable = Box::into_raw(Box::new(l.state.clone())).cast();
        Ok(())
    }

    fn loaded_executable_addressable_devices(a: PJRT_LoadedExecutable_AddressableDevices_Args) {
        // SAFETY: a live loaded executable whose client outlives it.
        let l = unsafe { loaded_of(a.executable)? };
        a.addressable_devices = l.device_handles.as_ptr();
        a.num_addressable_devices = l.device_handles.len();
        Ok(())
    }

    fn loaded_executable_delete(a: PJRT_LoadedExecutable_Delete_Args) {
        // SAFETY: a live loaded executable.
        unsafe { loaded_of(a.executable)? }
            .deleted
            .store(true, Ordering::Release);
        Ok(())
    }

    fn loaded_executable_is_deleted(a: PJRT_LoadedExecutable_IsDeleted_Args) {
        // SAFETY: a live loaded executable.
        a.is_deleted = unsafe { loaded_of(a.executable)? }
            .deleted
            .load(Ordering::Acquire);
        Ok(())
    }

    fn loaded_executable_fingerprint(a: PJRT_LoadedExecutable_Fingerprint_Args) {
        // SAFETY: a live loaded executable.
        let l = unsafe { loaded_of(a.executable)? };
        a.executable_fingerprint = l.state.fingerprint.as_ptr().cast();
        a.executable_fingerprint_size = l.state.fingerprint.len();
        Ok(())
    }
}

unsafe extern "C" fn no_delete(_: *mut c_void) {}

pub unsafe extern "C" fn loaded_executable_get_device_assignment(
    args: *mut PJRT_LoadedExecutable_GetDeviceAssignment_Args,
) -> *mut c_void {
    // The client aborts the process if this fails (minor >= 79): it only fails on NULL args.
    guard("LoadedExecutable_GetDeviceAssignment", args, |a| {
        // SAFETY: a live loaded executable.
        let l = unsafe { loaded_of(a.executable)? };
        a.serialized_bytes = l.state.assignment.as_ptr().cast();
        a.serialized_bytes_size = l.state.assignment.len();
        a.serialized_device_assignment = std::ptr::null_mut();
        a.serialized_device_assignment_deleter = Some(no_delete);
        Ok(())
    })
}

// ---- executables ----------------------------------------------------------------------

entry_points! {
    fn executable_destroy(a: PJRT_Executable_Destroy_Args) {
        if !a.executable.is_null() {
            // SAFETY: from `loaded_executable_get_executable`; destroyed once.
            drop(unsafe { Box::from_raw(a.executable.cast::<Arc<ExecutableState>>()) });
        }
        Ok(())
    }

    fn executable_name(a: PJRT_Executable_Name_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        a.executable_name = s.name.as_ptr().cast();
        a.executable_name_size = s.name.len();
        Ok(())
    }

    fn executable_num_replicas(a: PJRT_Executable_NumReplicas_Args) {
        // SAFETY: a live executable.
        a.num_replicas = unsafe { state_of(a.executable)? }.replicas;
        Ok(())
    }

    fn executable_num_partitions(a: PJRT_Executable_NumPartitions_Args) {
        // SAFETY: a live executable.
        a.num_partitions = unsafe { state_of(a.executable)? }.partitions;
        Ok(())
    }

    fn executable_num_outputs(a: PJRT_Executable_NumOutputs_Args) {
        // SAFETY: a live executable.
        a.num_outputs = unsafe { state_of(a.executable)? }.outputs.len();
        Ok(())
    }

    fn executable_size_of_generated_code_in_bytes(
        a: PJRT_Executable_SizeOfGeneratedCodeInBytes_Args,
    ) {
        // SAFETY: a live executable.
        a.size_in_bytes = unsafe { state_of(a.executable)? }.code_bytes;
        Ok(())
    }

    fn executable_fingerprint(a: PJRT_Executable_Fingerprint_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        a.executable_fingerprint = s.fingerprint.as_ptr().cast();
        a.executable_fingerprint_size = s.fingerprint.len();
        Ok(())
    }

    fn executable_get_cost_analysis(a: PJRT_Executable_GetCostAnalysis_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        (a.properties, a.num_properties) = (s.cost.as_ptr(), s.cost.len());
        Ok(())
    }

    fn executable_get_compiled_memory_stats(a: PJRT_Executable_GetCompiledMemoryStats_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        let m = s.memory;
        a.generated_code_size_in_bytes = s.code_bytes;
        a.argument_size_in_bytes = m.argument;
        a.output_size_in_bytes = m.output;
        a.alias_size_in_bytes = 0;
        a.temp_size_in_bytes = m.temp;
        a.host_generated_code_size_in_bytes = 0;
        a.host_argument_size_in_bytes = 0;
        a.host_output_size_in_bytes = 0;
        a.host_alias_size_in_bytes = 0;
        a.host_temp_size_in_bytes = 0;
        let end = std::mem::offset_of!(
            PJRT_Executable_GetCompiledMemoryStats_Args,
            peak_memory_in_bytes
        );
        if has_field(a.struct_size, end, 8) {
            a.peak_memory_in_bytes = m.argument + m.temp.max(m.total - m.argument);
        }
        let end = std::mem::offset_of!(
            PJRT_Executable_GetCompiledMemoryStats_Args,
            peak_unpadded_heap_bytes
        );
        if has_field(a.struct_size, end, 8) {
            a.total_size_in_bytes = m.total;
            a.total_allocation_bytes = m.total;
            a.indefinite_allocations = 0;
            a.peak_unpadded_heap_bytes = 0;
        }
        Ok(())
    }

    fn executable_output_element_types(a: PJRT_Executable_OutputElementTypes_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        let types = &s.output_types;
        (a.output_types, a.num_output_types) = (types.as_ptr().cast_mut(), types.len());
        Ok(())
    }

    fn executable_output_dimensions(a: PJRT_Executable_OutputDimensions_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        a.num_outputs = s.outputs.len();
        a.dims = s.output_dims.as_ptr();
        a.dim_sizes = s.output_dim_sizes.as_ptr();
        Ok(())
    }

    fn executable_output_memory_kinds(a: PJRT_Executable_OutputMemoryKinds_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        a.num_outputs = s.outputs.len();
        a.memory_kinds = s.output_kinds.as_ptr();
        a.memory_kind_sizes = s.output_kind_sizes.as_ptr();
        Ok(())
    }

    fn executable_optimized_program(a: PJRT_Executable_OptimizedProgram_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        let bytes = s
            .optimized_program
            .as_ref()
            .map_err(|message| Error::unimplemented(message.clone()))?;
        if a.program.is_null() {
            return Err(Error::invalid("error: OptimizedProgram: program is NULL"));
        }
        // SAFETY: the caller's PJRT_Program, live for the call.
        let program = unsafe { &mut *a.program };
        program.format = OPTIMIZED_PROGRAM_FORMAT.as_ptr().cast();
        program.format_size = OPTIMIZED_PROGRAM_FORMAT.len();
        // Two calls: first with `code` NULL for the size, then with a buffer that large.
        if !program.code.is_null() {
            if program.code_size < bytes.len() {
                return Err(Error::invalid(format!(
                    "error: OptimizedProgram: a buffer of {} bytes for a program of {}",
                    program.code_size,
                    bytes.len()
                )));
            }
            // SAFETY: `code` holds at least `code_size >= bytes.len()` bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    program.code.cast::<u8>(),
                    bytes.len(),
                )
            };
        }
        program.code_size = bytes.len();
        Ok(())
    }
}

/// The optimized program's bytes (`HloModuleProtoWithConfig`), or why there are none.
pub fn optimized_program_bytes(state: &ExecutableState) -> std::result::Result<&[u8], &str> {
    state
        .optimized_program
        .as_ref()
        .map(|b| b.as_slice())
        .map_err(|e| e.as_str())
}

/// The optimized program's text (xlac's HLO after every pass), for the Rust tests and
/// `xlac`-aware callers.
pub fn optimized_text(state: &ExecutableState) -> &str {
    &state.optimized_text
}
