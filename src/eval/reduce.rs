//! Reductions over dimensions and windows: `reduce` (variadic), `reduce-window`
//! (variadic, with strides, padding and both dilations), `select-and-scatter`.
//!
//! Every output element folds a group of input elements, in row-major order, into an
//! accumulator that starts at the init value: `acc = f(acc, x)` (for N inputs,
//! `(acc_0..acc_N-1) = f(acc_0..acc_N-1, x_0..x_N-1)`). Positions in the padding or in
//! the holes of a base dilation are skipped, as HloEvaluator's `IterateThroughWindow` does.
//! The reducer runs natively when it is a single recognized op (see `scalar_fn`), else it
//! is called per element.
//!
//! One deliberate copy of an HloEvaluator detail: a single-input `reduce` whose reducer is
//! `add(p0, p1)` on a float type accumulates in f64 and rounds once at the end
//! (`GenerateReduceOutputElement`'s `use_fast_add`). reduce-window does not do this.
//! XLA: `xla/hlo/evaluator/hlo_evaluator.cc` (`HandleReduce`),
//! `hlo_evaluator_typed_visitor.h` (`HandleReduceWindow`, `HandleSelectAndScatter`).

pub(super) mod index;
pub(super) mod scalar_fn;
#[cfg(test)]
pub(super) mod test_util;
#[cfg(test)]
mod tests;

use self::index::{check_dims, dims_usize, linear_offsets, row_major_strides};
use self::scalar_fn::{
    Element, ScalarFn, ScalarPred, array, scalar_at, store_scalar, with_same_element_data,
};
use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, ComputationId, Literal, PrimitiveType, Shape, Window,
};

/// `reduce(inputs..., inits...), dimensions=..., to_apply=r`.
pub fn reduce(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    dimensions: &[usize],
    to_apply: ComputationId,
) -> EvalResult {
    let (inputs, inits) = split_inputs_and_inits(operands, "reduce")?;
    let dims = dims_usize(&inputs[0].shape.dims);
    check_dims(dimensions, dims.len(), "reduce dimension")?;
    // The evaluator walks the reduced dimensions in increasing order, the last fastest,
    // whatever order `dimensions={...}` lists them in.
    let mut reduced = dimensions.to_vec();
    reduced.sort_unstable();
    reduced.dedup();
    let kept: Vec<usize> = (0..dims.len()).filter(|d| !reduced.contains(d)).collect();
    let strides = row_major_strides(&dims);
    let bases = linear_offsets(&dims, &strides, &kept);
    let offsets = linear_offsets(&dims, &strides, &reduced);
    let out_dims: Vec<i64> = kept.iter().map(|&d| dims[d] as i64).collect();
    let out_types = result_types(shape, inputs.len())?;

    let mut group = |o: usize, buf: &mut Vec<usize>| {
        buf.clear();
        buf.extend(offsets.iter().map(|&k| bases[o] + k));
    };
    let data = fold_groups(
        ev,
        to_apply,
        &inputs,
        &inits,
        &out_types,
        bases.len(),
        &mut group,
        true,
    )?;
    Ok(assemble(out_types, &out_dims, data))
}

/// `reduce-window(inputs..., inits...), window=..., to_apply=r`.
pub fn reduce_window(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    window: &Window,
    to_apply: ComputationId,
) -> EvalResult {
    let (inputs, inits) = split_inputs_and_inits(operands, "reduce-window")?;
    let out_types = result_types(shape, inputs.len())?;
    let out_dims = shape
        .leaves()
        .first()
        .map(|a| a.dims.clone())
        .unwrap_or_default();
    let windows = WindowGroups::new(
        &dims_usize(&inputs[0].shape.dims),
        &dims_usize(&out_dims),
        window,
    )?;
    let mut group = |o: usize, buf: &mut Vec<usize>| windows.fill(o, buf);
    let count = windows.out_count();
    let data = fold_groups(
        ev, to_apply, &inputs, &inits, &out_types, count, &mut group, false,
    )?;
    Ok(assemble(out_types, &out_dims, data))
}

