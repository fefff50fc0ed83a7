//! Data movement: iota, broadcast, reshape, bitcast, transpose, reverse, concatenate, slices,
//! pad, tuples, gather and scatter. These ops move elements without arithmetic, so their
//! rules are all about dimensions.
//! XLA: `InferBroadcastShape`, `InferReshapeShape`, `InferTransposeShape`, `InferSliceShape`,
//! `InferDynamicSliceShape`, `InferDynamicUpdateSliceShape`, `InferPadShape`,
//! `InferConcatOpShape`, `InferGatherShape`, `InferScatterShape` in
//! `xla/service/shape_inference.cc`; `ShapeVerifier::HandleBroadcast`, `HandleReshape`,
//! `HandleIota`, `HandleBitcast` in `xla/service/hlo_verifier.cc`.

use super::reduction::verify_reducer;
use super::{
    array_with_dynamic, check_dims_in_range_and_unique, expect_array, human_string, is_dynamic,
    is_permutation, list,
};
use crate::ir::{
    GatherDimensionNumbers, PaddingDimension, ProgramShape, ScatterDimensionNumbers, Shape,
    SliceDimension,
};

/// `iota()`: the declared shape, which must be an array of rank >= 1 containing
/// `iota_dimension`.
pub(super) fn infer_iota(declared: &Shape, dimension: usize) -> Result<Shape, String> {
    let a = expect_array(declared, "the result of iota")?;
    if a.rank() == 0 {
        return Err("iota needs a result of rank >= 1, not a scalar".to_string());
    }
    if dimension >= a.rank() {
        return Err(format!(
            "iota_dimension={dimension} is out of range for {}",
            human_string(declared)
        ));
    }
    Ok(declared.clone())
}

/// `broadcast(x), dimensions={...}`: operand dim `i` becomes result dim `dimensions[i]`, with
/// the same size; the other result dims come from the declared shape.
pub(super) fn infer_broadcast(
    operand: &Shape,
    declared: &Shape,
    dimensions: &[usize],
) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of broadcast")?;
    let out = expect_array(declared, "the result of broadcast")?;
    if dimensions.len() != a.rank() {
        return Err(format!(
            "dimensions={} has {} entries but the operand {} has rank {}",
            list(dimensions),
            dimensions.len(),
            human_string(operand),
            a.rank()
        ));
    }
    check_dims_in_range_and_unique(dimensions, out.rank(), "dimensions=")?;
    for (i, &d) in dimensions.iter().enumerate() {
        if a.dims[i] != out.dims[d] {
            return Err(format!(
                "operand dimension {i} (size {}) goes to result dimension {d} (size {}); broadcast needs equal sizes",
                a.dims[i], out.dims[d]
            ));
        }
    }
    Ok(super::with_element_type(out, a.element_type))
}

/// `reshape(x)`: the declared dims with the operand's element type; element counts equal.
pub(super) fn infer_reshape(operand: &Shape, declared: &Shape) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of reshape")?;
    let out = expect_array(declared, "the result of reshape")?;
    if a.element_count() != out.element_count() {
        return Err(format!(
            "reshape from {} ({} elements) to {} ({} elements) changes the element count",
            human_string(operand),
            a.element_count(),
            human_string(declared),
            out.element_count()
        ));
    }
    Ok(super::with_element_type(out, a.element_type))
}

/// `bitcast(x)`: reinterprets the operand's buffer, so only the byte size must agree; the
/// declared shape is the result (XLA's `ShapeVerifier::HandleBitcast`).
pub(super) fn infer_bitcast(operand: &Shape, declared: &Shape) -> Result<Shape, String> {
    if let (Some(a), Some(out)) = (operand.as_array(), declared.as_array())
        && a.byte_size() != out.byte_size()
    {
        return Err(format!(
            "bitcast from {} ({} bytes) to {} ({} bytes) changes the size; a bitcast only reinterprets memory",
            human_string(operand),
            a.byte_size(),
            human_string(declared),
            out.byte_size()
        ));
    }
    Ok(declared.clone())
}

/// `transpose(x), dimensions={...}`: result dim `i` is operand dim `dimensions[i]`.
pub(super) fn infer_transpose(operand: &Shape, dimensions: &[usize]) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of transpose")?;
    if dimensions.len() != a.rank() || !is_permutation(dimensions) {
        return Err(format!(
            "dimensions={} is not a permutation of the dimensions of {}",
            list(dimensions),
            human_string(operand)
        ));
    }
    let dims = dimensions.iter().map(|&d| a.dims[d]).collect();
    let dynamic = dimensions.iter().map(|&d| is_dynamic(a, d)).collect();
    Ok(array_with_dynamic(a.element_type, dims, dynamic))
}

