//! Vectorized pooling: a loop fusion whose root is a `reduce-window` that does
//! not slide along the output's minor dimension (window size 1, stride 1, no padding or
//! dilation there: NHWC max/avg pooling over H and W) computes `f32x4`/`f64x2` vectors of
//! consecutive minor-dimension outputs. Each window position is one vector of the input
//! (computed by the vector emitter, so `max(x + bias, 0)` before the pool stays fused),
//! combined into the accumulator unless that position falls into the padding (a scalar
//! condition: the other dimensions are the same for every lane). The window positions are
//! unrolled (small windows only). Everything else keeps the scalar
//! `elemental/reduce.rs` path. Each output is reduced in the interpreter's order (init,
//! then the window in row-major order), so results match it exactly for max/min.
//! XLA: `EmitReduceWindow` in `xla/codegen/emitters/elemental_hlo_to_mlir.cc`, vectorized
//! by LLVM there.

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Type, Value};

use super::vector_reduce::reducer_kind;
use crate::codegen::CodegenError;
use crate::codegen::elemental::{Emitter, Frame, array_shape, error};
use crate::ir::{ArrayShape, Computation, Instruction, Module, Op, Window};

/// Unrolled window positions at most.
const MAX_WINDOW: i64 = 64;

/// The vector type for a loop fusion computing `fused` into `output` whose root is a
/// reduce-window this emitter handles, if any.
pub fn vector_window_type(
    module: &Module,
    fused: &Computation,
    output: &ArrayShape,
) -> Option<Type> {
    let root = fused.root_instr();
    let Op::ReduceWindow { window, to_apply } = &root.op else {
        return None;
    };
    if root.operands.len() != 2 || fused.instr(root.operands[1]).shape.rank() != 0 {
        return None;
    }
    reducer_kind(module, *to_apply)?;
    let input = fused.instr(root.operands[0]).shape.as_array()?;
    let minor = *output.layout.minor_to_major.first()?;
    if input.element_type != output.element_type
        || input.layout.minor_to_major.first() != Some(&minor)
        || input.dims.get(minor) != output.dims.get(minor)
        || window.dimensions.len() != output.rank()
    {
        return None;
    }
    let w = &window.dimensions[minor];
    let still = w.size == 1
        && w.stride == 1
        && w.padding_low == 0
        && w.padding_high == 0
        && w.window_dilation == 1;
    let positions: i64 = window.dimensions.iter().map(|d| d.size.max(0)).product();
    if !still
        || window.dimensions.iter().any(|d| d.base_dilation != 1)
        || !(1..=MAX_WINDOW).contains(&positions)
    {
        return None;
    }
    let ty =
        crate::codegen::kernel::loops::vectorize::vector_tree_type(fused, root.operands[0], input)?;
    (output.dims[minor] >= i64::from(ty.lane_count())).then_some(ty)
}

impl<'m> Emitter<'m, '_, '_> {
    /// The `vty` vector of reduce-window `instr` at output `index` (the first lane's), for a
    /// fusion [`vector_window_type`] accepted.
    pub fn vector_reduce_window(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        window: &Window,
        to_apply: crate::ir::ComputationId,
        index: &[Value],
        vty: Type,
    ) -> Result<Value, CodegenError> {
        let combine =
            reducer_kind(self.module, to_apply).ok_or_else(|| error(instr, "reducer kind"))?;
        let input = instr.operands[0];
        let dims = array_shape(frame.comp.instr(input))?.dims.clone();
        let init = self.emit1(frame, instr.operands[1], &[])?;
        let mut acc = self.b.ins().splat(vty, init);
        let sizes: Vec<i64> = window.dimensions.iter().map(|d| d.size).collect();
        let total: i64 = sizes.iter().product();
        for linear in 0..total {
            // Window position, row-major (the interpreter's order).
            let mut rest = linear;
            let mut w = vec![0; sizes.len()];
            for d in (0..sizes.len()).rev() {
                w[d] = rest % sizes[d];
                rest /= sizes[d];
            }
            let mut valid: Option<Value> = None;
            let mut at = Vec::with_capacity(dims.len());
            for (d, wd) in window.dimensions.iter().enumerate() {
                let o = self.b.ins().imul_imm_s(index[d], wd.stride);
                let p = self
                    .b
                    .ins()
                    .iadd_imm_s(o, w[d] * wd.window_dilation - wd.padding_low);
                let inside = wd.padding_low <= 0 && wd.padding_high <= 0 && wd.size == 1;
                if !inside {
                    let limit = self.i64c(dims[d]);
                    let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, p, limit);
                    valid = Some(match valid {
                        None => ok,
                        Some(v) => self.b.ins().band(v, ok),
                    });
                    at.push(self.clamp_i64(p, 0, dims[d] - 1));
                } else {
                    at.push(p);
                }
            }
            let mut memo = HashMap::new();
            let x = self.emit_vector(frame, input, &at, vty, &mut memo)?;
            let next = self.combine(combine, vty, acc, x);
            acc = match valid {
                Some(v) => self.b.ins().select(v, next, acc),
                None => next,
            };
        }
        Ok(acc)
    }
}

#[cfg(test)]
mod tests {
    use super::vector_window_type;
    use crate::front::hlo_text::parse_module;

    fn planned(input: &str, result: &str, window: &str) -> bool {
        let text = format!(
            "HloModule m\n\nmax {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}}\n\nENTRY main {{\n  x = {input} parameter(0)\n  i = f32[] constant(-inf)\n  ROOT r = {result} reduce-window(x, i), window={{{window}}}, to_apply=max\n}}\n"
        );
        let module = parse_module(&text, "t").unwrap().module;
        let entry = module.entry_computation();
        let output = entry.root_instr().shape.as_array().unwrap();
        vector_window_type(&module, entry, output).is_some()
    }

    #[test]
    fn pools_over_major_dimensions_are_vectorized() {
        assert!(planned(
            "f32[16,64,64,16]{3,2,1,0}",
            "f32[16,32,32,16]{3,2,1,0}",
            "size=1x2x2x1 stride=1x2x2x1"
        ));
    }

    #[test]
    fn windows_sliding_along_the_minor_dimension_are_not() {
        assert!(!planned(
            "f32[4,16]{1,0}",
            "f32[4,8]{1,0}",
            "size=1x2 stride=1x2"
        ));
        // NCHW: the minor dimension is pooled.
        assert!(!planned(
            "f32[2,3,8,8]{3,2,1,0}",
            "f32[2,3,4,4]{3,2,1,0}",
            "size=1x1x2x2 stride=1x1x2x2"
        ));
    }
}