/// `select-and-scatter(operand, source, init), window=..., select=s, scatter=t`.
///
/// For each `source` element (row-major), its window over `operand` is searched: the
/// first valid position starts selected, and each later position `c` replaces the current
/// choice when `select(selected, c)` is false. The source value is then combined into the
/// result (initialized to `init`) at the selected position as `scatter(source, result)`,
/// the argument order HloEvaluator uses. A window entirely in the padding selects nothing.
pub fn select_and_scatter(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    window: &Window,
    select: ComputationId,
    scatter: ComputationId,
) -> EvalResult {
    let [operand, source, init] = operands else {
        return Err(EvalError::new("select-and-scatter takes 3 operands"));
    };
    let operand = array(operand, "select-and-scatter operand")?;
    let source = array(source, "select-and-scatter source")?;
    let init = array(init, "select-and-scatter init")?;
    let ty = operand.element_type();
    if source.element_type() != ty || init.element_type() != ty || init.data.len() != 1 {
        return Err(EvalError::new(
            "select-and-scatter: source and init must be of the operand's type",
        ));
    }
    if shape.dims() != operand.shape.dims.as_slice() {
        return Err(EvalError::new(
            "select-and-scatter result must have the operand's shape",
        ));
    }
    let dims = dims_usize(&operand.shape.dims);
    let windows = WindowGroups::new(&dims, &dims_usize(&source.shape.dims), window)?;
    let mut result = init.data.gather(&vec![0; operand.data.len()]);

    let select_fn = ScalarPred::recognize(ev.module, select, ty);
    let scatter_fn = ScalarFn::recognize(ev.module, scatter, ty);
    let native = match select_fn {
        ScalarPred::Compare {
            direction,
            total_order,
            lhs,
            rhs,
        } if scatter_fn.is_native() && lhs + rhs == 1 => {
            // select(a, b) = compare(param lhs, param rhs) with a = param 0, b = param 1.
            let swap = lhs == 1;
            macro_rules! run {
                ($op:expr, $src:expr, $out:expr) => {{
                    select_and_scatter_native(&windows, $op, $src, $out, scatter_fn, |a, b| {
                        let (l, r) = if swap { (b, a) } else { (a, b) };
                        Element::compare(direction, total_order, l, r)
                    });
                    true
                }};
            }
            match (&operand.data, &source.data, &mut result) {
                (ArrayData::F32(x), ArrayData::F32(s), ArrayData::F32(o)) => run!(x, s, o),
                (ArrayData::F64(x), ArrayData::F64(s), ArrayData::F64(o)) => run!(x, s, o),
                (ArrayData::BF16(x), ArrayData::BF16(s), ArrayData::BF16(o)) => run!(x, s, o),
                (ArrayData::F16(x), ArrayData::F16(s), ArrayData::F16(o)) => run!(x, s, o),
                (ArrayData::S32(x), ArrayData::S32(s), ArrayData::S32(o)) => run!(x, s, o),
                (ArrayData::S64(x), ArrayData::S64(s), ArrayData::S64(o)) => run!(x, s, o),
                _ => false,
            }
        }
        _ => false,
    };
    if !native {
        let mut candidates = Vec::new();
        for s in 0..windows.out_count() {
            windows.fill(s, &mut candidates);
            let Some((&first, rest)) = candidates.split_first() else {
                continue;
            };
            let mut selected = first;
            for &c in rest {
                let keep = ev.call(
                    select,
                    &[
                        &scalar_at(&operand.data, ty, selected),
                        &scalar_at(&operand.data, ty, c),
                    ],
                )?;
                if !pred_value(&keep)? {
                    selected = c;
                }
            }
            let combined = ev.call(
                scatter,
                &[
                    &scalar_at(&source.data, ty, s),
                    &scalar_at(&result, ty, selected),
                ],
            )?;
            store_scalar(&mut result, selected, &combined)?;
        }
    }
    Ok(Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(ty, &operand.shape.dims),
        data: result,
    }))
}

/// The typed select-and-scatter loop for a native `select` and `scatter`.
fn select_and_scatter_native<T: Element>(
    windows: &WindowGroups,
    operand: &[T],
    source: &[T],
    out: &mut [T],
    scatter: ScalarFn,
    select: impl Fn(T, T) -> bool,
) {
    let mut candidates = Vec::new();
    for (s, &src) in source.iter().enumerate().take(windows.out_count()) {
        windows.fill(s, &mut candidates);
        let Some((&first, rest)) = candidates.split_first() else {
            continue;
        };
        let mut selected = first;
        for &c in rest {
            if !select(operand[selected], operand[c]) {
                selected = c;
            }
        }
        out[selected] = scatter.apply(src, out[selected]);
    }
}

