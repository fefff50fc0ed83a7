//! Contractions and linear algebra: dot, convolution, fft, cholesky, triangular-solve and
//! the batch-norm ops.
//! XLA: `InferDotOpShape`, `InferConvolveShape`, `InferFftShape`, `InferCholeskyShape`,
//! `InferTriangularSolveShape`, `InferBatchNorm*Shape` in `xla/service/shape_inference.cc`.
//!
//! `dot` and `convolution` may produce a wider type than their operands
//! (`preferred_element_type`, e.g. bf16 x bf16 -> f32), which only the declared shape
//! records; so their result element type is the declared one, and only dims are inferred.

use super::reduction::window_output_dims;
use super::{
    array_with_dynamic, check_dims_in_range_and_unique, complex_component, expect_array,
    human_string, list,
};
use crate::ir::{
    ConvolutionDimensionNumbers, DotDimensionNumbers, FftType, Opcode, PrimitiveType, Shape, Window,
};

/// The declared element type, or `fallback` when the declared shape is not an array.
fn declared_type(declared: &Shape, fallback: PrimitiveType) -> PrimitiveType {
    declared.element_type().unwrap_or(fallback)
}

/// `dot(lhs, rhs)`: batch dims, then lhs free dims, then rhs free dims (free = neither
/// batch nor contracting). Contracting and batch sizes must agree pairwise.
pub(super) fn infer_dot(
    lhs: &Shape,
    rhs: &Shape,
    dnums: &DotDimensionNumbers,
    declared: &Shape,
) -> Result<Shape, String> {
    let l = expect_array(lhs, "the lhs of dot")?;
    let r = expect_array(rhs, "the rhs of dot")?;
    let mut lhs_used = dnums.lhs_batch_dimensions.clone();
    lhs_used.extend(&dnums.lhs_contracting_dimensions);
    let mut rhs_used = dnums.rhs_batch_dimensions.clone();
    rhs_used.extend(&dnums.rhs_contracting_dimensions);
    check_dims_in_range_and_unique(&lhs_used, l.rank(), "the lhs batch and contracting dims")?;
    check_dims_in_range_and_unique(&rhs_used, r.rank(), "the rhs batch and contracting dims")?;
    let pairs = [
        (
            "contracting",
            &dnums.lhs_contracting_dimensions,
            &dnums.rhs_contracting_dimensions,
        ),
        (
            "batch",
            &dnums.lhs_batch_dimensions,
            &dnums.rhs_batch_dimensions,
        ),
    ];
    for (what, ld, rd) in pairs {
        if ld.len() != rd.len() {
            return Err(format!(
                "dot has {} lhs and {} rhs {what} dimensions; they must pair up",
                ld.len(),
                rd.len()
            ));
        }
        for (&a, &b) in ld.iter().zip(rd.iter()) {
            if l.dims[a] != r.dims[b] {
                return Err(format!(
                    "operands are {} and {}; dot needs {what} dimensions of equal size, but lhs dimension {a} is {} and rhs dimension {b} is {}",
                    human_string(lhs),
                    human_string(rhs),
                    l.dims[a],
                    r.dims[b]
                ));
            }
        }
    }
    let mut dims: Vec<i64> = dnums
        .lhs_batch_dimensions
        .iter()
        .map(|&d| l.dims[d])
        .collect();
    dims.extend(
        (0..l.rank())
            .filter(|d| !lhs_used.contains(d))
            .map(|d| l.dims[d]),
    );
    dims.extend(
        (0..r.rank())
            .filter(|d| !rhs_used.contains(d))
            .map(|d| r.dims[d]),
    );
    Ok(array_with_dynamic(
        declared_type(declared, l.element_type),
        dims,
        Vec::new(),
    ))
}

