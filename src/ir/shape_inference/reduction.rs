//! Ops that call a computation on elements: reduce, reduce-window, select-and-scatter, map,
//! sort, and topk (which XLA groups with sort).
//! XLA: `VerifyReducerShape`, `InferWindowOutputShape`, `InferReduceShape`,
//! `InferReduceWindowShape`, `InferSelectAndScatterShape`, `InferMapShape`,
//! `InferVariadicOpShape` (sort), `InferTopKShape` in `xla/service/shape_inference.cc`.

use super::{
    array_with_dynamic, check_dims_in_range_and_unique, expect_array, human_signature,
    human_string, is_dynamic, is_scalar, list,
};
use crate::ir::{PrimitiveType, ProgramShape, Shape, Window};

/// Checks a reducer `(acc_0..acc_n-1, x_0..x_n-1) -> (acc_0..acc_n-1)` (a plain scalar
/// when n = 1): scalar accumulators of the init values' types, inputs of the reduced
/// element types. XLA's `VerifyReducerShape`.
pub(super) fn verify_reducer(
    op: &str,
    reducer: &ProgramShape,
    inits: &[&Shape],
    input_types: &[PrimitiveType],
) -> Result<(), String> {
    let n = inits.len();
    let sig = || human_signature(reducer);
    if reducer.parameters.len() != 2 * n {
        return Err(format!(
            "the {op} computation must take {} parameters ({n} accumulators, {n} inputs), but is {}",
            2 * n,
            sig()
        ));
    }
    let accumulators: Vec<&Shape> = match &reducer.result {
        Shape::Tuple(elements) if elements.len() == n => elements.iter().collect(),
        Shape::Array(_) if n == 1 => vec![&reducer.result],
        _ => {
            return Err(format!(
                "the {op} computation must return {n} scalar{}, but is {}",
                if n == 1 { "" } else { "s in a tuple" },
                sig()
            ));
        }
    };
    for (i, acc) in accumulators.iter().enumerate() {
        if !is_scalar(acc) {
            return Err(format!(
                "the {op} computation must return scalars, but is {}",
                sig()
            ));
        }
        let input_param = &reducer.parameters[n + i];
        let param_ok = acc.compatible(&reducer.parameters[i])
            && is_scalar(input_param)
            && match (acc.element_type(), input_param.element_type()) {
                (Some(a), Some(b)) => same_element_type(a, b),
                _ => false,
            };
        if !param_ok {
            return Err(format!(
                "the {op} computation {} must take and return the same scalar types",
                sig()
            ));
        }
        // Init values and inputs have the accumulator's type (see `same_element_type`).
        let init_ok = match (acc.element_type(), inits[i].as_array()) {
            (Some(t), Some(init)) => init.rank() == 0 && same_element_type(t, init.element_type),
            _ => false,
        };
        if !init_ok {
            return Err(format!(
                "init value {i} is {} but the {op} computation {} accumulates {}",
                human_string(inits[i]),
                sig(),
                human_string(acc)
            ));
        }
        let input_ok = match (acc.element_type(), input_types.get(i)) {
            (Some(t), Some(&x)) => same_element_type(t, x),
            _ => false,
        };
        if !input_ok {
            return Err(format!(
                "input {i} has element type {} but the {op} computation {} takes {}",
                input_types
                    .get(i)
                    .map_or("?".to_string(), |t| t.to_string()),
                sig(),
                human_string(acc)
            ));
        }
    }
    Ok(())
}

/// Equal types. XLA's verifier compares these "ignoring floating-point precision"
/// (`SameElementTypeIgnoringFpPrecision`: an f64 init value may start an f32 reduction, f64
/// updates may scatter into an f32 operand), and its emitters convert. xlac's do not: the
/// kernel would feed an f64 value to an f32 instruction (a Cranelift verifier error) or
/// store f64 bits into f32 elements (wrong values). So xlac asks for the same type, and a
/// program that mixes them says so here instead.
fn same_element_type(a: PrimitiveType, b: PrimitiveType) -> bool {
    a == b
}

/// The result dims of sliding `window` over `base`: per dimension,
/// `(pad_lo + dilated(base) + pad_hi - dilated(window)) / stride + 1` (0 if negative).
pub(super) fn window_output_dims(base: &[i64], window: &Window) -> Result<Vec<i64>, String> {
    if window.dimensions.len() != base.len() {
        return Err(format!(
            "the window has {} dimensions but the input has rank {}",
            window.dimensions.len(),
            base.len()
        ));
    }
    let dilated = |size: i64, dilation: i64| {
        if size == 0 {
            0
        } else {
            (size - 1) * dilation + 1
        }
    };
    let mut out = Vec::with_capacity(base.len());
    for (i, (w, &b)) in window.dimensions.iter().zip(base).enumerate() {
        if w.size <= 0 || w.stride <= 0 || w.base_dilation < 1 || w.window_dilation < 1 {
            return Err(format!(
                "window dimension {i} needs size, stride and dilations >= 1 (size={} stride={} lhs_dilate={} rhs_dilate={})",
                w.size, w.stride, w.base_dilation, w.window_dilation
            ));
        }
        let padded = w.padding_low + dilated(b, w.base_dilation) + w.padding_high;
        let span = dilated(w.size, w.window_dilation);
        // XLA's window_util::StridedBound.
        out.push(if padded < span {
            0
        } else {
            (padded - span) / w.stride + 1
        });
    }
    Ok(out)
}

