//! The C API of devices and their memories: `PJRT_DeviceDescription_*`, `PJRT_Device_*`
//! and `PJRT_Memory_*` (ids, kinds, attributes, the memories a device addresses).

use super::*;

// ---- device descriptions --------------------------------------------------------------

entry_points! {
    fn device_description_id(a: PJRT_DeviceDescription_Id_Args) {
        // SAFETY: a handle from this plugin.
        let d = unsafe { description_ref(a.device_description)? };
        a.id = d.id as c_int;
        Ok(())
    }

    fn device_description_process_index(a: PJRT_DeviceDescription_ProcessIndex_Args) {
        // SAFETY: a handle from this plugin.
        let d = unsafe { description_ref(a.device_description)? };
        a.process_index = d.process_index as c_int;
        Ok(())
    }

    fn device_description_attributes(a: PJRT_DeviceDescription_Attributes_Args) {
        a.num_attributes = 0;
        a.attributes = std::ptr::null();
        Ok(())
    }

    fn device_description_kind(a: PJRT_DeviceDescription_Kind_Args) {
        (a.device_kind, a.device_kind_size) = str_out(DEVICE_KIND);
        Ok(())
    }

    fn device_description_debug_string(a: PJRT_DeviceDescription_DebugString_Args) {
        // SAFETY: a handle from this plugin.
        let d = unsafe { description_ref(a.device_description)? };
        (a.debug_string, a.debug_string_size) = owned_str_out(&d.debug_string);
        Ok(())
    }

    fn device_description_to_string(a: PJRT_DeviceDescription_ToString_Args) {
        // SAFETY: a handle from this plugin.
        let d = unsafe { description_ref(a.device_description)? };
        (a.to_string, a.to_string_size) = owned_str_out(&d.to_string);
        Ok(())
    }
}

// ---- devices --------------------------------------------------------------------------

entry_points! {
    fn device_get_description(a: PJRT_Device_GetDescription_Args) {
        // SAFETY: a handle from this plugin.
        let d = unsafe { device_ref(a.device)? };
        a.device_description = (&d.description as *const DeviceDescription)
            .cast_mut()
            .cast();
        Ok(())
    }

    fn device_is_addressable(a: PJRT_Device_IsAddressable_Args) {
        // SAFETY: a handle from this plugin.
        a.is_addressable = unsafe { device_ref(a.device)? }.addressable;
        Ok(())
    }

    fn device_local_hardware_id(a: PJRT_Device_LocalHardwareId_Args) {
        // SAFETY: a handle from this plugin.
        let d = unsafe { device_ref(a.device)? };
        a.local_hardware_id = d.local_ordinal as c_int;
        Ok(())
    }

    fn device_addressable_memories(a: PJRT_Device_AddressableMemories_Args) {
        // SAFETY: a handle from this plugin.
        let d = unsafe { device_ref(a.device)? };
        a.memories = d.memories.as_ptr();
        a.num_memories = d.memories.len();
        Ok(())
    }

    fn device_default_memory(a: PJRT_Device_DefaultMemory_Args) {
        // SAFETY: a handle from this plugin.
        let d = unsafe { device_ref(a.device)? };
        let Some(&memory) = d.memories.first() else {
            return Err(Error::new(
                crate::error::Code::NotFound,
                format!(
                    "xlac device {} belongs to process {}: it has no memory here",
                    d.description.id, d.description.process_index
                ),
            ));
        };
        a.memory = memory;
        Ok(())
    }
}

// ---- memories -------------------------------------------------------------------------

entry_points! {
    fn memory_id(a: PJRT_Memory_Id_Args) {
        // SAFETY: a handle from this plugin.
        let m = unsafe { memory_ref(a.memory)? };
        a.id = m.id as c_int;
        Ok(())
    }

    fn memory_kind(a: PJRT_Memory_Kind_Args) {
        (a.kind, a.kind_size) = str_out(MEMORY_KIND);
        Ok(())
    }

    fn memory_kind_id(a: PJRT_Memory_Kind_Id_Args) {
        a.kind_id = 0 as c_int;
        Ok(())
    }

    fn memory_debug_string(a: PJRT_Memory_DebugString_Args) {
        // SAFETY: a handle from this plugin.
        let m = unsafe { memory_ref(a.memory)? };
        (a.debug_string, a.debug_string_size) = owned_str_out(&m.to_string);
        Ok(())
    }

    fn memory_to_string(a: PJRT_Memory_ToString_Args) {
        // SAFETY: a handle from this plugin.
        let m = unsafe { memory_ref(a.memory)? };
        (a.to_string, a.to_string_size) = owned_str_out(&m.to_string);
        Ok(())
    }

    fn memory_addressable_by_devices(a: PJRT_Memory_AddressableByDevices_Args) {
        // SAFETY: a handle from this plugin.
        let m = unsafe { memory_ref(a.memory)? };
        a.devices = m.devices.as_ptr();
        a.num_devices = 1;
        Ok(())
    }
}
