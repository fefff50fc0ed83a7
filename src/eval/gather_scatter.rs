//! `gather` and `scatter` with full dimension numbers, including batching dimensions and
//! `index_vector_dim == rank(indices)` (an implicit trailing index-vector dimension of 1).
//!
//! Gather: each output index splits into batch dims (those not in `offset_dims`) and
//! offset dims. The batch part picks an index vector from `indices`; its components,
//! placed at `start_index_map`, give the slice start, **clamped** into
//! `[0, operand_dim - slice_size]`. Operand batching dims take the batch coordinate of
//! the paired indices dim; the remaining (non-collapsed, non-batching) operand dims take
//! the offset coordinates in order.
//!
//! Scatter: the mirror image on `updates`, but start indices are not clamped: an update
//! window that would reach outside the operand in any dimension is **skipped entirely**
//! (HloEvaluator checks `0 <= start <= operand_dim - window_size` per dimension). Updates
//! are applied in row-major order of the scatter dims, then of the window dims, as
//! `operand = f(operand..., update...)`.
//! XLA: `xla/hlo/evaluator/hlo_evaluator.cc` (`HandleGather`, `HandleScatter`), and the
//! StableHLO spec for the batching dims.

use super::reduce::index::{check_dims, dims_usize, next_index, row_major_strides};
use super::reduce::scalar_fn::{
    Element, ScalarFn, array, index_values, scalar_at, store_scalar, with_same_element_data,
};
use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, ComputationId, GatherDimensionNumbers, Literal,
    ScatterDimensionNumbers, Shape,
};

/// `gather(operand, indices)`: start indices are clamped so each slice stays in bounds.
pub fn gather(
    shape: &Shape,
    operand: &Literal,
    indices: &Literal,
    dnums: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> EvalResult {
    let operand = array(operand, "gather operand")?;
    let indices = array(indices, "gather indices")?;
    let out = shape
        .as_array()
        .ok_or_else(|| EvalError::new("gather result must be an array"))?;
    let op_dims = dims_usize(&operand.shape.dims);
    let out_dims = dims_usize(&out.dims);
    let rank = op_dims.len();
    check_dims(
        &dnums.offset_dims,
        out_dims.len(),
        "gather offset_dims entry",
    )?;
    check_dims(
        &dnums.collapsed_slice_dims,
        rank,
        "gather collapsed_slice_dims entry",
    )?;
    check_dims(&dnums.start_index_map, rank, "gather start_index_map entry")?;
    check_dims(
        &dnums.operand_batching_dims,
        rank,
        "gather operand_batching_dims entry",
    )?;
    if slice_sizes.len() != rank
        || slice_sizes
            .iter()
            .zip(&op_dims)
            .any(|(&s, &d)| s < 0 || s as usize > d)
    {
        return Err(EvalError::new("gather slice_sizes do not fit the operand"));
    }
    let batch_out = dims_except(out_dims.len(), &[dnums.offset_dims.as_slice()]);
    let removed: [&[usize]; 2] = [&dnums.collapsed_slice_dims, &dnums.operand_batching_dims];
    let offset_operand = dims_except(rank, &removed);
    if offset_operand.len() != dnums.offset_dims.len() {
        return Err(EvalError::new(
            "gather offset_dims do not match the uncollapsed slice dims",
        ));
    }
    let (iv, batching) = IndexVectors::new(
        indices,
        dnums.index_vector_dim,
        &batch_out,
        dnums.start_index_map.len(),
        (
            &dnums.start_indices_batching_dims,
            dnums.operand_batching_dims.len(),
        ),
    )?;

    let op_strides = row_major_strides(&op_dims);
    let count: usize = out_dims.iter().product();
    let mut positions = Vec::with_capacity(count);
    let mut idx = vec![0usize; out_dims.len()];
    let mut start = vec![0usize; rank];
    for _ in 0..count {
        start.iter_mut().for_each(|s| *s = 0);
        let base = iv.base(&idx);
        for (k, &d) in dnums.start_index_map.iter().enumerate() {
            let max = op_dims[d] as i64 - slice_sizes[d];
            start[d] = iv.value(base, k).clamp(0, max.max(0)) as usize;
        }
        for (&d, &b) in dnums.operand_batching_dims.iter().zip(&batching) {
            start[d] += idx[batch_out[b]];
        }
        for (&d, &o) in offset_operand.iter().zip(&dnums.offset_dims) {
            start[d] += idx[o];
        }
        positions.push(start.iter().zip(&op_strides).map(|(&i, &s)| i * s).sum());
        next_index(&mut idx, &out_dims);
    }
    let data = operand.data.gather(&positions);
    Ok(Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(operand.element_type(), &out.dims),
        data,
    }))
}