/// `reverse(x), dimensions={...}`: the operand's shape.
pub(super) fn infer_reverse(operand: &Shape, dimensions: &[usize]) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of reverse")?;
    check_dims_in_range_and_unique(dimensions, a.rank(), "dimensions=")?;
    Ok(operand.clone())
}

/// `concatenate(a, b, ...), dimensions={d}`: equal ranks, types and dims except `d`,
/// whose sizes add up.
pub(super) fn infer_concatenate(operands: &[&Shape], dimension: usize) -> Result<Shape, String> {
    let Some(first) = operands.first() else {
        return Err("concatenate needs at least one operand".to_string());
    };
    let a = expect_array(first, "the operands of concatenate")?;
    if dimension >= a.rank() {
        return Err(format!(
            "dimensions={{{dimension}}} is out of range for {}",
            human_string(first)
        ));
    }
    let mut result = a.clone();
    for (i, s) in operands.iter().enumerate().skip(1) {
        let b = expect_array(s, "the operands of concatenate")?;
        let same_other_dims =
            b.rank() == a.rank() && (0..a.rank()).all(|d| d == dimension || a.dims[d] == b.dims[d]);
        if b.element_type != a.element_type || !same_other_dims {
            return Err(format!(
                "operand 0 is {} and operand {i} is {}; concatenate along dimension {dimension} needs the same element type and all other dimensions equal",
                human_string(first),
                human_string(s)
            ));
        }
        result.dims[dimension] += b.dims[dimension];
    }
    Ok(Shape::Array(result))
}

/// `slice(x), slice={[start:limit:stride], ...}`: `ceil((limit - start) / stride)` per dim.
pub(super) fn infer_slice(operand: &Shape, slice: &[SliceDimension]) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of slice")?;
    if slice.len() != a.rank() {
        return Err(format!(
            "slice has {} ranges but the operand {} has rank {}",
            slice.len(),
            human_string(operand),
            a.rank()
        ));
    }
    let mut dims = Vec::with_capacity(slice.len());
    for (d, s) in slice.iter().enumerate() {
        if s.stride <= 0 {
            return Err(format!(
                "slice dimension {d} has stride {}; strides must be positive",
                s.stride
            ));
        }
        if s.start < 0 || s.start > s.limit || s.limit > a.dims[d] {
            return Err(format!(
                "slice dimension {d} is [{}:{}] but the operand dimension has size {}; need 0 <= start <= limit <= size",
                s.start, s.limit, a.dims[d]
            ));
        }
        dims.push((s.limit - s.start + s.stride - 1) / s.stride);
    }
    // Slicing out one element of a dynamic dimension makes it static.
    let dynamic = (0..a.rank())
        .map(|d| dims[d] != 1 && is_dynamic(a, d))
        .collect();
    Ok(array_with_dynamic(a.element_type, dims, dynamic))
}

/// Checks the start indices of dynamic-slice and dynamic-update-slice: one integer scalar
/// per operand dimension, all of one type (or XLA's old form, one index vector).
fn check_start_indices(op: &str, operand_rank: usize, indices: &[&Shape]) -> Result<(), String> {
    if let [vector] = indices
        && let Some(v) = vector.as_array()
        && v.rank() == 1
    {
        if !v.element_type.is_integral() || v.dims[0] != operand_rank as i64 {
            return Err(format!(
                "{op} start indices {} must be {operand_rank} integers",
                human_string(vector)
            ));
        }
        return Ok(());
    }
    if indices.len() != operand_rank {
        return Err(format!(
            "{op} has {} start indices but the operand has rank {operand_rank}; it needs one per dimension",
            indices.len()
        ));
    }
    for (i, s) in indices.iter().enumerate() {
        let ok = matches!(s.as_array(), Some(x) if x.rank() == 0 && x.element_type.is_integral());
        if !ok || !s.compatible(indices[0]) {
            return Err(format!(
                "{op} start index {i} is {}; indices must be integer scalars of one type",
                human_string(s)
            ));
        }
    }
    Ok(())
}