/// `convolution(lhs, rhs), window=..., dim_labels=...`: output batch = input batch /
/// batch_group_count, output feature = kernel output feature, spatial dims from sliding the
/// window over the input's spatial dims.
pub(super) fn infer_convolution(
    lhs: &Shape,
    rhs: &Shape,
    window: &Window,
    dnums: &ConvolutionDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
    declared: &Shape,
) -> Result<Shape, String> {
    let l = expect_array(lhs, "the input of convolution")?;
    let r = expect_array(rhs, "the kernel of convolution")?;
    if feature_group_count <= 0 || batch_group_count <= 0 {
        return Err("feature_group_count and batch_group_count must be positive".to_string());
    }
    if feature_group_count > 1 && batch_group_count > 1 {
        return Err(
            "feature_group_count and batch_group_count cannot both be greater than 1".to_string(),
        );
    }
    let spatial = dnums.input_spatial_dimensions.len();
    if dnums.kernel_spatial_dimensions.len() != spatial
        || dnums.output_spatial_dimensions.len() != spatial
        || window.dimensions.len() != spatial
    {
        return Err(format!(
            "dim_labels and window disagree on the number of spatial dimensions (input {}, kernel {}, output {}, window {})",
            spatial,
            dnums.kernel_spatial_dimensions.len(),
            dnums.output_spatial_dimensions.len(),
            window.dimensions.len()
        ));
    }
    let rank = spatial + 2;
    if l.rank() != rank || r.rank() != rank {
        return Err(format!(
            "operands are {} and {}; with {spatial} spatial dimensions convolution needs rank {rank}",
            human_string(lhs),
            human_string(rhs)
        ));
    }
    let mut input = vec![dnums.input_batch_dimension, dnums.input_feature_dimension];
    input.extend(&dnums.input_spatial_dimensions);
    let mut kernel = vec![
        dnums.kernel_input_feature_dimension,
        dnums.kernel_output_feature_dimension,
    ];
    kernel.extend(&dnums.kernel_spatial_dimensions);
    let mut output = vec![dnums.output_batch_dimension, dnums.output_feature_dimension];
    output.extend(&dnums.output_spatial_dimensions);
    check_dims_in_range_and_unique(&input, rank, "the input dim_labels")?;
    check_dims_in_range_and_unique(&kernel, rank, "the kernel dim_labels")?;
    check_dims_in_range_and_unique(&output, rank, "the output dim_labels")?;

    let input_batch = l.dims[dnums.input_batch_dimension];
    let input_features = l.dims[dnums.input_feature_dimension];
    let kernel_input_features = r.dims[dnums.kernel_input_feature_dimension];
    let kernel_output_features = r.dims[dnums.kernel_output_feature_dimension];
    if input_features % feature_group_count != 0
        || input_features / feature_group_count != kernel_input_features
    {
        return Err(format!(
            "the input has {input_features} features and feature_group_count={feature_group_count}, so the kernel needs {} input features, but has {kernel_input_features}",
            input_features / feature_group_count
        ));
    }
    if kernel_output_features % feature_group_count != 0 {
        return Err(format!(
            "the kernel's {kernel_output_features} output features are not divisible by feature_group_count={feature_group_count}"
        ));
    }
    if kernel_output_features % batch_group_count != 0 || input_batch % batch_group_count != 0 {
        return Err(format!(
            "the input batch ({input_batch}) and the kernel's output features ({kernel_output_features}) must be divisible by batch_group_count={batch_group_count}"
        ));
    }
    let kernel_spatial: Vec<i64> = dnums
        .kernel_spatial_dimensions
        .iter()
        .map(|&d| r.dims[d])
        .collect();
    let window_sizes: Vec<i64> = window.dimensions.iter().map(|w| w.size).collect();
    if kernel_spatial != window_sizes {
        return Err(format!(
            "the kernel {} has spatial sizes {} but the window has size {}",
            human_string(rhs),
            list(&kernel_spatial),
            list(&window_sizes)
        ));
    }
    let input_spatial: Vec<i64> = dnums
        .input_spatial_dimensions
        .iter()
        .map(|&d| l.dims[d])
        .collect();
    let out_spatial = window_output_dims(&input_spatial, window)?;
    let mut dims = vec![0; rank];
    dims[dnums.output_batch_dimension] = input_batch / batch_group_count;
    dims[dnums.output_feature_dimension] = kernel_output_features;
    for (i, &d) in dnums.output_spatial_dimensions.iter().enumerate() {
        dims[d] = out_spatial[i];
    }
    Ok(array_with_dynamic(
        declared_type(declared, l.element_type),
        dims,
        Vec::new(),
    ))
}

/// `fft(x), fft_type=..., fft_length={...}`: FFT/IFFT keep the complex shape; RFFT turns
/// the last dim `n` into `n/2+1` complex values; IRFFT goes back to `fft_length`.
pub(super) fn infer_fft(
    operand: &Shape,
    fft_type: FftType,
    fft_length: &[i64],
) -> Result<Shape, String> {
    let a = expect_array(operand, "the operand of fft")?;
    let n = fft_length.len();
    if !(1..=3).contains(&n) || a.rank() < n {
        return Err(format!(
            "fft_length={} must have 1 to 3 entries and at most the rank of {}",
            list(fft_length),
            human_string(operand)
        ));
    }
    let inner = &a.dims[a.rank() - n..];
    let mut result = a.clone();
    let last = a.rank() - 1;
    match fft_type {
        FftType::Fft | FftType::Ifft => {
            if !a.element_type.is_complex() {
                return Err(format!(
                    "{fft_type} needs a complex operand, but it is {}",
                    human_string(operand)
                ));
            }
            // As XLA's shape inference: the transform runs over exactly those dimensions.
            if inner != fft_length {
                return Err(format!(
                    "{fft_type} needs the innermost dimensions of {} to equal fft_length={}",
                    human_string(operand),
                    list(fft_length)
                ));
            }
        }
        FftType::Rfft => {
            let c = match a.element_type {
                PrimitiveType::F32 => PrimitiveType::C64,
                PrimitiveType::F64 => PrimitiveType::C128,
                _ => {
                    return Err(format!(
                        "RFFT needs an f32 or f64 operand, but it is {}",
                        human_string(operand)
                    ));
                }
            };
            if inner != fft_length {
                return Err(format!(
                    "RFFT needs the innermost dimensions of {} to equal fft_length={}",
                    human_string(operand),
                    list(fft_length)
                ));
            }
            result.element_type = c;
            if fft_length[n - 1] != 0 {
                result.dims[last] = fft_length[n - 1] / 2 + 1;
            }
        }
        FftType::Irfft => {
            let Some(component) = complex_component(a.element_type) else {
                return Err(format!(
                    "IRFFT needs a complex operand, but it is {}",
                    human_string(operand)
                ));
            };
            let expected_last = if fft_length[n - 1] == 0 {
                0
            } else {
                fft_length[n - 1] / 2 + 1
            };
            if inner[..n - 1] != fft_length[..n - 1] || inner[n - 1] != expected_last {
                return Err(format!(
                    "IRFFT of {} does not match fft_length={} (the last dimension must be fft_length/2+1)",
                    human_string(operand),
                    list(fft_length)
                ));
            }
            result.element_type = component;
            result.dims[last] = fft_length[n - 1];
        }
    }
    Ok(Shape::Array(result))
}

