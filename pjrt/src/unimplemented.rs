//! One named trampoline per `PJRT_Api` slot that returns UNIMPLEMENTED: a slot the client
//! calls unconditionally must never be NULL (that is a segfault), and a named function
//! shows in a debugger's backtrace and in the error: `UNIMPLEMENTED: PJRT_Client_DmaMap is
//! not implemented by xlac`. Slots with real functions overwrite theirs in `lib.rs`; the 8
//! NULL slots are cleared there.

use std::ffi::c_void;

use crate::abi::SLOT_COUNT;
use crate::error::{Code, Error};

macro_rules! trampolines {
    ($( $name:ident ),* $(,)?) => {
        $(
            #[allow(non_snake_case)]
            unsafe extern "C" fn $name(_args: *mut c_void) -> *mut c_void {
                crate::call_log::record(&stringify!($name)["PJRT_".len()..]);
                Error::new(
                    Code::Unimplemented,
                    concat!(stringify!($name), " is not implemented by xlac"),
                )
                .into_raw()
            }
        )*

        /// Every slot's trampoline, in slot order.
        pub fn trampolines() -> [*const c_void; SLOT_COUNT] {
            [ $( $name as *const c_void ),* ]
        }

        /// The trampolines' names, in slot order (checked against the slot table in tests).
        pub const TRAMPOLINE_NAMES: [&str; SLOT_COUNT] = [ $( stringify!($name) ),* ];
    };
}

