//! `optimize-input-output-buffer-alias`: turns buffer donors (`buffer_donor`, what jax
//! writes as `jax.buffer_donor` when it leaves the choice of output to the compiler) into
//! `input_output_alias` pairs, one donor per output of the same shape and layout.
//!
//! A donor that no output can reuse stays a donor, and the caller keeps its buffer: the
//! plugin counts a parameter as consumed only when an alias names it, as XLA's PJRT clients
//! do (`jit(f, donate_argnums=0)` of `x @ x.T` leaves `x` alive).
//!
//! Outputs are visited in order (the root's leaves, depth first); each takes the first
//! unused donor, in the donors' order, whose shape equals its own, layout included (the
//! pass runs after layout assignment, so the shapes are the final ones). Outputs that an
//! alias already names are skipped. The new aliases are may-alias.
//!
//! XLA: `xla/service/optimize_input_output_buffer_alias.cc` (with `registered_buffer_donor_only`).

use super::{Pass, PassError};
use crate::ir::{InputOutputAlias, Module, Shape, ShapeIndex};

/// Buffer donors become input/output aliases where an output can reuse their buffer.
pub struct OptimizeInputOutputBufferAlias;

impl Pass for OptimizeInputOutputBufferAlias {
    fn name(&self) -> &'static str {
        "optimize-input-output-buffer-alias"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        if module.config.buffer_donor.is_empty() {
            return Ok(false);
        }
        let entry = module.entry_computation();
        let parameters: Vec<Shape> = entry
            .parameters()
            .iter()
            .map(|&p| entry.instrs[p].shape.clone())
            .collect();
        let mut outputs = Vec::new();
        leaves(module.result_shape(), &mut Vec::new(), &mut outputs);
        let mut donors = std::mem::take(&mut module.config.buffer_donor);
        let mut changed = false;
        for (index, shape) in outputs {
            let taken = module
                .config
                .input_output_alias
                .iter()
                .any(|a| a.output_index == index);
            if taken {
                continue;
            }
            let found = donors.iter().position(|d| {
                parameters
                    .get(d.parameter)
                    .and_then(|p| p.subshape(&d.parameter_index))
                    == Some(&shape)
            });
            if let Some(at) = found {
                let donor = donors.remove(at);
                module.config.input_output_alias.push(InputOutputAlias {
                    output_index: index,
                    parameter: donor.parameter,
                    parameter_index: donor.parameter_index,
                    must_alias: false,
                });
                changed = true;
            }
        }
        module
            .config
            .input_output_alias
            .sort_by(|a, b| a.output_index.cmp(&b.output_index));
        module.config.buffer_donor = donors;
        Ok(changed)
    }
}

/// The array leaves of `shape` with their indices, depth first.
fn leaves(shape: &Shape, at: &mut ShapeIndex, out: &mut Vec<(ShapeIndex, Shape)>) {
    match shape.tuple_elements() {
        Some(elements) => {
            for (i, e) in elements.iter().enumerate() {
                at.push(i);
                leaves(e, at, out);
                at.pop();
            }
        }
        None if shape.is_array() => out.push((at.clone(), shape.clone())),
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::Pass;

    fn run(text: &str) -> Module {
        let mut m = crate::pipeline::testing::parse_verified(text);
        OptimizeInputOutputBufferAlias.run(&mut m).expect("runs");
        m
    }

    #[test]
    fn a_donor_becomes_the_alias_of_the_first_output_of_its_shape() {
        let m = run(r#"HloModule m, buffer_donor={ (0, {}), (1, {}) }

ENTRY e {
  a = f32[8,2]{1,0} parameter(0)
  b = f32[4]{0} parameter(1)
  n = f32[4]{0} negate(b)
  s = f32[8,2]{1,0} add(a, a)
  ROOT t = (f32[4]{0}, f32[8,2]{1,0}, f32[8,2]{1,0}) tuple(n, s, s)
}
"#);
        let pairs: Vec<(Vec<usize>, usize)> = m
            .config
            .input_output_alias
            .iter()
            .map(|a| (a.output_index.clone(), a.parameter))
            .collect();
        assert_eq!(pairs, vec![(vec![0], 1), (vec![1], 0)]);
        assert!(m.config.buffer_donor.is_empty());
    }

    #[test]
    fn a_donor_no_output_fits_stays_a_donor() {
        let m = run(r#"HloModule m, buffer_donor={ (0, {}) }

ENTRY e {
  a = f32[8,2]{1,0} parameter(0)
  ROOT d = f32[8,8]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
"#);
        assert!(m.config.input_output_alias.is_empty());
        assert_eq!(m.config.buffer_donor.len(), 1);
    }

    #[test]
    fn a_different_layout_does_not_fit_and_taken_outputs_are_skipped() {
        let m = run(
            r#"HloModule m, input_output_alias={ {0}: (1, {}, may-alias) }, buffer_donor={ (0, {}) }

ENTRY e {
  a = f32[2,2]{0,1} parameter(0)
  b = f32[2,2]{1,0} parameter(1)
  c = f32[2,2]{1,0} copy(a)
  ROOT t = (f32[2,2]{1,0}, f32[2,2]{1,0}) tuple(b, c)
}
"#,
        );
        assert_eq!(m.config.input_output_alias.len(), 1);
        assert_eq!(m.config.buffer_donor.len(), 1);
    }
}