/// The boolean inside a `pred[]` computation result.
fn pred_value(lit: &Literal) -> EvalResult<bool> {
    lit.as_array()
        .and_then(|a| a.values::<bool>())
        .and_then(|v| v.first().copied())
        .ok_or_else(|| EvalError::new("select computation must return pred[]"))
}

/// Splits `inputs..., inits...` and checks that the inputs share dimensions and the
/// inits are scalars.
fn split_inputs_and_inits<'a>(
    operands: &[&'a Literal],
    what: &str,
) -> EvalResult<(Vec<&'a ArrayLiteral>, Vec<&'a ArrayLiteral>)> {
    if operands.is_empty() || !operands.len().is_multiple_of(2) {
        return Err(EvalError::new(format!(
            "{what} needs as many init values as inputs"
        )));
    }
    let n = operands.len() / 2;
    let inputs: Vec<&ArrayLiteral> = operands[..n]
        .iter()
        .map(|l| array(l, what))
        .collect::<EvalResult<_>>()?;
    let inits: Vec<&ArrayLiteral> = operands[n..]
        .iter()
        .map(|l| array(l, what))
        .collect::<EvalResult<_>>()?;
    if inputs.iter().any(|a| a.shape.dims != inputs[0].shape.dims) {
        return Err(EvalError::new(format!(
            "{what} inputs must have the same dimensions"
        )));
    }
    if inits.iter().any(|a| a.shape.rank() != 0) {
        return Err(EvalError::new(format!(
            "{what} init values must be scalars"
        )));
    }
    Ok((inputs, inits))
}

/// The element types of the `n` results (one array, or a tuple of `n` arrays).
fn result_types(shape: &Shape, n: usize) -> EvalResult<Vec<PrimitiveType>> {
    let leaves = shape.leaves();
    let ok = if n == 1 {
        shape.is_array()
    } else {
        shape.is_tuple() && leaves.len() == n
    };
    if !ok {
        return Err(EvalError::new(format!(
            "result shape does not match {n} reduced inputs"
        )));
    }
    Ok(leaves.iter().map(|a| a.element_type).collect())
}

/// One array (one input) or a tuple of arrays (several), row-major.
fn assemble(types: Vec<PrimitiveType>, dims: &[i64], data: Vec<ArrayData>) -> Literal {
    let mut arrays: Vec<Literal> = types
        .into_iter()
        .zip(data)
        .map(|(ty, data)| {
            Literal::Array(ArrayLiteral {
                shape: ArrayShape::new(ty, dims),
                data,
            })
        })
        .collect();
    if arrays.len() == 1 {
        arrays.remove(0)
    } else {
        Literal::Tuple(arrays)
    }
}

/// Folds, for each output position `o`, the input elements at the linear positions
/// `group(o)` into the init values with the computation `to_apply`.
///
/// `f64_add` enables HloEvaluator's f64 accumulation for a float `add` reducer.
#[allow(clippy::too_many_arguments)]
fn fold_groups(
    ev: &mut Evaluator<'_>,
    to_apply: ComputationId,
    inputs: &[&ArrayLiteral],
    inits: &[&ArrayLiteral],
    out_types: &[PrimitiveType],
    out_count: usize,
    group: &mut dyn FnMut(usize, &mut Vec<usize>),
    f64_add: bool,
) -> EvalResult<Vec<ArrayData>> {
    if inputs.len() == 1
        && inits[0].element_type() == inputs[0].element_type()
        && out_types[0] == inputs[0].element_type()
    {
        let f = ScalarFn::recognize(ev.module, to_apply, inputs[0].element_type());
        if f.is_native() {
            let f64_add = f64_add && f.is_add();
            let data = with_same_element_data!(
                &inputs[0].data,
                &inits[0].data,
                |x, init| Some(fold_native(f, x, init[0], out_count, group, f64_add)),
                None
            );
            if let Some(data) = data {
                return Ok(vec![data]);
            }
        }
    }

    // The general path: call the computation with (acc..., x...) as rank-0 literals.
    let n = inputs.len();
    let mut outs: Vec<ArrayData> = out_types
        .iter()
        .map(|&t| ArrayData::zeros(t, out_count))
        .collect();
    let mut positions = Vec::new();
    for o in 0..out_count {
        let mut accs: Vec<Literal> = inits.iter().map(|&a| Literal::Array(a.clone())).collect();
        group(o, &mut positions);
        for &i in &positions {
            let xs: Vec<Literal> = inputs
                .iter()
                .map(|a| scalar_at(&a.data, a.element_type(), i))
                .collect();
            let args: Vec<&Literal> = accs.iter().chain(&xs).collect();
            let result = ev.call(to_apply, &args)?;
            accs = if n == 1 {
                vec![result]
            } else {
                match result {
                    Literal::Tuple(t) if t.len() == n => t,
                    _ => {
                        return Err(EvalError::new(format!(
                            "reducer must return a tuple of {n}"
                        )));
                    }
                }
            };
        }
        for (out, acc) in outs.iter_mut().zip(&accs) {
            store_scalar(out, o, acc)?;
        }
    }
    Ok(outs)
}

