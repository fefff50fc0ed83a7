//! Input donation: the entry function's argument attributes `tf.aliasing_output = N`
//! (the argument's buffer becomes result `N`) and `jax.buffer_donor = true` (the caller
//! gives the buffer up, for any result), as the module's `input_output_alias` and
//! `buffer_donor`. jax's `jit(..., donate_argnums=...)` writes them; text and bytecode
//! input reach here as the same attribute tree.
//! XLA: the entry argument attributes read in `xla/hlo/translate/mhlo_to_hlo/mlir_hlo_to_hlo.cc`,
//! and `HloInputOutputAliasConfig::Verify` (an output aliases one parameter of its size).

use super::super::ast::Function;
use super::super::attributes::Attr;
use super::Converter;
use crate::front::hlo_text::ParseError;
use crate::ir::{BufferDonor, InputOutputAlias};

/// The argument attribute naming the result an argument's buffer becomes.
const ALIASING_OUTPUT: &str = "tf.aliasing_output";
/// The argument attribute marking a donor without a fixed result.
const BUFFER_DONOR: &str = "jax.buffer_donor";

impl<'a> Converter<'a> {
    /// Reads the donation attributes of entry function `f` into the module config. The
    /// entry's results must already be converted (a single result is the root itself,
    /// output index `{}`; several are a tuple, output index `{N}`).
    pub(crate) fn set_donation(&mut self, f: &Function) -> Result<(), ParseError> {
        let mut aliases: Vec<InputOutputAlias> = Vec::new();
        let mut donors: Vec<BufferDonor> = Vec::new();
        for (i, attrs) in f.argument_attributes.iter().enumerate() {
            for (name, value) in attrs {
                match (name.as_str(), value) {
                    (ALIASING_OUTPUT, Attr::Int(n)) => {
                        let alias = self.alias(f, i, *n)?;
                        aliases.push(alias);
                    }
                    (ALIASING_OUTPUT, other) => {
                        return Err(self.err(
                            f.loc,
                            format!(
                                "argument {i}: {ALIASING_OUTPUT} must be an integer, not {other:?}"
                            ),
                        ));
                    }
                    (BUFFER_DONOR, Attr::Bool(true) | Attr::Unit) => donors.push(BufferDonor {
                        parameter: i,
                        parameter_index: Vec::new(),
                    }),
                    (BUFFER_DONOR, Attr::Bool(false)) => {}
                    (BUFFER_DONOR, other) => {
                        return Err(self.err(
                            f.loc,
                            format!(
                                "argument {i}: {BUFFER_DONOR} must be a boolean, not {other:?}"
                            ),
                        ));
                    }
                    _ => {}
                }
            }
        }
        // XLA prints aliases in output order and donors in parameter order.
        aliases.sort_by(|a, b| a.output_index.cmp(&b.output_index));
        for pair in aliases.windows(2) {
            if pair[0].output_index == pair[1].output_index {
                return Err(self.err(
                    f.loc,
                    format!(
                        "result {:?} is the aliasing output of both argument {} and argument {}",
                        pair[0].output_index, pair[0].parameter, pair[1].parameter
                    ),
                ));
            }
        }
        // An aliased argument is donated already; a donor entry would be redundant.
        donors.retain(|d| !aliases.iter().any(|a| a.parameter == d.parameter));
        self.module.config.input_output_alias = aliases;
        self.module.config.buffer_donor = donors;
        Ok(())
    }

    /// `tf.aliasing_output = n` on argument `i`: checked against the results.
    fn alias(&self, f: &Function, i: usize, n: i128) -> Result<InputOutputAlias, ParseError> {
        let out = usize::try_from(n)
            .ok()
            .filter(|&n| n < f.results.len())
            .ok_or_else(|| {
                self.err(
                    f.loc,
                    format!(
                        "argument {i}: {ALIASING_OUTPUT} = {n}, but @{} has {} result(s)",
                        f.name,
                        f.results.len()
                    ),
                )
            })?;
        let (param, result) = (f.arguments[i].1.to_shape(), f.results[out].to_shape());
        // The output is written into the argument's bytes: same element type, same count.
        let fits = match (param.as_array(), result.as_array()) {
            (Some(p), Some(r)) => p.element_type == r.element_type && p.dims == r.dims,
            _ => false,
        };
        if !fits {
            return Err(self.err(
                f.loc,
                format!(
                    "argument {i} ({param}) cannot alias result {out} ({result}): the shapes differ"
                ),
            ));
        }
        Ok(InputOutputAlias {
            output_index: if f.results.len() == 1 {
                Vec::new()
            } else {
                vec![out]
            },
            parameter: i,
            parameter_index: Vec::new(),
            must_alias: false,
        })
    }
}