/// `scatter(operands..., indices, updates...)`: out-of-bounds update windows are skipped.
pub fn scatter(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    dnums: &ScatterDimensionNumbers,
    to_apply: ComputationId,
) -> EvalResult {
    if operands.len() < 3 || operands.len().is_multiple_of(2) {
        return Err(EvalError::new(
            "scatter takes N operands, the indices and N updates",
        ));
    }
    let n = operands.len() / 2;
    let inputs: Vec<&ArrayLiteral> = operands[..n]
        .iter()
        .map(|l| array(l, "scatter operand"))
        .collect::<EvalResult<_>>()?;
    let indices = array(operands[n], "scatter indices")?;
    let updates: Vec<&ArrayLiteral> = operands[n + 1..]
        .iter()
        .map(|l| array(l, "scatter update"))
        .collect::<EvalResult<_>>()?;
    let op_dims = dims_usize(&inputs[0].shape.dims);
    let up_dims = dims_usize(&updates[0].shape.dims);
    let rank = op_dims.len();
    if inputs.iter().any(|a| a.shape.dims != inputs[0].shape.dims)
        || updates
            .iter()
            .any(|a| a.shape.dims != updates[0].shape.dims)
        || inputs
            .iter()
            .zip(&updates)
            .any(|(a, u)| a.element_type() != u.element_type())
    {
        return Err(EvalError::new(
            "scatter operands (and updates) must agree in shape and type",
        ));
    }
    if shape.leaves().len() != n {
        return Err(EvalError::new(
            "scatter result shape does not match its operands",
        ));
    }
    check_dims(
        &dnums.update_window_dims,
        up_dims.len(),
        "scatter update_window_dims entry",
    )?;
    check_dims(
        &dnums.inserted_window_dims,
        rank,
        "scatter inserted_window_dims entry",
    )?;
    check_dims(
        &dnums.scatter_dims_to_operand_dims,
        rank,
        "scatter scatter_dims_to_operand_dims entry",
    )?;
    check_dims(
        &dnums.input_batching_dims,
        rank,
        "scatter input_batching_dims entry",
    )?;

    let scatter_up = dims_except(up_dims.len(), &[dnums.update_window_dims.as_slice()]);
    let removed: [&[usize]; 2] = [&dnums.inserted_window_dims, &dnums.input_batching_dims];
    let window_operand = dims_except(rank, &removed);
    if window_operand.len() != dnums.update_window_dims.len() {
        return Err(EvalError::new(
            "scatter update_window_dims do not match the operand's window dims",
        ));
    }
    // How far each operand dimension's window reaches (1 for inserted and batching dims).
    let mut window_size = vec![1usize; rank];
    for (&d, &u) in window_operand.iter().zip(&dnums.update_window_dims) {
        window_size[d] = up_dims[u];
    }
    let (iv, batching) = IndexVectors::new(
        indices,
        dnums.index_vector_dim,
        &scatter_up,
        dnums.scatter_dims_to_operand_dims.len(),
        (
            &dnums.scatter_indices_batching_dims,
            dnums.input_batching_dims.len(),
        ),
    )?;

    // Collect (operand position, update position) pairs in application order.
    let op_strides = row_major_strides(&op_dims);
    let up_strides = row_major_strides(&up_dims);
    let scatter_sizes: Vec<usize> = scatter_up.iter().map(|&d| up_dims[d]).collect();
    let window_sizes: Vec<usize> = dnums
        .update_window_dims
        .iter()
        .map(|&d| up_dims[d])
        .collect();
    let mut pairs = Vec::new();
    let mut s_idx = vec![0usize; scatter_up.len()];
    let mut up_idx = vec![0usize; up_dims.len()];
    let mut w_idx = vec![0usize; window_sizes.len()];
    let scatter_count: usize = scatter_sizes.iter().product();
    let window_count: usize = window_sizes.iter().product();
    'scatter: for _ in 0..scatter_count {
        up_idx.iter_mut().for_each(|i| *i = 0);
        for (&d, &i) in scatter_up.iter().zip(&s_idx) {
            up_idx[d] = i;
        }
        let base = iv.base(&up_idx);
        let mut start = vec![0i64; rank];
        for (k, &d) in dnums.scatter_dims_to_operand_dims.iter().enumerate() {
            start[d] = iv.value(base, k);
        }
        for (&d, &b) in dnums.input_batching_dims.iter().zip(&batching) {
            start[d] += s_idx[b] as i64;
        }
        let in_bounds = (0..rank)
            .all(|d| start[d] >= 0 && start[d] <= op_dims[d] as i64 - window_size[d] as i64);
        next_index(&mut s_idx, &scatter_sizes);
        if !in_bounds {
            continue 'scatter;
        }
        let start_pos: usize = start
            .iter()
            .zip(&op_strides)
            .map(|(&i, &s)| i as usize * s)
            .sum();
        let up_base: usize = up_idx.iter().zip(&up_strides).map(|(&i, &s)| i * s).sum();
        for _ in 0..window_count {
            let mut op_pos = start_pos;
            let mut up_pos = up_base;
            for (k, &w) in w_idx.iter().enumerate() {
                op_pos += w * op_strides[window_operand[k]];
                up_pos += w * up_strides[dnums.update_window_dims[k]];
            }
            pairs.push((op_pos, up_pos));
            next_index(&mut w_idx, &window_sizes);
        }
    }

    let mut results: Vec<ArrayData> = inputs.iter().map(|a| a.data.clone()).collect();
    let ty = inputs[0].element_type();
    let f = ScalarFn::recognize(ev.module, to_apply, ty);
    let done = n == 1
        && f.is_native()
        && with_same_element_data!(
            &mut results[0],
            &updates[0].data,
            |out, up| {
                apply_native(f, out, up, &pairs);
                true
            },
            false
        );
    if !done {
        for &(o, u) in &pairs {
            let args: Vec<Literal> = inputs
                .iter()
                .zip(&results)
                .map(|(a, r)| scalar_at(r, a.element_type(), o))
                .chain(
                    updates
                        .iter()
                        .map(|a| scalar_at(&a.data, a.element_type(), u)),
                )
                .collect();
            let refs: Vec<&Literal> = args.iter().collect();
            let value = ev.call(to_apply, &refs)?;
            if n == 1 {
                store_scalar(&mut results[0], o, &value)?;
            } else {
                let Literal::Tuple(t) = value else {
                    return Err(EvalError::new(format!(
                        "scatter combiner must return a tuple of {n}"
                    )));
                };
                for (r, v) in results.iter_mut().zip(&t) {
                    store_scalar(r, o, v)?;
                }
            }
        }
    }
    let mut arrays: Vec<Literal> = inputs
        .iter()
        .zip(results)
        .map(|(a, data)| {
            Literal::Array(ArrayLiteral {
                shape: ArrayShape::new(a.element_type(), &a.shape.dims),
                data,
            })
        })
        .collect();
    Ok(if n == 1 {
        arrays.remove(0)
    } else {
        Literal::Tuple(arrays)
    })
}