/// The typed fold for a native reducer.
fn fold_native<T: Element>(
    f: ScalarFn,
    x: &[T],
    init: T,
    out_count: usize,
    group: &mut dyn FnMut(usize, &mut Vec<usize>),
    f64_add: bool,
) -> ArrayData {
    let mut out = Vec::with_capacity(out_count);
    let mut positions = Vec::new();
    for o in 0..out_count {
        group(o, &mut positions);
        let value = if f64_add && T::IS_FLOAT {
            T::from_f64(
                positions
                    .iter()
                    .fold(init.to_f64(), |acc, &i| acc + x[i].to_f64()),
            )
        } else {
            positions.iter().fold(init, |acc, &i| f.apply(acc, x[i]))
        };
        out.push(value);
    }
    T::wrap(out)
}

/// The input positions each output position of a window op covers.
///
/// Per dimension, output coordinate `o` and window coordinate `w` address the padded,
/// base-dilated input at `o * stride + w * window_dilation - padding_low`; that is a real
/// element only if it is a multiple of `base_dilation` and the quotient is in bounds.
struct WindowGroups {
    /// `[dim][output coordinate]` → linear contributions of the valid window positions.
    per_dim: Vec<Vec<Vec<usize>>>,
    /// Output dimensions.
    out_dims: Vec<usize>,
}

impl WindowGroups {
    fn new(in_dims: &[usize], out_dims: &[usize], window: &Window) -> EvalResult<WindowGroups> {
        let rank = in_dims.len();
        if window.dimensions.len() != rank || out_dims.len() != rank {
            return Err(EvalError::new(format!(
                "window has {} dimensions, input rank {rank}, output rank {}",
                window.dimensions.len(),
                out_dims.len()
            )));
        }
        let strides = row_major_strides(in_dims);
        let mut per_dim = Vec::with_capacity(rank);
        for (d, wd) in window.dimensions.iter().enumerate() {
            if wd.stride < 1 || wd.window_dilation < 1 || wd.base_dilation < 1 || wd.size < 0 {
                return Err(EvalError::new(format!(
                    "invalid window dimension {d}: {wd:?}"
                )));
            }
            let lists = (0..out_dims[d] as i64)
                .map(|o| {
                    (0..wd.size)
                        .filter_map(|w| {
                            let b = o * wd.stride + w * wd.window_dilation - wd.padding_low;
                            if b % wd.base_dilation != 0 {
                                return None;
                            }
                            let i = b / wd.base_dilation;
                            (0..in_dims[d] as i64)
                                .contains(&i)
                                .then(|| i as usize * strides[d])
                        })
                        .collect()
                })
                .collect();
            per_dim.push(lists);
        }
        Ok(WindowGroups {
            per_dim,
            out_dims: out_dims.to_vec(),
        })
    }

    fn out_count(&self) -> usize {
        self.out_dims.iter().product()
    }

    /// The linear input positions of output position `o`, window positions in row-major order.
    fn fill(&self, o: usize, buf: &mut Vec<usize>) {
        buf.clear();
        buf.push(0);
        let mut rest = o;
        let mut coords = vec![0usize; self.out_dims.len()];
        for d in (0..self.out_dims.len()).rev() {
            coords[d] = rest % self.out_dims[d];
            rest /= self.out_dims[d];
        }
        for (d, &c) in coords.iter().enumerate() {
            let list = &self.per_dim[d][c];
            let prefixes = std::mem::take(buf);
            for p in prefixes {
                buf.extend(list.iter().map(|&x| p + x));
            }
        }
    }
}