/// Splits variadic `op(inputs..., inits...)` operands in two equal halves.
fn split_inputs_and_inits<'a, 'b>(
    op: &str,
    operands: &'a [&'b Shape],
) -> Result<(&'a [&'b Shape], &'a [&'b Shape]), String> {
    if operands.is_empty() || !operands.len().is_multiple_of(2) {
        return Err(format!(
            "{op} takes N inputs then N init values (an even count >= 2), but has {} operands",
            operands.len()
        ));
    }
    Ok(operands.split_at(operands.len() / 2))
}

/// Checks that every input is an array with the dims of the first.
fn check_same_dims(op: &str, inputs: &[&Shape]) -> Result<(), String> {
    let first = expect_array(inputs[0], &format!("the inputs of {op}"))?;
    for (i, s) in inputs.iter().enumerate().skip(1) {
        let a = expect_array(s, &format!("the inputs of {op}"))?;
        if a.dims != first.dims {
            return Err(format!(
                "input 0 is {} and input {i} is {}; {op} needs inputs of the same dimensions",
                human_string(inputs[0]),
                human_string(s)
            ));
        }
    }
    Ok(())
}

/// One result per reducer output, all with `dims`; a tuple when the reducer returns one.
fn per_output(reducer: &ProgramShape, make: impl Fn(usize, PrimitiveType) -> Shape) -> Shape {
    match &reducer.result {
        Shape::Tuple(elements) => Shape::Tuple(
            elements
                .iter()
                .enumerate()
                .map(|(i, e)| make(i, e.element_type().unwrap_or(PrimitiveType::F32)))
                .collect(),
        ),
        result => make(0, result.element_type().unwrap_or(PrimitiveType::F32)),
    }
}

/// `reduce(inputs..., inits...), dimensions={...}`: the input dims without `dimensions`, with
/// the reducer's result types; a tuple for several inputs.
pub(super) fn infer_reduce(
    operands: &[&Shape],
    dimensions: &[usize],
    reducer: &ProgramShape,
) -> Result<Shape, String> {
    let (inputs, inits) = split_inputs_and_inits("reduce", operands)?;
    check_same_dims("reduce", inputs)?;
    let a = expect_array(inputs[0], "the inputs of reduce")?;
    check_dims_in_range_and_unique(dimensions, a.rank(), "dimensions=")?;
    let types: Vec<_> = inputs.iter().filter_map(|s| s.element_type()).collect();
    verify_reducer("reduce", reducer, inits, &types)?;
    let kept: Vec<usize> = (0..a.rank()).filter(|d| !dimensions.contains(d)).collect();
    let dims: Vec<i64> = kept.iter().map(|&d| a.dims[d]).collect();
    let dynamic: Vec<bool> = kept.iter().map(|&d| is_dynamic(a, d)).collect();
    Ok(per_output(reducer, |_, t| {
        array_with_dynamic(t, dims.clone(), dynamic.clone())
    }))
}

/// `reduce-window(inputs..., inits...), window={...}`: one element per window position,
/// typed like the init values; a tuple for several inputs.
pub(super) fn infer_reduce_window(
    operands: &[&Shape],
    window: &Window,
    reducer: &ProgramShape,
) -> Result<Shape, String> {
    let (inputs, inits) = split_inputs_and_inits("reduce-window", operands)?;
    check_same_dims("reduce-window", inputs)?;
    let types: Vec<_> = inputs.iter().filter_map(|s| s.element_type()).collect();
    verify_reducer("reduce-window", reducer, inits, &types)?;
    let dims = window_output_dims(inputs[0].dims(), window)?;
    Ok(per_output(reducer, |i, _| {
        let t = inits[i].element_type().unwrap_or(PrimitiveType::F32);
        array_with_dynamic(t, dims.clone(), Vec::new())
    }))
}

