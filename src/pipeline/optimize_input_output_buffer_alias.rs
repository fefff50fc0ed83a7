//! `optimize-input-output-buffer-alias`: turns buffer donors (`buffer_donor`, what jax
//! writes as `jax.buffer_donor` when it leaves the choice of output to the compiler) into
//! `input_output_alias` pairs: an output takes a donor's buffer when their sizes in bytes
//! are equal (shapes may differ: `reshape(y, (16,))` of a donated `f32[16,1]` reuses it).
//!
//! A donor that no output can reuse stays a donor, and the caller keeps its buffer: the
//! plugin counts a parameter as consumed only when an alias names it, as XLA's PJRT clients
//! do (`jit(f, donate_argnums=0)` of `x @ x.T` leaves `x` alive).
//!
//! The pairing is XLA's: donors (in parameter order) and the outputs no alias names yet (the
//! root's leaves, depth first) are each sorted by size, largest first, keeping their order
//! among equal sizes, and matched by walking both lists at once; only arrays in the same
//! memory space pair up. It runs after layout assignment, so the sizes are the final
//! ones. The new aliases are may-alias.
//!
//! XLA: `xla/hlo/transforms/simplifiers/optimize_input_output_buffer_alias.cc`.

use super::{Pass, PassError};
use crate::ir::{ArrayShape, InputOutputAlias, Module, Shape, ShapeIndex};

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
        // (position in buffer_donor, size, memory space), largest first.
        let mut donors: Vec<(usize, usize, Option<String>)> = Vec::new();
        for (at, d) in module.config.buffer_donor.iter().enumerate() {
            let leaf = parameters
                .get(d.parameter)
                .and_then(|p| p.subshape(&d.parameter_index))
                .and_then(Shape::as_array);
            if let Some(a) = leaf {
                donors.push((at, bytes(a)?, a.layout.extra.clone()));
            }
        }
        let mut outputs = Vec::new();
        leaves(module.result_shape(), &mut Vec::new(), &mut outputs);
        let mut donees: Vec<(ShapeIndex, usize, Option<String>)> = Vec::new();
        for (index, a) in outputs {
            let taken = module
                .config
                .input_output_alias
                .iter()
                .any(|alias| alias.output_index == index);
            if !taken {
                donees.push((index, bytes(&a)?, a.layout.extra.clone()));
            }
        }
        // Stable: equal sizes keep their order.
        donors.sort_by_key(|d| std::cmp::Reverse(d.1));
        donees.sort_by_key(|e| std::cmp::Reverse(e.1));
        let mut used = vec![false; module.config.buffer_donor.len()];
        let mut changed = false;
        let mut spaces: Vec<Option<String>> = donors.iter().map(|d| d.2.clone()).collect();
        spaces.sort();
        spaces.dedup();
        for space in spaces {
            let ds: Vec<_> = donors.iter().filter(|d| d.2 == space).collect();
            let es: Vec<_> = donees.iter().filter(|e| e.2 == space).collect();
            let (mut i, mut j) = (0, 0);
            while i < ds.len() && j < es.len() {
                let (at, donor_size, _) = ds[i];
                let (index, donee_size, _) = es[j];
                if donor_size > donee_size {
                    i += 1;
                } else if donor_size < donee_size {
                    j += 1;
                } else {
                    let donor = &module.config.buffer_donor[*at];
                    module.config.input_output_alias.push(InputOutputAlias {
                        output_index: index.clone(),
                        parameter: donor.parameter,
                        parameter_index: donor.parameter_index.clone(),
                        must_alias: false,
                    });
                    used[*at] = true;
                    changed = true;
                    i += 1;
                    j += 1;
                }
            }
        }
        let mut kept = used.iter();
        module
            .config
            .buffer_donor
            .retain(|_| !kept.next().copied().unwrap_or(false));
        module
            .config
            .input_output_alias
            .sort_by(|a, b| a.output_index.cmp(&b.output_index));
        Ok(changed)
    }
}

/// An array's size in bytes, or the error that it has none.
fn bytes(a: &ArrayShape) -> Result<usize, PassError> {
    a.checked_byte_size()
        .ok_or_else(|| PassError::new(format!("{a:?}: its size in bytes overflows")))
}

/// The array leaves of `shape` with their indices, depth first.
fn leaves(shape: &Shape, at: &mut ShapeIndex, out: &mut Vec<(ShapeIndex, ArrayShape)>) {
    match shape {
        Shape::Tuple(elements) => {
            for (i, e) in elements.iter().enumerate() {
                at.push(i);
                leaves(e, at, out);
                at.pop();
            }
        }
        Shape::Array(a) => out.push((at.clone(), a.clone())),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::Pass;

    /// (output index, parameter) of every alias, in the config's order.
    fn pairs(m: &Module) -> Vec<(Vec<usize>, usize)> {
        m.config
            .input_output_alias
            .iter()
            .map(|a| (a.output_index.clone(), a.parameter))
            .collect()
    }

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
        assert_eq!(pairs(&m), vec![(vec![0], 1), (vec![1], 0)]);
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
    fn sizes_pair_up_largest_first_and_taken_outputs_are_skipped() {
        // Output {0} is taken; {1} (f32[8]) and {2} (f32[2,2]) are free. Donor 0 is
        // f32[4,2] (32 bytes, as {1}), donor 2 f32[4] (16 bytes, as {2}), donor 3 s8[3]
        // fits nothing.
        let m = run(
            r#"HloModule m, input_output_alias={ {0}: (1, {}, may-alias) }, buffer_donor={ (0, {}), (2, {}), (3, {}) }

ENTRY e {
  a = f32[4,2]{1,0} parameter(0)
  b = f32[2,2]{1,0} parameter(1)
  c = f32[4]{0} parameter(2)
  d = s8[3]{0} parameter(3)
  r = f32[8]{0} reshape(a)
  n = f32[2,2]{1,0} negate(b)
  ROOT t = (f32[2,2]{1,0}, f32[8]{0}, f32[2,2]{1,0}) tuple(b, r, n)
}
"#,
        );
        assert_eq!(pairs(&m), vec![(vec![0], 1), (vec![1], 0), (vec![2], 2)]);
        let left: Vec<usize> = m.config.buffer_donor.iter().map(|d| d.parameter).collect();
        assert_eq!(left, vec![3]);
    }
}
