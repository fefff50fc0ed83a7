//! The C API of a buffer once made: `PJRT_Buffer_*` queries (shape, element type, layout,
//! device and memory, size, deletion, ready event, the data pointer) and the copies from it
//! (raw bytes to the host, to another memory or device).

use super::*;

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