/// Checks a square (batched) matrix `[..., n, n]` of float or complex elements.
fn check_square_matrix(op: &str, a: &Shape) -> Result<(), String> {
    let m = expect_array(a, &format!("the matrix of {op}"))?;
    let ok_type = m.element_type.is_float() || m.element_type.is_complex();
    let r = m.rank();
    if !ok_type || r < 2 || m.dims[r - 1] != m.dims[r - 2] {
        return Err(format!(
            "{op} needs square float or complex matrices [..., n, n], but got {}",
            human_string(a)
        ));
    }
    Ok(())
}

/// `cholesky(a)`: `a`'s shape.
pub(super) fn infer_cholesky(a: &Shape) -> Result<Shape, String> {
    check_square_matrix("cholesky", a)?;
    Ok(a.clone())
}

/// `triangular-solve(a, b)`: `b`'s shape; `a` is square with the size of `b`'s shared
/// dimension (rows when `left_side`, columns otherwise) and the same batch dims.
pub(super) fn infer_triangular_solve(
    a: &Shape,
    b: &Shape,
    left_side: bool,
) -> Result<Shape, String> {
    check_square_matrix("triangular-solve", a)?;
    let am = expect_array(a, "a")?;
    let bm = expect_array(b, "the right-hand side of triangular-solve")?;
    let r = am.rank();
    let shared = if left_side { r - 2 } else { r - 1 };
    let ok = bm.element_type == am.element_type
        && bm.rank() == r
        && bm.dims[shared] == am.dims[r - 1]
        && bm.dims[..r - 2] == am.dims[..r - 2];
    if !ok {
        return Err(format!(
            "operands are {} and {}; triangular-solve (left_side={left_side}) needs the same element type and batch dims, and b's {} to match a's size",
            human_string(a),
            human_string(b),
            if left_side { "rows" } else { "columns" }
        ));
    }
    Ok(b.clone())
}

/// `batch-norm-training(x, scale, offset)` -> `(x, mean, var)`;
/// `batch-norm-inference(x, scale, offset, mean, var)` -> `x`;
/// `batch-norm-grad(x, scale, mean, var, grad)` -> `(dx, dscale, doffset)`.
/// The per-feature operands are rank-1 with the size of `x`'s feature dimension.
pub(super) fn infer_batch_norm(
    opcode: Opcode,
    operands: &[&Shape],
    feature_index: usize,
) -> Result<Shape, String> {
    if !matches!(
        opcode,
        Opcode::BatchNormTraining | Opcode::BatchNormInference | Opcode::BatchNormGrad
    ) {
        return Err(format!("{opcode} is not a batch-norm opcode"));
    }
    let Some(first) = operands.first() else {
        return Err(format!("{opcode} needs operands"));
    };
    let x = expect_array(first, &format!("the operand of {opcode}"))?;
    if !x.element_type.is_float() || feature_index >= x.rank() {
        return Err(format!(
            "{opcode} needs a floating-point operand with feature_index={feature_index} in range, got {}",
            human_string(operands[0])
        ));
    }
    let features = x.dims[feature_index];
    let per_feature = Shape::array(x.element_type, &[features]);
    // The operand that has x's full shape: the gradient, for batch-norm-grad.
    let full_shape_operands: &[usize] = if opcode == Opcode::BatchNormGrad {
        &[4]
    } else {
        &[]
    };
    for (i, s) in operands.iter().enumerate().skip(1) {
        let expected = if full_shape_operands.contains(&i) {
            operands[0]
        } else {
            &per_feature
        };
        if !s.compatible(expected) {
            return Err(format!(
                "{opcode} operand {i} is {} but must be {}",
                human_string(s),
                human_string(expected)
            ));
        }
    }
    Ok(match opcode {
        Opcode::BatchNormInference => operands[0].clone(),
        Opcode::BatchNormGrad | Opcode::BatchNormTraining => {
            let first = array_with_dynamic(x.element_type, x.dims.clone(), Vec::new());
            Shape::Tuple(vec![first, per_feature.clone(), per_feature])
        }
        _ => return Err(format!("{opcode} is not a batch-norm opcode")),
    })
}