/// `select-and-scatter(operand, source, init), window={...}`: the operand's shape. `select`
/// is `(T, T) -> pred[]`; `source` has the shape of the windowed operand; `scatter` is a
/// reducer over the source type.
pub(super) fn infer_select_and_scatter(
    operands: &[&Shape],
    window: &Window,
    select: &ProgramShape,
    scatter: &ProgramShape,
) -> Result<Shape, String> {
    let [operand, source, init] = operands else {
        return Err("select-and-scatter takes an operand, a source and an init value".to_string());
    };
    let a = expect_array(operand, "the operand of select-and-scatter")?;
    let element = Shape::scalar(a.element_type);
    let select_ok = select.parameters.len() == 2
        && select.parameters.iter().all(|p| p.compatible(&element))
        && select
            .result
            .compatible(&Shape::scalar(PrimitiveType::Pred));
    if !select_ok {
        return Err(format!(
            "the select computation is {} but must be ({1}, {1}) -> pred[]",
            human_signature(select),
            human_string(&element)
        ));
    }
    let source_type = source.element_type().unwrap_or(PrimitiveType::F32);
    verify_reducer("scatter", scatter, &[init], &[source_type])?;
    let windowed = window_output_dims(&a.dims, window)?;
    if source.dims() != windowed.as_slice() {
        return Err(format!(
            "the source is {} but the windowed operand has dimensions {}",
            human_string(source),
            list(&windowed)
        ));
    }
    Ok((*operand).clone())
}

/// `map(xs...), dimensions={0,1,...}, to_apply=f`: inputs of one shape; f maps scalars to a
/// scalar; the result has the inputs' dims and f's result type.
pub(super) fn infer_map(
    operands: &[&Shape],
    dimensions: &[usize],
    f: &ProgramShape,
) -> Result<Shape, String> {
    if operands.is_empty() {
        return Err("map needs at least one operand".to_string());
    }
    check_same_dims("map", operands)?;
    let a = expect_array(operands[0], "the inputs of map")?;
    if dimensions.iter().copied().ne(0..a.rank()) {
        return Err(format!(
            "map dimensions={} must be all dimensions in order",
            list(dimensions)
        ));
    }
    let params_ok = f.parameters.len() == operands.len()
        && f.parameters
            .iter()
            .zip(operands)
            .all(|(p, s)| is_scalar(p) && p.element_type() == s.element_type());
    if !params_ok || !is_scalar(&f.result) {
        let args: Vec<String> = operands.iter().map(|s| human_string(s)).collect();
        return Err(format!(
            "the map computation is {} but must take one scalar per operand ({}) and return a scalar",
            human_signature(f),
            args.join(", ")
        ));
    }
    let t = f.result.element_type().unwrap_or(a.element_type);
    Ok(array_with_dynamic(t, a.dims.clone(), Vec::new()))
}

/// `sort(xs...), dimensions={d}`: inputs of equal dims; the comparator takes two scalars per
/// input and returns `pred[]`. The inputs' shape, a tuple for several.
pub(super) fn infer_sort(
    operands: &[&Shape],
    dimension: usize,
    comparator: &ProgramShape,
) -> Result<Shape, String> {
    if operands.is_empty() {
        return Err("sort needs at least one operand".to_string());
    }
    check_same_dims("sort", operands)?;
    let rank = operands[0].rank();
    if dimension >= rank {
        return Err(format!(
            "dimensions={{{dimension}}} is out of range for {}",
            human_string(operands[0])
        ));
    }
    let params_ok = comparator.parameters.len() == 2 * operands.len()
        && comparator
            .parameters
            .iter()
            .enumerate()
            .all(|(i, p)| is_scalar(p) && p.element_type() == operands[i / 2].element_type());
    if !params_ok
        || !comparator
            .result
            .compatible(&Shape::scalar(PrimitiveType::Pred))
    {
        return Err(format!(
            "the sort comparator is {} but must take two scalars per operand and return pred[]",
            human_signature(comparator)
        ));
    }
    Ok(if operands.len() == 1 {
        operands[0].clone()
    } else {
        Shape::Tuple(operands.iter().map(|s| (*s).clone()).collect())
    })
}

/// `topk(x), k=K`: `(values, s32 indices)`, both the operand's dims with the last one `K`.
pub(super) fn infer_topk(operand: &Shape, k: i64) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of topk")?;
    let Some(&last) = a.dims.last() else {
        return Err("topk needs an operand of rank >= 1, not a scalar".to_string());
    };
    if k < 0 || k > last {
        return Err(format!(
            "k={k} must be between 0 and the last dimension of {} ({last})",
            human_string(operand)
        ));
    }
    let mut dims = a.dims.clone();
    *dims.last_mut().expect("rank >= 1 checked above") = k;
    Ok(Shape::Tuple(vec![
        array_with_dynamic(a.element_type, dims.clone(), Vec::new()),
        array_with_dynamic(PrimitiveType::S32, dims, Vec::new()),
    ]))
}
