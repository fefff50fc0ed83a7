//! `qr-expander`: the platform-neutral QR custom calls jax emits for a platform without
//! its own lowering (PJRT plugins such as xlac's): `custom-call "Qr"` (`(a, taus)`: `R` and
//! the Householder vectors packed as LAPACK's `?geqrf` packs them) and `custom-call
//! "ProductOfElementaryHouseholderReflectors"` (`Q = H₁⋯H_k` from them, as `?orgqr`).
//! XLA: `xla/service/qr_expander.cc` (`QrExpander`), which expands both into HLO loops of
//! Householder reflections with LAPACK's conventions (`H = I - τ v vᴴ`, `v₀ = 1`).
//!
//! xlac rewrites them into the LAPACK FFI calls that compute exactly that
//! (`lapack_?geqrf_ffi`, `lapack_?orgqr_ffi` / `?ungqr`, column-major operand layouts as
//! jax pins them on CPU), which both backends run natively (`eval::lapack`): the same
//! results as XLA's loop, blocked instead of one reflector per iteration.

use super::op_expander::find_instructions;
use super::{Pass, PassError};
use crate::ir::{CustomCallApiVersion, Layout, Module, Op, PrimitiveType, Shape};

/// Rewrites `Qr` and `ProductOfElementaryHouseholderReflectors` into LAPACK calls.
pub struct QrExpander;

impl Pass for QrExpander {
    fn name(&self) -> &'static str {
        "qr-expander"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let found = find_instructions(module, |op| {
            matches!(op, Op::CustomCall(cc)
                if cc.target == "Qr" || cc.target == "ProductOfElementaryHouseholderReflectors")
        });
        for &(c, id) in &found {
            let comp = &module.computations[c];
            let instr = &comp.instrs[id];
            let operands: Vec<Shape> = instr
                .operands
                .iter()
                .map(|&o| comp.instrs[o].shape.clone())
                .collect();
            let name = instr.name.clone();
            let Some(a) = operands.first().and_then(Shape::as_array) else {
                return Err(PassError::new(format!("{name}: QR of a non-array")));
            };
            let letter = match a.element_type {
                PrimitiveType::F32 => 's',
                PrimitiveType::F64 => 'd',
                PrimitiveType::C64 => 'c',
                PrimitiveType::C128 => 'z',
                t => return Err(PassError::new(format!("{name}: QR of {t}"))),
            };
            let complex = matches!(letter, 'c' | 'z');
            let instr = &mut module.computations[c].instrs[id];
            let Op::CustomCall(cc) = &mut instr.op else {
                unreachable!("found as a custom call")
            };
            cc.target = if cc.target == "Qr" {
                format!("lapack_{letter}geqrf_ffi")
            } else {
                format!(
                    "lapack_{letter}{}_ffi",
                    if complex { "ungqr" } else { "orgqr" }
                )
            };
            cc.api_version = Some(CustomCallApiVersion::TypedFfi);
            cc.operand_layout_constraints = Some(
                operands
                    .into_iter()
                    .map(|mut s| {
                        if let Shape::Array(a) = &mut s {
                            a.layout = column_major(a.rank());
                        }
                        s
                    })
                    .collect(),
            );
            instr.backend_config = None;
        }
        Ok(!found.is_empty())
    }
}

/// `{r-2, r-1, r-3, ..., 0}`: column-major matrices, batch dimensions outermost (what jax
/// pins for LAPACK), or `{0}` for a vector.
fn column_major(rank: usize) -> Layout {
    let minor_to_major = if rank >= 2 {
        let mut m = vec![rank - 2, rank - 1];
        m.extend((0..rank - 2).rev());
        m
    } else {
        (0..rank).rev().collect()
    };
    Layout {
        minor_to_major,
        extra: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{EvalOptions, evaluate};
    use crate::front::hlo_text::parse_module;
    use crate::ir::{ArrayLiteral, Literal};

    /// What jax 0.10.2 lowers `jnp.linalg.qr` to for a platform without LAPACK.
    const QR: &str = "HloModule m
ENTRY main {
  a = f32[2,4,3]{2,1,0} parameter(0)
  qr = (f32[2,4,3]{2,1,0}, f32[2,3]{1,0}) custom-call(a), custom_call_target=\"Qr\", api_version=API_VERSION_ORIGINAL
  r = f32[2,4,3]{2,1,0} get-tuple-element(qr), index=0
  t = f32[2,3]{1,0} get-tuple-element(qr), index=1
  ROOT q = f32[2,4,3]{2,1,0} custom-call(r, t), custom_call_target=\"ProductOfElementaryHouseholderReflectors\", api_version=API_VERSION_ORIGINAL
}";

    #[test]
    fn rewrites_into_lapack_calls_that_give_an_orthonormal_q() {
        let mut module = parse_module(QR, "qr.hlo").unwrap().module;
        assert!(QrExpander.run(&mut module).unwrap());
        let text = module.to_string();
        assert!(text.contains("lapack_sgeqrf_ffi"), "{text}");
        assert!(text.contains("lapack_sorgqr_ffi"), "{text}");
        assert!(!QrExpander.run(&mut module).unwrap());
        let a: Vec<f32> = (0..24).map(|i| ((i * 7) % 11) as f32 / 5.0 - 1.0).collect();
        let arg = Literal::Array(ArrayLiteral::from_vec(&[2, 4, 3], a));
        let q = evaluate(&module, &[arg], &EvalOptions::default()).unwrap();
        let q = q.as_array().unwrap().values::<f32>().unwrap();
        for b in 0..2 {
            for i in 0..3 {
                for j in 0..3 {
                    let dot: f32 = (0..4)
                        .map(|r| q[b * 12 + r * 3 + i] * q[b * 12 + r * 3 + j])
                        .sum();
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((dot - want).abs() < 1e-5, "QᵀQ[{i},{j}] = {dot}");
                }
            }
        }
    }
}
