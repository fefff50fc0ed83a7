//! `PJRT_Shardings_Extension` (extension type 19): an executable's parameter and output
//! shardings as serialized `xla.OpSharding`s. jax's C-API client asks it first (API minor
//! 91 and later) and falls back to parsing the optimized program; answering here keeps the
//! shardings jax places its arrays by independent of whether every instruction of the
//! program has an `HloInstructionProto` form.
//! XLA: `xla/pjrt/c/pjrt_c_api_shardings_extension.h`.

use std::ffi::{c_char, c_int, c_void};

use xlac::front::hlo_proto::op_sharding_bytes;
use xlac::ir::sharding::HloSharding;

use crate::error::guard;
use crate::host_callback::ExtensionBase;

/// `PJRT_Extension_Type_Shardings`.
pub const PJRT_EXTENSION_TYPE_SHARDINGS: c_int = 19;

/// Serialized shardings, with the pointer and size arrays the extension hands out; they
/// live as long as the executable that owns them.
pub struct ShardingList {
    bytes: Vec<Vec<u8>>,
    pointers: Vec<*const c_char>,
    sizes: Vec<usize>,
}

// SAFETY: the pointers point into `bytes`, owned by the same value and never changed.
unsafe impl Send for ShardingList {}
unsafe impl Sync for ShardingList {}

impl ShardingList {
    /// The serialized form of `shardings`, in order.
    pub fn new(shardings: &[HloSharding]) -> ShardingList {
        let bytes: Vec<Vec<u8>> = shardings.iter().map(op_sharding_bytes).collect();
        let pointers = bytes.iter().map(|b| b.as_ptr().cast()).collect();
        let sizes = bytes.iter().map(Vec::len).collect();
        ShardingList {
            bytes,
            pointers,
            sizes,
        }
    }

    /// How many shardings.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// A program's shardings: one per entry parameter, one per flattened output.
pub struct ExecutableShardings {
    /// The entry parameters', in order.
    pub parameters: ShardingList,
    /// The flattened outputs', in order.
    pub outputs: ShardingList,
}

/// `PJRT_Shardings_PJRT_Executable_ParameterShardings_Args` and `..._OutputShardings_Args`
/// (the same fields).
#[repr(C)]
pub struct ShardingsArgs {
    /// `sizeof` as the caller knows it.
    pub struct_size: usize,
    /// Unused.
    pub extension_start: *mut c_void,
    /// The `PJRT_Executable`.
    pub executable: *mut c_void,
    /// Out: how many shardings.
    pub count: usize,
    /// Out: the serialized shardings, or NULL when the program has none (one device).
    pub shardings: *const *const c_char,
    /// Out: each one's size.
    pub sharding_sizes: *const usize,
}

/// `PJRT_Shardings_Extension`.
#[repr(C)]
pub struct ShardingsExtension {
    /// The chain link.
    pub base: ExtensionBase,
    /// `PJRT_Shardings_PJRT_Executable_ParameterShardings`.
    pub parameter_shardings: unsafe extern "C" fn(*mut ShardingsArgs) -> *mut c_void,
    /// `PJRT_Shardings_PJRT_Executable_OutputShardings`.
    pub output_shardings: unsafe extern "C" fn(*mut ShardingsArgs) -> *mut c_void,
}

/// Fills `a` from `list`, or with NULL (no shardings: the client then reports none).
fn answer(a: &mut ShardingsArgs, list: Option<&ShardingList>) {
    match list {
        Some(l) => {
            a.count = l.len();
            a.shardings = l.pointers.as_ptr();
            a.sharding_sizes = l.sizes.as_ptr();
        }
        None => {
            a.count = 0;
            a.shardings = std::ptr::null();
            a.sharding_sizes = std::ptr::null();
        }
    }
}

unsafe extern "C" fn parameter_shardings(args: *mut ShardingsArgs) -> *mut c_void {
    guard("Shardings_ParameterShardings", args, |a| {
        // SAFETY: a live executable from this plugin.
        let state = unsafe { crate::executable::state_of(a.executable)? };
        answer(a, state.shardings().map(|s| &s.parameters));
        Ok(())
    })
}

unsafe extern "C" fn output_shardings(args: *mut ShardingsArgs) -> *mut c_void {
    guard("Shardings_OutputShardings", args, |a| {
        // SAFETY: a live executable from this plugin.
        let state = unsafe { crate::executable::state_of(a.executable)? };
        answer(a, state.shardings().map(|s| &s.outputs));
        Ok(())
    })
}

/// The Shardings extension, linked to `next` (the rest of the chain).
pub fn extension(next: *mut c_void) -> *mut c_void {
    struct Link(ShardingsExtension);
    // SAFETY: function pointers and a link to a 'static extension only.
    unsafe impl Send for Link {}
    unsafe impl Sync for Link {}
    static LINK: std::sync::OnceLock<Link> = std::sync::OnceLock::new();
    let link = LINK.get_or_init(|| {
        Link(ShardingsExtension {
            base: ExtensionBase {
                struct_size: std::mem::size_of::<ShardingsExtension>(),
                type_: PJRT_EXTENSION_TYPE_SHARDINGS,
                next: next.cast(),
            },
            parameter_shardings,
            output_shardings,
        })
    });
    (&link.0 as *const ShardingsExtension).cast_mut().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_is_type_19_and_links_to_the_rest() {
        let next = crate::host_callback::ffi_extension();
        let ext = extension(next);
        // SAFETY: a 'static extension.
        let e = unsafe { &*ext.cast::<ShardingsExtension>() };
        assert_eq!(e.base.type_, 19);
        assert_eq!(e.base.next.cast::<c_void>(), next);
        // The header's layout: base (24 bytes), then the two functions.
        assert_eq!(std::mem::size_of::<ShardingsExtension>(), 40);
        assert_eq!(std::mem::size_of::<ShardingsArgs>(), 48);
    }

    #[test]
    fn shardings_are_serialized_op_shardings() {
        let s = HloSharding::parse("{devices=[4,1]<=[4]}").unwrap();
        let list = ShardingList::new(&[HloSharding::Replicated, s]);
        assert_eq!(list.len(), 2);
        // type REPLICATED (0) is the default: an empty message.
        assert_eq!(list.sizes[0], 0);
        assert!(list.sizes[1] > 0);
        assert_eq!(list.pointers[1], list.bytes[1].as_ptr().cast());
    }
}