/// `out[o] = f(out[o], update[u])` for each pair, in order.
fn apply_native<T: Element>(f: ScalarFn, out: &mut [T], updates: &[T], pairs: &[(usize, usize)]) {
    for &(o, u) in pairs {
        out[o] = f.apply(out[o], updates[u]);
    }
}

/// `0..n` without the dims that any of `excluded` lists, in order.
fn dims_except(n: usize, excluded: &[&[usize]]) -> Vec<usize> {
    (0..n)
        .filter(|d| excluded.iter().all(|e| !e.contains(d)))
        .collect()
}

/// Reads index vectors out of the `indices` array of a gather or scatter.
///
/// The dims of `indices` other than `index_vector_dim` pair up, in order, with the
/// "batch" dims of the other side (gather output dims not in `offset_dims`, scatter update
/// dims not in `update_window_dims`).
struct IndexVectors {
    values: Vec<i64>,
    /// For each paired dim of the other side: its stride in `indices`.
    batch_strides: Vec<(usize, usize)>,
    /// Stride between index-vector components (0 when the vector dim is implicit).
    component_stride: usize,
    /// `indices` dims without the index vector dim, in order.
    batch_dims: Vec<usize>,
}

impl IndexVectors {
    /// The index vectors of `indices`, and for each of its batching dims (`batching.0`,
    /// paired with `batching.1` operand batching dims) which entry of the batch dims it is.
    fn new(
        indices: &ArrayLiteral,
        index_vector_dim: usize,
        other_batch: &[usize],
        components: usize,
        batching: (&[usize], usize),
    ) -> EvalResult<(IndexVectors, Vec<usize>)> {
        let dims = dims_usize(&indices.shape.dims);
        if index_vector_dim > dims.len() {
            return Err(EvalError::new("index_vector_dim is out of range"));
        }
        let vector_size = dims.get(index_vector_dim).copied().unwrap_or(1);
        if vector_size != components {
            return Err(EvalError::new(format!(
                "index vectors have {vector_size} components, {components} expected"
            )));
        }
        let strides = row_major_strides(&dims);
        let batch_dims: Vec<usize> = (0..dims.len()).filter(|&d| d != index_vector_dim).collect();
        if batch_dims.len() != other_batch.len() {
            return Err(EvalError::new(
                "indices batch dims do not match the result's batch dims",
            ));
        }
        let iv = IndexVectors {
            values: index_values(indices)?,
            batch_strides: other_batch
                .iter()
                .zip(&batch_dims)
                .map(|(&o, &d)| (o, strides[d]))
                .collect(),
            component_stride: strides.get(index_vector_dim).copied().unwrap_or(0),
            batch_dims,
        };
        let positions = iv.batching_positions(batching.0, batching.1)?;
        Ok((iv, positions))
    }

    /// Position in `indices` of the index vector for a gather-output / update index.
    fn base(&self, other_index: &[usize]) -> usize {
        self.batch_strides
            .iter()
            .map(|&(o, s)| other_index[o] * s)
            .sum()
    }

    /// Component `k` of the index vector at `base`.
    fn value(&self, base: usize, k: usize) -> i64 {
        self.values[base + k * self.component_stride]
    }

    /// For each indices batching dim, which entry of the paired batch dims list it is.
    fn batching_positions(
        &self,
        indices_batching_dims: &[usize],
        expected: usize,
    ) -> EvalResult<Vec<usize>> {
        if indices_batching_dims.len() != expected {
            return Err(EvalError::new(
                "operand and indices batching dims differ in number",
            ));
        }
        indices_batching_dims
            .iter()
            .map(|d| {
                self.batch_dims.iter().position(|b| b == d).ok_or_else(|| {
                    EvalError::new(format!("indices batching dim {d} is not a batch dim"))
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
