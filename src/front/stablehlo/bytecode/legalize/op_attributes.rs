//! An op's inherent attributes: its VHLO properties as StableHLO's attributes. Flattened
//! dimension numbers are reassembled (`#stablehlo.gather<...>`, `.scatter`, `.dot`,
//! `.conv`), `channel_id` becomes `channel_handle`, i64 tensors become dense arrays where
//! StableHLO has them, and attributes at their default value are dropped. Apart from the
//! op tree's walk because it is the per-op knowledge of the StableHLO dialect.

use std::rc::Rc;

use super::{err, generic};
use crate::front::stablehlo::attributes::Attr;
use crate::front::stablehlo::bytecode::attr_table::{A, EnumKind, T};
use crate::front::stablehlo::bytecode::encoding::BResult;
use crate::front::stablehlo::bytecode::ir::{Props, RawOp};
use crate::ir::ConvolutionDimensionNumbers;

/// The StableHLO attributes of a VHLO op, from its properties.
pub(super) fn inherent(op: &RawOp, short: &str) -> BResult<Vec<(String, Attr)>> {
    let base = short.rsplit_once("_v").map(|(b, _)| b).unwrap_or(short);
    let props: Vec<(&str, Rc<A>)> = match &op.props {
        Props::Named(p) => p.iter().map(|(k, v)| (*k, v.clone())).collect(),
        _ => Vec::new(),
    };
    let get = |k: &str| props.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
    let mut out: Vec<(String, Attr)> = Vec::new();
    let ints = |k: &str| -> BResult<Vec<i64>> {
        match get(k) {
            Some(a) => {
                int_list(&a).ok_or_else(|| err(op, format!("'{k}' is not a list of integers")))
            }
            None => Ok(Vec::new()),
        }
    };
    let int = |k: &str| -> BResult<i64> {
        match get(k).as_deref() {
            Some(A::Int(_, v)) => Ok(*v as i64),
            _ => Err(err(op, format!("'{k}' is not an integer"))),
        }
    };
    let is_false = |k: &str| matches!(get(k).as_deref(), Some(A::Bool(false)) | None);
    // Dimension-number structs, printed without their empty lists.
    let dims_struct = |name: &str,
                       fields: &[(&str, &str)],
                       out: &mut Vec<(String, Attr)>,
                       key: &str|
     -> BResult<()> {
        let mut f = Vec::new();
        for (vhlo, field) in fields {
            if *vhlo == "index_vector_dim" {
                // Printed (and so parsed) only when it is not 0.
                let v = int(vhlo)?;
                if v != 0 {
                    f.push((field.to_string(), Attr::Int(v as i128)));
                }
                continue;
            }
            let v = ints(vhlo)?;
            if !v.is_empty() {
                f.push((
                    field.to_string(),
                    Attr::Array(v.into_iter().map(|x| Attr::Int(x as i128)).collect()),
                ));
            }
        }
        out.push((key.to_string(), Attr::Struct(name.to_string(), f)));
        Ok(())
    };
    let mut skip: Vec<&str> = Vec::new();
    match base {
        "func" => return Ok(Vec::new()),
        "convolution" | "dynamic_conv" => {
            let u = |k: &str| -> BResult<usize> {
                let v = int(k)?;
                usize::try_from(v).map_err(|_| err(op, format!("'{k}' is negative")))
            };
            let us = |k: &str| -> BResult<Vec<usize>> {
                ints(k)?
                    .into_iter()
                    .map(|v| usize::try_from(v).map_err(|_| err(op, format!("'{k}' is negative"))))
                    .collect()
            };
            let dims = ConvolutionDimensionNumbers {
                input_batch_dimension: u("input_batch_dimension")?,
                input_feature_dimension: u("input_feature_dimension")?,
                input_spatial_dimensions: us("input_spatial_dimensions")?,
                kernel_input_feature_dimension: u("kernel_input_feature_dimension")?,
                kernel_output_feature_dimension: u("kernel_output_feature_dimension")?,
                kernel_spatial_dimensions: us("kernel_spatial_dimensions")?,
                output_batch_dimension: u("output_batch_dimension")?,
                output_feature_dimension: u("output_feature_dimension")?,
                output_spatial_dimensions: us("output_spatial_dimensions")?,
            };
            out.push(("dimension_numbers".into(), Attr::Conv(dims)));
            skip.extend([
                "input_batch_dimension",
                "input_feature_dimension",
                "input_spatial_dimensions",
                "kernel_input_feature_dimension",
                "kernel_output_feature_dimension",
                "kernel_spatial_dimensions",
                "output_batch_dimension",
                "output_feature_dimension",
                "output_spatial_dimensions",
            ]);
            for (k, dflt) in [
                ("window_strides", 1),
                ("lhs_dilation", 1),
                ("rhs_dilation", 1),
                ("padding", 0),
                ("window_reversal", 0),
            ] {
                if get(k).is_some_and(|a| all_equal(&a, dflt)) {
                    skip.push(k);
                }
            }
            if get("precision_config").is_some_and(|a| all_default_precision(&a)) {
                skip.push("precision_config");
            }
        }
        "dot_general" => {
            dims_struct(
                "stablehlo.dot",
                &[
                    ("lhs_batching_dimensions", "lhs_batching_dimensions"),
                    ("rhs_batching_dimensions", "rhs_batching_dimensions"),
                    ("lhs_contracting_dimensions", "lhs_contracting_dimensions"),
                    ("rhs_contracting_dimensions", "rhs_contracting_dimensions"),
                ],
                &mut out,
                "dot_dimension_numbers",
            )?;
            skip.extend([
                "lhs_batching_dimensions",
                "rhs_batching_dimensions",
                "lhs_contracting_dimensions",
                "rhs_contracting_dimensions",
            ]);
            let algo = [
                "lhs_precision_type",
                "rhs_precision_type",
                "accumulation_type",
                "lhs_component_count",
                "rhs_component_count",
                "num_primitive_operations",
                "allow_imprecise_accumulation",
            ];
            let none = matches!(
                get("lhs_precision_type").as_deref(),
                None | Some(A::Type(_))
            ) && get("lhs_precision_type")
                .is_none_or(|a| matches!(&*a, A::Type(t) if **t == T::None));
            if !none {
                let mut f = Vec::new();
                for k in algo {
                    if let Some(a) = get(k) {
                        f.push((k.to_string(), generic(&a, op.offset)?));
                    }
                }
                out.push((
                    "algorithm".into(),
                    Attr::Struct("stablehlo.dot_algorithm".into(), f),
                ));
            }
            skip.extend(algo);
            if get("precision_config").is_some_and(|a| all_default_precision(&a)) {
                skip.push("precision_config");
            }
        }
        "dot" if get("precision_config").is_some_and(|a| all_default_precision(&a)) => {
            skip.push("precision_config");
        }
        "gather" | "dynamic_gather" => {
            dims_struct(
                "stablehlo.gather",
                &[
                    ("offset_dims", "offset_dims"),
                    ("collapsed_slice_dims", "collapsed_slice_dims"),
                    ("operand_batching_dims", "operand_batching_dims"),
                    ("start_indices_batching_dims", "start_indices_batching_dims"),
                    ("start_index_map", "start_index_map"),
                    ("index_vector_dim", "index_vector_dim"),
                ],
                &mut out,
                "dimension_numbers",
            )?;
            skip.extend([
                "offset_dims",
                "collapsed_slice_dims",
                "operand_batching_dims",
                "start_indices_batching_dims",
                "start_index_map",
                "index_vector_dim",
            ]);
            if is_false("indices_are_sorted") {
                skip.push("indices_are_sorted");
            }
        }
        "scatter" => {
            dims_struct(
                "stablehlo.scatter",
                &[
                    ("update_window_dims", "update_window_dims"),
                    ("inserted_window_dims", "inserted_window_dims"),
                    ("input_batching_dims", "input_batching_dims"),
                    (
                        "scatter_indices_batching_dims",
                        "scatter_indices_batching_dims",
                    ),
                    (
                        "scatter_dims_to_operand_dims",
                        "scatter_dims_to_operand_dims",
                    ),
                    ("index_vector_dim", "index_vector_dim"),
                ],
                &mut out,
                "scatter_dimension_numbers",
            )?;
            skip.extend([
                "update_window_dims",
                "inserted_window_dims",
                "input_batching_dims",
                "scatter_indices_batching_dims",
                "scatter_dims_to_operand_dims",
                "index_vector_dim",
            ]);
            for k in ["indices_are_sorted", "unique_indices"] {
                if is_false(k) {
                    skip.push(k);
                }
            }
        }
        "all_gather"
        | "all_reduce"
        | "all_to_all"
        | "collective_permute"
        | "reduce_scatter"
        | "collective_broadcast"
        | "collective_reduce"
        | "send"
        | "recv" => {
            let id = match get("channel_id").as_deref() {
                Some(A::Int(_, v)) => *v as i64,
                _ => 0,
            };
            skip.push("channel_id");
            skip.push("channel_type");
            if base == "send" || base == "recv" {
                let ty = match get("channel_type").as_deref() {
                    Some(A::Int(_, v)) => *v as i64,
                    _ => 0,
                };
                out.push(channel_handle(id, ty));
                if is_false("is_host_transfer") {
                    skip.push("is_host_transfer");
                }
                if get("source_target_pairs").is_some_and(|a| is_empty_tensor(&a)) {
                    skip.push("source_target_pairs");
                }
            } else if id != 0 {
                out.push(channel_handle(id, 0));
            }
            for k in ["use_global_device_ids", "has_dynamic_root"] {
                if let Some(A::Bool(true)) = get(k).as_deref() {
                    out.push((k.into(), Attr::Unit))
                }
                skip.push(k);
            }
        }
        "cholesky" if is_false("lower") => {
            skip.push("lower");
        }
        "compare" => {
            if matches!(
                get("compare_type").as_deref(),
                Some(A::Enum(EnumKind::ComparisonType, 0))
            ) {
                skip.push("compare_type");
            }
        }
        "composite" => {
            if matches!(get("version").as_deref(), Some(A::Int(_, 0))) {
                skip.push("version");
            }
            if matches!(get("composite_attributes").as_deref(), Some(A::Dict(d)) if d.is_empty()) {
                skip.push("composite_attributes");
            }
            if let Some(A::Str(s)) = get("decomposition").as_deref() {
                out.push(("decomposition".into(), Attr::Symbol(s.clone())));
            }
            skip.push("decomposition");
        }
        "call" => {
            if let Some(A::Str(s)) = get("callee").as_deref() {
                out.push(("callee".into(), Attr::Symbol(s.clone())));
            }
            skip.push("callee");
        }
        "custom_call" => {
            if is_false("has_side_effect") {
                skip.push("has_side_effect");
            }
            match get("backend_config").as_deref() {
                Some(A::Str(s)) if s.is_empty() => skip.push("backend_config"),
                Some(A::Dict(d)) if d.is_empty() => skip.push("backend_config"),
                _ => {}
            }
            match get("api_version").as_deref() {
                Some(A::Enum(_, 1)) => {}
                Some(A::Enum(_, v)) => out.push(("api_version".into(), Attr::Int(*v as i128))),
                _ => {}
            }
            skip.push("api_version");
            if let Some(A::Array(items)) = get("called_computations").as_deref()
                && !items.is_empty()
            {
                let syms = items
                    .iter()
                    .map(|a| match &**a {
                        A::Str(s) => Ok(Attr::Symbol(s.clone())),
                        _ => Err(err(op, "called_computations holds a non-string")),
                    })
                    .collect::<BResult<Vec<_>>>()?;
                out.push(("called_computations".into(), Attr::Array(syms)));
            }
            skip.push("called_computations");
            let empty = |k: &str| matches!(get(k).as_deref(), Some(A::Array(a)) if a.is_empty());
            if empty("operand_layouts") && empty("result_layouts") {
                skip.extend(["operand_layouts", "result_layouts"]);
            }
            for k in ["output_operand_aliases", "result_tilings"] {
                if empty(k) {
                    skip.push(k);
                }
            }
        }
        "dynamic_broadcast_in_dim" => {
            for k in [
                "known_expanding_dimensions",
                "known_nonexpanding_dimensions",
            ] {
                if get(k).is_some_and(|a| is_empty_tensor(&a)) {
                    skip.push(k);
                }
            }
        }
        "infeed" | "outfeed" => {
            for k in ["infeed_config", "outfeed_config"] {
                if matches!(get(k).as_deref(), Some(A::Str(s)) if s.is_empty()) {
                    skip.push(k);
                }
            }
            if matches!(get("layout").as_deref(), Some(A::Array(a)) if a.is_empty()) {
                skip.push("layout");
            }
        }
        "reduce_window" => {
            for (k, d) in [
                ("window_strides", 1),
                ("base_dilations", 1),
                ("window_dilations", 1),
                ("padding", 0),
            ] {
                if get(k).is_some_and(|a| all_equal(&a, d)) {
                    skip.push(k);
                }
            }
        }
        "select_and_scatter" => {
            for (k, d) in [("window_strides", 1), ("padding", 0)] {
                if get(k).is_some_and(|a| all_equal(&a, d)) {
                    skip.push(k);
                }
            }
        }
        "sort" => {
            if matches!(get("dimension").as_deref(), Some(A::Int(_, -1))) {
                skip.push("dimension");
            }
            if is_false("is_stable") {
                skip.push("is_stable");
            }
        }
        "cbrt"
        | "cosine"
        | "exponential"
        | "exponential_minus_one"
        | "log"
        | "log_plus_one"
        | "logistic"
        | "rsqrt"
        | "sine"
        | "sqrt"
        | "tan"
        | "tanh"
            if get("result_accuracy").is_none_or(|a| is_default_accuracy(&a)) =>
        {
            skip.push("result_accuracy");
        }
        _ => {}
    }
    let arrays: &[&str] = match base {
        "fft" => &["fft_length"],
        "broadcast" => &["broadcast_sizes"],
        "dynamic_slice" | "gather" => &["slice_sizes"],
        "reverse" | "map" | "reduce" => &["dimensions"],
        "transpose" => &["permutation"],
        "pad" => &["edge_padding_low", "edge_padding_high", "interior_padding"],
        "slice" => &["start_indices", "limit_indices", "strides"],
        "broadcast_in_dim" => &["broadcast_dimensions"],
        "dynamic_broadcast_in_dim" => &[
            "broadcast_dimensions",
            "known_expanding_dimensions",
            "known_nonexpanding_dimensions",
        ],
        "select_and_scatter" => &["window_dimensions", "window_strides"],
        "reduce_window" => &[
            "window_dimensions",
            "window_strides",
            "base_dilations",
            "window_dilations",
        ],
        "convolution" | "dynamic_conv" => &[
            "lhs_dilation",
            "rhs_dilation",
            "window_strides",
            "window_reversal",
        ],
        _ => &[],
    };
    for (k, v) in &props {
        if skip.contains(k) || out.iter().any(|(n, _)| n == k) {
            continue;
        }
        let attr = if arrays.contains(k) {
            Attr::Ints(
                int_list(v).ok_or_else(|| err(op, format!("'{k}' is not a list of integers")))?,
            )
        } else {
            generic(v, op.offset)?
        };
        out.push((k.to_string(), attr));
    }
    Ok(out)
}

