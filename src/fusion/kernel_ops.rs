//! The contract between fusion, codegen and the runtime: which instructions codegen turns
//! into (part of) a generated kernel. Fusion only fuses these and wraps leftovers of these
//! into `wrapped_<op>` fusions; codegen must emit every one of them; everything else runs as
//! a runtime library thunk (dot, convolution, sort, fft, custom calls, control flow, ...).

use crate::ir::{Instruction, Opcode, PrimitiveType};

/// The element types generated kernels compute with: `pred`, the 8–64-bit integers, and
/// `f16`/`bf16` (computed in f32), `f32`, `f64`. Complex, fp8 and sub-byte types are
/// library work for now.
pub fn kernel_type(t: PrimitiveType) -> bool {
    use PrimitiveType::*;
    matches!(
        t,
        Pred | S8 | S16 | S32 | S64 | U8 | U16 | U32 | U64 | F16 | BF16 | F32 | F64
    )
}

/// True if codegen emits `instr` inside a kernel (elementwise on real numbers, data
/// movement, reductions, ...), judged by its opcode and the types of its result leaves.
/// (Operand types are the caller's to check with [`kernel_type`] where they differ.)
pub fn emits_kernel(instr: &Instruction) -> bool {
    use Opcode::*;
    if !instr
        .shape
        .leaves()
        .iter()
        .all(|l| kernel_type(l.element_type))
    {
        return false;
    }
    let op = instr.opcode();
    if op == BitcastConvert {
        // Both forms: the width-changing one adds or drops a minor dimension of sub-elements.
        return true;
    }
    op.is_elementwise()
        || matches!(
            op,
            Parameter
                | Constant
                | Iota
                | Broadcast
                | Reshape
                | Bitcast
                | Transpose
                | Copy
                | Slice
                | Pad
                | Concatenate
                | Reverse
                | DynamicSlice
                | DynamicUpdateSlice
                | Gather
                | Reduce
                | ReduceWindow
                | Map
                | Tuple
                | GetTupleElement
        )
}
