//! `convolution` with strides, padding, lhs/rhs dilation, feature and batch groups, and any
//! dimension labels.

use super::{EvalError, EvalResult};
use crate::ir::{ConvolutionDimensionNumbers, Literal, Shape, Window};

/// `convolution(lhs, rhs), window=..., dim_labels=...`.
pub fn convolution(
    shape: &Shape,
    lhs: &Literal,
    rhs: &Literal,
    window: &Window,
    dnums: &ConvolutionDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
) -> EvalResult {
    let _ = (shape, lhs, rhs, window, dnums, feature_group_count, batch_group_count);
    Err(EvalError::new("convolution is not implemented in the interpreter yet"))
}