fn channel_handle(id: i64, ty: i64) -> (String, Attr) {
    (
        "channel_handle".into(),
        Attr::Struct(
            "stablehlo.channel_handle".into(),
            vec![
                ("handle".into(), Attr::Int(id as i128)),
                ("type".into(), Attr::Int(ty as i128)),
            ],
        ),
    )
}

/// The integers of an i64/i1 tensor, a dense array, or an array of integers.
fn int_list(a: &A) -> Option<Vec<i64>> {
    match a {
        A::DenseArray(_, v) => Some(v.clone()),
        A::Array(items) => items
            .iter()
            .map(|i| match &**i {
                A::Int(_, v) => Some(*v as i64),
                A::Bool(b) => Some(*b as i64),
                _ => None,
            })
            .collect(),
        A::Tensor(t, data) => {
            let T::Tensor(dims, elem, _) = &**t else {
                return None;
            };
            let width = elem.bit_width()?;
            let size = if width == 1 { 1 } else { (width / 8) as usize };
            if size == 0 {
                return None;
            }
            // Attribute lists are short; a huge shape is a broken file, not a list.
            let n = dims
                .iter()
                .try_fold(1usize, |a, &d| a.checked_mul(usize::try_from(d).ok()?))
                .filter(|&n| n <= 1 << 20)?;
            let vals: Vec<i64> = data
                .chunks(size)
                .map(|ch| {
                    let mut raw = 0u128;
                    for (i, b) in ch.iter().enumerate() {
                        raw |= (*b as u128) << (8 * i);
                    }
                    crate::front::stablehlo::bytecode::builtin::extend(raw, width, elem) as i64
                })
                .collect();
            if vals.len() == 1 && n != 1 {
                return Some(vec![vals[0]; n]);
            }
            (vals.len() == n).then_some(vals)
        }
        _ => None,
    }
}

fn all_equal(a: &A, v: i64) -> bool {
    int_list(a).is_some_and(|l| l.iter().all(|&x| x == v))
}

fn is_empty_tensor(a: &A) -> bool {
    match a {
        A::Tensor(t, _) => matches!(&**t, T::Tensor(d, _, _) if d.contains(&0)),
        _ => false,
    }
}

fn all_default_precision(a: &A) -> bool {
    match a {
        A::Array(items) => items
            .iter()
            .all(|i| matches!(&**i, A::Enum(EnumKind::Precision, 0))),
        _ => false,
    }
}

fn is_default_accuracy(a: &A) -> bool {
    match a {
        A::ResultAccuracy {
            atol,
            rtol,
            ulps,
            mode,
        } => *atol == 0.0 && *rtol == 0.0 && *ulps == 0 && matches!(&**mode, A::Enum(_, 0)),
        _ => false,
    }
}