/// `dynamic-slice(x, i0, i1, ...), dynamic_slice_sizes={...}`: the sizes, each at most the
/// operand dimension.
pub(super) fn infer_dynamic_slice(operands: &[&Shape], sizes: &[i64]) -> Result<Shape, String> {
    let Some((operand, indices)) = operands.split_first() else {
        return Err("dynamic-slice needs an operand".to_string());
    };
    let a = expect_array(operand, "the operand of dynamic-slice")?;
    check_start_indices("dynamic-slice", a.rank(), indices)?;
    if sizes.len() != a.rank() {
        return Err(format!(
            "dynamic_slice_sizes={} has {} entries but the operand {} has rank {}",
            list(sizes),
            sizes.len(),
            human_string(operand),
            a.rank()
        ));
    }
    for (d, (&size, &bound)) in sizes.iter().zip(&a.dims).enumerate() {
        if size < 0 || size > bound {
            return Err(format!(
                "dynamic_slice_sizes[{d}] = {size} does not fit in operand dimension {d} of size {bound}"
            ));
        }
    }
    Ok(array_with_dynamic(
        a.element_type,
        sizes.to_vec(),
        Vec::new(),
    ))
}

/// `dynamic-update-slice(x, update, i0, i1, ...)`: the operand's shape; the update has the
/// same rank and element type and fits inside.
pub(super) fn infer_dynamic_update_slice(operands: &[&Shape]) -> Result<Shape, String> {
    let [operand, update, indices @ ..] = operands else {
        return Err("dynamic-update-slice needs an operand and an update".to_string());
    };
    let a = expect_array(operand, "the operand of dynamic-update-slice")?;
    let u = expect_array(update, "the update of dynamic-update-slice")?;
    check_start_indices("dynamic-update-slice", a.rank(), indices)?;
    let fits = u.rank() == a.rank() && u.dims.iter().zip(&a.dims).all(|(x, y)| x <= y);
    if u.element_type != a.element_type || !fits {
        return Err(format!(
            "the update {} does not fit in the operand {}; dynamic-update-slice needs the same rank and element type, and no larger dimensions",
            human_string(update),
            human_string(operand)
        ));
    }
    Ok((*operand).clone())
}

/// `pad(x, value), padding=lo_hi_interior x ...`: `lo + hi + n + (n-1)*interior` per dim.
pub(super) fn infer_pad(
    operand: &Shape,
    value: &Shape,
    padding: &[PaddingDimension],
) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of pad")?;
    let v = expect_array(value, "the padding value of pad")?;
    if v.rank() != 0 || v.element_type != a.element_type {
        return Err(format!(
            "the padding value is {} but the operand is {}; pad needs a scalar of the operand's element type",
            human_string(value),
            human_string(operand)
        ));
    }
    if padding.len() != a.rank() {
        return Err(format!(
            "padding has {} dimensions but the operand {} has rank {}",
            padding.len(),
            human_string(operand),
            a.rank()
        ));
    }
    let mut dims = Vec::with_capacity(a.rank());
    for (d, p) in padding.iter().enumerate() {
        if p.interior < 0 {
            return Err(format!(
                "padding dimension {d} has negative interior padding {}",
                p.interior
            ));
        }
        let n = a.dims[d];
        let size = n + p.low + p.high + (n - 1).max(0) * p.interior;
        if size < 0 {
            return Err(format!(
                "padding dimension {d} gives a negative size {size}"
            ));
        }
        dims.push(size);
    }
    let dynamic = (0..a.rank()).map(|d| is_dynamic(a, d)).collect();
    Ok(array_with_dynamic(a.element_type, dims, dynamic))
}

/// `get-tuple-element(t), index=i`: element `i` of the tuple.
pub(super) fn infer_get_tuple_element(operand: &Shape, index: usize) -> Result<Shape, String> {
    let elements = operand.tuple_elements().ok_or_else(|| {
        format!(
            "get-tuple-element needs a tuple operand, but it is {}",
            human_string(operand)
        )
    })?;
    elements.get(index).cloned().ok_or_else(|| {
        format!(
            "index={index} is out of range for the tuple {} of {} elements",
            human_string(operand),
            elements.len()
        )
    })
}

/// The index dims with `index_vector_dim` made explicit: indices `s32[5]` with
/// `index_vector_dim=1` are read as `s32[5,1]`.
fn expanded_indices(
    indices: &Shape,
    index_vector_dim: usize,
    op: &str,
) -> Result<Vec<i64>, String> {
    let ix = expect_array(indices, &format!("the indices of {op}"))?;
    if !ix.element_type.is_integral() {
        return Err(format!(
            "the indices of {op} must be integers, but are {}",
            human_string(indices)
        ));
    }
    if index_vector_dim > ix.rank() {
        return Err(format!(
            "index_vector_dim={index_vector_dim} is out of range for indices {}",
            human_string(indices)
        ));
    }
    let mut dims = ix.dims.clone();
    if index_vector_dim == dims.len() {
        dims.push(1);
    }
    Ok(dims)
}