trampolines! {
    PJRT_Error_Destroy,
    PJRT_Error_Message,
    PJRT_Error_GetCode,
    PJRT_Plugin_Initialize,
    PJRT_Plugin_Attributes,
    PJRT_Event_Destroy,
    PJRT_Event_IsReady,
    PJRT_Event_Error,
    PJRT_Event_Await,
    PJRT_Event_OnReady,
    PJRT_Client_Create,
    PJRT_Client_Destroy,
    PJRT_Client_PlatformName,
    PJRT_Client_ProcessIndex,
    PJRT_Client_PlatformVersion,
    PJRT_Client_Devices,
    PJRT_Client_AddressableDevices,
    PJRT_Client_LookupDevice,
    PJRT_Client_LookupAddressableDevice,
    PJRT_Client_AddressableMemories,
    PJRT_Client_Compile,
    PJRT_Client_DefaultDeviceAssignment,
    PJRT_Client_BufferFromHostBuffer,
    PJRT_DeviceDescription_Id,
    PJRT_DeviceDescription_ProcessIndex,
    PJRT_DeviceDescription_Attributes,
    PJRT_DeviceDescription_Kind,
    PJRT_DeviceDescription_DebugString,
    PJRT_DeviceDescription_ToString,
    PJRT_Device_GetDescription,
    PJRT_Device_IsAddressable,
    PJRT_Device_LocalHardwareId,
    PJRT_Device_AddressableMemories,
    PJRT_Device_DefaultMemory,
    PJRT_Device_MemoryStats,
    PJRT_Memory_Id,
    PJRT_Memory_Kind,
    PJRT_Memory_DebugString,
    PJRT_Memory_ToString,
    PJRT_Memory_AddressableByDevices,
    PJRT_Executable_Destroy,
    PJRT_Executable_Name,
    PJRT_Executable_NumReplicas,
    PJRT_Executable_NumPartitions,
    PJRT_Executable_NumOutputs,
    PJRT_Executable_SizeOfGeneratedCodeInBytes,
    PJRT_Executable_GetCostAnalysis,
    PJRT_Executable_OutputMemoryKinds,
    PJRT_Executable_OptimizedProgram,
    PJRT_Executable_Serialize,
    PJRT_LoadedExecutable_Destroy,
    PJRT_LoadedExecutable_GetExecutable,
    PJRT_LoadedExecutable_AddressableDevices,
    PJRT_LoadedExecutable_Delete,
    PJRT_LoadedExecutable_IsDeleted,
    PJRT_LoadedExecutable_Execute,
    PJRT_Executable_DeserializeAndLoad,
    PJRT_LoadedExecutable_Fingerprint,
    PJRT_Buffer_Destroy,
    PJRT_Buffer_ElementType,
    PJRT_Buffer_Dimensions,
    PJRT_Buffer_UnpaddedDimensions,
    PJRT_Buffer_DynamicDimensionIndices,
    PJRT_Buffer_GetMemoryLayout,
    PJRT_Buffer_OnDeviceSizeInBytes,
    PJRT_Buffer_Device,
    PJRT_Buffer_Memory,
    PJRT_Buffer_Delete,
    PJRT_Buffer_IsDeleted,
    PJRT_Buffer_CopyToDevice,
    PJRT_Buffer_ToHostBuffer,
    PJRT_Buffer_IsOnCpu,
    PJRT_Buffer_ReadyEvent,
    PJRT_Buffer_UnsafePointer,
    PJRT_Buffer_IncreaseExternalReferenceCount,
    PJRT_Buffer_DecreaseExternalReferenceCount,
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer,
    PJRT_CopyToDeviceStream_Destroy,
    PJRT_CopyToDeviceStream_AddChunk,
    PJRT_CopyToDeviceStream_TotalBytes,
    PJRT_CopyToDeviceStream_GranuleSize,
    PJRT_CopyToDeviceStream_CurrentBytes,
    PJRT_TopologyDescription_Create,
    PJRT_TopologyDescription_Destroy,
    PJRT_TopologyDescription_PlatformName,
    PJRT_TopologyDescription_PlatformVersion,
    PJRT_TopologyDescription_GetDeviceDescriptions,
    PJRT_TopologyDescription_Serialize,
    PJRT_TopologyDescription_Attributes,
    PJRT_Compile,
    PJRT_Executable_OutputElementTypes,
    PJRT_Executable_OutputDimensions,
    PJRT_Buffer_CopyToMemory,
    PJRT_Client_CreateViewOfDeviceBuffer,
    PJRT_Executable_Fingerprint,
    PJRT_Client_TopologyDescription,
    PJRT_Executable_GetCompiledMemoryStats,
    PJRT_Memory_Kind_Id,
    PJRT_ExecuteContext_Create,
    PJRT_ExecuteContext_Destroy,
    PJRT_Buffer_CopyRawToHost,
    PJRT_AsyncHostToDeviceTransferManager_Destroy,
    PJRT_AsyncHostToDeviceTransferManager_TransferData,
    PJRT_Client_CreateBuffersForAsyncHostToDevice,
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer,
    PJRT_AsyncHostToDeviceTransferManager_Device,
    PJRT_AsyncHostToDeviceTransferManager_BufferCount,
    PJRT_AsyncHostToDeviceTransferManager_BufferSize,
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError,
    PJRT_AsyncHostToDeviceTransferManager_AddMetadata,
    PJRT_Client_DmaMap,
    PJRT_Client_DmaUnmap,
    PJRT_Client_CreateUninitializedBuffer,
    PJRT_Client_UpdateGlobalProcessInfo,
    PJRT_TopologyDescription_Deserialize,
    PJRT_Client_CreateAliasBuffer,
    PJRT_Client_FulfillAliasBuffer,
    PJRT_LoadedExecutable_GetDeviceAssignment,
    PJRT_Client_CreateErrorBuffer,
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral,
    PJRT_Buffer_CopyRawToHostFuture,
    PJRT_Device_PoisonExecution,
    PJRT_Device_CreateAsyncTrackingEvent,
    PJRT_AsyncTrackingEvent_Destroy,
    PJRT_Executable_GetCompileOptions,
    PJRT_Buffer_DonateWithControlDependency,
    PJRT_Event_Create,
    PJRT_Event_Set,
    PJRT_Device_GetAttributes,
    PJRT_Client_Load,
    PJRT_LoadedExecutable_AddressableDeviceLogicalIds,
    PJRT_Buffer_Bitcast,
    PJRT_Error_ForEachPayload,
    PJRT_TopologyDescription_Fingerprint,
    PJRT_Executable_ParameterMemoryKinds,
    PJRT_Device_ClearMemoryStats,
    PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace,
    PJRT_TopologyDescription_GetMemorySpaceKindIds,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trampolines_follow_the_slot_order() {
        for (t, s) in TRAMPOLINE_NAMES.iter().zip(crate::abi::SLOT_NAMES) {
            assert_eq!(&t["PJRT_".len()..], s);
        }
    }

    #[test]
    fn a_trampoline_returns_unimplemented_naming_itself() {
        let slot = crate::abi::slot_index("Client_DmaMap");
        let f: unsafe extern "C" fn(*mut c_void) -> *mut c_void =
            // SAFETY: every trampoline has this signature.
            unsafe { std::mem::transmute(trampolines()[slot]) };
        // SAFETY: trampolines never read their argument.
        let e = unsafe { f(std::ptr::null_mut()) };
        // SAFETY: a live error from the trampoline.
        let e = unsafe { Box::from_raw(e.cast::<Error>()) };
        assert_eq!(e.code, Code::Unimplemented);
        assert_eq!(e.message, "PJRT_Client_DmaMap is not implemented by xlac");
    }
}
