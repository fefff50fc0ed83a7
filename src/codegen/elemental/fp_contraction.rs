//! Floating-point contraction in kernels: an `add` / `subtract` that `ir::fp_contraction`
//! pairs with its single-use `multiply` is emitted as one CLIF `fma` of the multiply's
//! operands, as LLVM contracts it in XLA:CPU's kernels (`multiply.3` + `add.4` → `fma` in
//! `fused_computation.2`; the `fma` carries `add.4`'s source location in the CLIF dumps).
//!
//! Only where the target has a native FMA (`MathOptions::has_fma`, Cranelift's
//! `TargetIsa::has_native_fma`): LLVM contracts only when FMA is legal and fast, and
//! without it Cranelift would make the `fma` a libcall per lane. Only in a kernel's fused
//! computation: reducers and mapped computations are emitted as scalar code of their own.

use cranelift_codegen::ir::{InstBuilder, Type, Value};
use std::collections::HashMap;

use super::{Emitter, Frame, Params};
use crate::codegen::CodegenError;
use crate::ir::fp_contraction::{Contraction, contractions};
use crate::ir::{InstrId, Instruction};

impl<'m> Emitter<'m, '_, '_> {
    /// The contraction of instruction `id` of `frame`, if the kernel computes it as an `fma`.
    pub(crate) fn contraction(&mut self, frame: &Frame<'m>, id: InstrId) -> Option<Contraction> {
        // Frame 0 is the kernel's own fused computation (frames of inlined calls count up).
        if !self.env.fp_contraction || frame.id != 0 || !matches!(frame.params, Params::Buffers(_))
        {
            return None;
        }
        self.contractions
            .get_or_insert_with(|| contractions(frame.comp))
            .get(id)
            .copied()
    }

    /// `fma` of the product's operands and the other operand, each computed by `operand`
    /// (scalars at the element's index, or vectors), negated as the sum's opcode asks.
    fn fused_multiply_add(
        &mut self,
        frame: &Frame<'m>,
        sum: &Instruction,
        c: Contraction,
        mut operand: impl FnMut(&mut Self, InstrId) -> Result<Value, CodegenError>,
    ) -> Result<Value, CodegenError> {
        let multiply = frame.comp.instr(c.multiply);
        let x = operand(self, multiply.operands[0])?;
        let y = operand(self, multiply.operands[1])?;
        let z = operand(self, sum.operands[1 - c.product.index()])?;
        Ok(self.fma_for(c, x, y, z))
    }

    /// `fma(±x, y, ±z)` for contraction `c` of product `x * y` and other operand `z`
    /// (scalars or vectors): `a*b - c` is `fma(a, b, -c)`, `c - a*b` is `fma(-a, b, c)`.
    pub(crate) fn fma_for(&mut self, c: Contraction, x: Value, y: Value, z: Value) -> Value {
        let x = if c.negated_product {
            self.b.ins().fneg(x)
        } else {
            x
        };
        let z = if c.negated_addend {
            self.b.ins().fneg(z)
        } else {
            z
        };
        self.b.ins().fma(x, y, z)
    }

    /// The scalar element of contracted sum `sum` at `index` (computed in f32 for f16,
    /// rounded by the caller).
    pub(super) fn contracted_scalar(
        &mut self,
        frame: &Frame<'m>,
        sum: &Instruction,
        c: Contraction,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        self.fused_multiply_add(frame, sum, c, |this, o| this.operand_at(frame, o, index))
    }

    /// The `vty` vector of contracted sum `sum` at `index` (the vector loop's form).
    pub(crate) fn contracted_vector(
        &mut self,
        frame: &Frame<'m>,
        sum: &Instruction,
        c: Contraction,
        index: &[Value],
        vty: Type,
        memo: &mut HashMap<InstrId, Value>,
    ) -> Result<Value, CodegenError> {
        self.fused_multiply_add(frame, sum, c, |this, o| {
            this.emit_vector(frame, o, index, vty, memo)
        })
    }
}