/// Checks that `dims` is sorted, without repeats, and below `bound`.
fn check_sorted_unique(dims: &[usize], bound: usize, what: &str) -> Result<(), String> {
    if dims.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!(
            "{what}={} must be sorted without repeats",
            list(dims)
        ));
    }
    if let Some(&d) = dims.iter().find(|&&d| d >= bound) {
        return Err(format!(
            "{what}={} names dimension {d}, but the bound is {bound}",
            list(dims)
        ));
    }
    Ok(())
}

/// `gather(operand, indices)`: the batch dims of the indices (all but `index_vector_dim`)
/// interleaved with the slice dims that are not collapsed, at the positions `offset_dims`.
pub(super) fn infer_gather(
    operand: &Shape,
    indices: &Shape,
    dnums: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of gather")?;
    let batch = expanded_indices(indices, dnums.index_vector_dim, "gather")?;
    let result_rank = dnums.offset_dims.len() + batch.len() - 1;
    check_sorted_unique(&dnums.offset_dims, result_rank, "offset_dims")?;
    check_sorted_unique(
        &dnums.collapsed_slice_dims,
        a.rank(),
        "collapsed_slice_dims",
    )?;
    check_sorted_unique(
        &dnums.operand_batching_dims,
        a.rank(),
        "operand_batching_dims",
    )?;
    if dnums.start_index_map.len() as i64 != batch[dnums.index_vector_dim] {
        return Err(format!(
            "start_index_map={} has {} entries but the index vectors have {}",
            list(&dnums.start_index_map),
            dnums.start_index_map.len(),
            batch[dnums.index_vector_dim]
        ));
    }
    check_dims_in_range_and_unique(&dnums.start_index_map, a.rank(), "start_index_map=")?;
    if slice_sizes.len() != a.rank() {
        return Err(format!(
            "slice_sizes={} has {} entries but the operand {} has rank {}",
            list(slice_sizes),
            slice_sizes.len(),
            human_string(operand),
            a.rank()
        ));
    }
    let dropped = dnums.collapsed_slice_dims.len() + dnums.operand_batching_dims.len();
    if dnums.offset_dims.len() + dropped != a.rank() {
        return Err(format!(
            "offset_dims={} plus collapsed_slice_dims={} and operand_batching_dims={} must cover the operand's {} dimensions",
            list(&dnums.offset_dims),
            list(&dnums.collapsed_slice_dims),
            list(&dnums.operand_batching_dims),
            a.rank()
        ));
    }
    for (d, (&size, &bound)) in slice_sizes.iter().zip(&a.dims).enumerate() {
        if size < 0 || size > bound {
            return Err(format!(
                "slice_sizes[{d}] = {size} does not fit in operand dimension {d} of size {bound}"
            ));
        }
    }
    for &d in dnums
        .collapsed_slice_dims
        .iter()
        .chain(&dnums.operand_batching_dims)
    {
        if slice_sizes[d] > 1 {
            return Err(format!(
                "operand dimension {d} is collapsed or batching, so its slice size must be 0 or 1, not {}",
                slice_sizes[d]
            ));
        }
    }
    // The slice dimensions that stay, in operand order.
    let kept: Vec<i64> = (0..a.rank())
        .filter(|d| {
            !dnums.collapsed_slice_dims.contains(d) && !dnums.operand_batching_dims.contains(d)
        })
        .map(|d| slice_sizes[d])
        .collect();
    let mut batch_dims = batch
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != dnums.index_vector_dim)
        .map(|(_, &d)| d);
    let mut kept = kept.into_iter();
    let mut dims = Vec::with_capacity(result_rank);
    for i in 0..result_rank {
        let next = if dnums.offset_dims.contains(&i) {
            kept.next()
        } else {
            batch_dims.next()
        };
        dims.push(next.ok_or("gather dimension numbers do not add up")?);
    }
    Ok(array_with_dynamic(a.element_type, dims, Vec::new()))
}

