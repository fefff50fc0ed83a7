//! The contract between fusion, codegen and the runtime: which instructions codegen turns
//! into (part of) a generated kernel. Fusion only fuses these and wraps leftovers of these
//! into `wrapped_<op>` fusions; codegen must emit every one of them; everything else runs as
//! a runtime library thunk (dot, convolution, sort, fft, custom calls, control flow, ...).

use crate::ir::{Computation, InstrId, Instruction, Module, Opcode, PrimitiveType};

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

/// True if `id` of `comp` can be part of a generated kernel: [`emits_kernel`] holds and
/// every operand's element types are [`kernel_type`]s too (a `convert` from `c64` has an
/// `f32` result but reads complex numbers). Fusion and the fusion wrapper use this, so
/// codegen never sees a fused or wrapped instruction that reads a non-kernel type.
pub fn is_kernel_instruction(comp: &Computation, id: InstrId) -> bool {
    let instr = comp.instr(id);
    emits_kernel(instr)
        && instr.operands.iter().all(|&o| {
            comp.instr(o)
                .shape
                .leaves()
                .iter()
                .all(|l| kernel_type(l.element_type))
        })
}

/// Instructions that launch no work of their own: they name a buffer (parameter,
/// constant), group or pick buffers (tuple, get-tuple-element) or reinterpret one
/// (bitcast). The fusion wrapper leaves them alone, and the kernel count skips them.
pub fn is_free(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::Parameter
            | Opcode::Constant
            | Opcode::Tuple
            | Opcode::GetTupleElement
            | Opcode::Bitcast
    )
}

/// The number of entry instructions that launch work (every one but the [`is_free`]
/// ones): XLA's kernel count in `meta.json` counts `xla_opt.hlo` the same way.
pub fn kernel_count(module: &Module) -> usize {
    module
        .entry_computation()
        .iter()
        .filter(|(_, i)| !is_free(i.opcode()))
        .count()
}