/// `scatter(operands..., indices, updates...)`: the operands' shape (a tuple if several).
/// Each update's scatter dims match the index batch dims, and its window dims fit in the
/// operand; `to_apply` combines an old and a new value.
pub(super) fn infer_scatter(
    operands: &[&Shape],
    dnums: &ScatterDimensionNumbers,
    to_apply: &ProgramShape,
) -> Result<Shape, String> {
    if operands.len() < 3 || operands.len().is_multiple_of(2) {
        return Err(format!(
            "scatter takes N operands, the indices and N updates (an odd count >= 3), but has {}",
            operands.len()
        ));
    }
    let n = operands.len() / 2;
    let (inputs, rest) = operands.split_at(n);
    let (indices, updates) = (rest[0], &rest[1..]);
    let batch = expanded_indices(indices, dnums.index_vector_dim, "scatter")?;
    let scatter_dims: Vec<i64> = batch
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != dnums.index_vector_dim)
        .map(|(_, &d)| d)
        .collect();
    for (k, (input, update)) in inputs.iter().zip(updates).enumerate() {
        let a = expect_array(input, "the operands of scatter")?;
        let u = expect_array(update, "the updates of scatter")?;
        if k > 0 && a.dims != expect_array(inputs[0], "the operands of scatter")?.dims {
            return Err(format!(
                "scatter operands {} and {} need the same dimensions",
                human_string(inputs[0]),
                human_string(input)
            ));
        }
        let expected_rank = scatter_dims.len() + dnums.update_window_dims.len();
        if u.rank() != expected_rank {
            return Err(format!(
                "the update {} must have rank {expected_rank} (scatter dims plus update_window_dims)",
                human_string(update)
            ));
        }
        check_sorted_unique(&dnums.update_window_dims, u.rank(), "update_window_dims")?;
        check_sorted_unique(
            &dnums.inserted_window_dims,
            a.rank(),
            "inserted_window_dims",
        )?;
        check_sorted_unique(&dnums.input_batching_dims, a.rank(), "input_batching_dims")?;
        let window = dnums.update_window_dims.len()
            + dnums.inserted_window_dims.len()
            + dnums.input_batching_dims.len();
        if window != a.rank() {
            return Err(format!(
                "update_window_dims={}, inserted_window_dims={} and input_batching_dims={} must cover the operand's {} dimensions",
                list(&dnums.update_window_dims),
                list(&dnums.inserted_window_dims),
                list(&dnums.input_batching_dims),
                a.rank()
            ));
        }
        if dnums.scatter_dims_to_operand_dims.len() as i64 != batch[dnums.index_vector_dim] {
            return Err(format!(
                "scatter_dims_to_operand_dims={} has {} entries but the index vectors have {}",
                list(&dnums.scatter_dims_to_operand_dims),
                dnums.scatter_dims_to_operand_dims.len(),
                batch[dnums.index_vector_dim]
            ));
        }
        check_dims_in_range_and_unique(
            &dnums.scatter_dims_to_operand_dims,
            a.rank(),
            "scatter_dims_to_operand_dims=",
        )?;
        // Window dims of the update map, in order, to the operand dims that are neither
        // inserted nor batching; each must fit.
        let window_bounds: Vec<i64> = (0..a.rank())
            .filter(|d| {
                !dnums.inserted_window_dims.contains(d) && !dnums.input_batching_dims.contains(d)
            })
            .map(|d| a.dims[d])
            .collect();
        for (&ud, &bound) in dnums.update_window_dims.iter().zip(&window_bounds) {
            if u.dims[ud] > bound {
                return Err(format!(
                    "update window dimension {ud} has size {} but the operand allows {bound}",
                    u.dims[ud]
                ));
            }
        }
        let update_scatter_dims: Vec<i64> = (0..u.rank())
            .filter(|d| !dnums.update_window_dims.contains(d))
            .map(|d| u.dims[d])
            .collect();
        if update_scatter_dims != scatter_dims {
            return Err(format!(
                "the update {} has scatter dimensions {} but the indices {} give {}",
                human_string(update),
                list(&update_scatter_dims),
                human_string(indices),
                list(&scatter_dims)
            ));
        }
    }
    let init_types: Vec<Shape> = inputs
        .iter()
        .map(|s| Shape::scalar(s.element_type().unwrap_or(crate::ir::PrimitiveType::F32)))
        .collect();
    let init_refs: Vec<&Shape> = init_types.iter().collect();
    let update_types: Vec<_> = updates.iter().filter_map(|s| s.element_type()).collect();
    verify_reducer("scatter", to_apply, &init_refs, &update_types)?;
    Ok(if n == 1 {
        inputs[0].clone()
    } else {
        Shape::Tuple(inputs.iter().map(|s| (*s).clone()).collect())
    })
}
