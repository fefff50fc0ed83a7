//! Contractions: dot, convolution, linear algebra, fft.

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` in a table of cases.
#![allow(clippy::cloned_ref_to_slice_refs)]

use super::*;
use crate::ir::PrimitiveType::*;
use crate::ir::*;

fn dot_op(lb: &[usize], lc: &[usize], rb: &[usize], rc: &[usize]) -> Op {
    Op::Dot {
        dimension_numbers: DotDimensionNumbers {
            lhs_batch_dimensions: lb.to_vec(),
            rhs_batch_dimensions: rb.to_vec(),
            lhs_contracting_dimensions: lc.to_vec(),
            rhs_contracting_dimensions: rc.to_vec(),
        },
        precision: vec![Precision::Default, Precision::Default],
        algorithm: None,
    }
}

#[test]
fn dot_orders_batch_then_lhs_then_rhs() {
    let matmul = dot_op(&[], &[1], &[], &[0]);
    assert_eq!(
        infer(
            &[s(F32, &[2, 3]), s(F32, &[3, 4])],
            matmul.clone(),
            s(F32, &[2, 4])
        ),
        ok("f32[2,4]")
    );
    assert_err(
        infer(
            &[s(F32, &[2, 3]), s(F32, &[5, 4])],
            matmul.clone(),
            s(F32, &[2, 4]),
        ),
        "contracting dimensions of equal size",
    );
    // testdata attention: bqk,bkd->bqd is f32[2,8,4] x f32[2,4,16] -> f32[2,8,16].
    let bmm = dot_op(&[0], &[2], &[0], &[1]);
    assert_eq!(
        infer(
            &[s(F32, &[2, 8, 4]), s(F32, &[2, 4, 16])],
            bmm,
            s(F32, &[2, 8, 16])
        ),
        ok("f32[2,8,16]")
    );
    // bqd,bkd->bqk contracts the last dims of both.
    let qk = dot_op(&[0], &[2], &[0], &[2]);
    assert_eq!(
        infer(
            &[s(F32, &[2, 8, 4]), s(F32, &[2, 8, 4])],
            qk,
            s(F32, &[2, 8, 8])
        ),
        ok("f32[2,8,8]")
    );
    // preferred_element_type: bf16 x bf16 accumulating in f32.
    assert_eq!(
        infer(
            &[s(BF16, &[2, 3]), s(BF16, &[3, 4])],
            matmul,
            s(F32, &[2, 4])
        ),
        ok("f32[2,4]")
    );
}

fn nhwc_conv(window: Window, feature_group_count: i64, batch_group_count: i64) -> Op {
    // b01f_01io->b01f
    Op::Convolution {
        window,
        dimension_numbers: ConvolutionDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: 3,
            input_spatial_dimensions: vec![1, 2],
            kernel_input_feature_dimension: 2,
            kernel_output_feature_dimension: 3,
            kernel_spatial_dimensions: vec![0, 1],
            output_batch_dimension: 0,
            output_feature_dimension: 3,
            output_spatial_dimensions: vec![1, 2],
        },
        feature_group_count,
        batch_group_count,
        precision: vec![],
    }
}

#[test]
fn convolution_windows_and_groups() {
    let same = window(&[3, 3], &[1, 1], &[(1, 1), (1, 1)]);
    let x = s(F32, &[1, 5, 5, 2]);
    assert_eq!(
        infer(
            &[x.clone(), s(F32, &[3, 3, 2, 4])],
            nhwc_conv(same.clone(), 1, 1),
            s(F32, &[1, 5, 5, 4])
        ),
        ok("f32[1,5,5,4]")
    );
    // stride 2, no padding: (5 - 3) / 2 + 1 = 2.
    let strided = window(&[3, 3], &[2, 2], &[(0, 0), (0, 0)]);
    assert_eq!(
        infer(
            &[x.clone(), s(F32, &[3, 3, 2, 4])],
            nhwc_conv(strided, 1, 1),
            s(F32, &[1, 2, 2, 4])
        ),
        ok("f32[1,2,2,4]")
    );
    assert_err(
        infer(
            &[x, s(F32, &[3, 3, 3, 4])],
            nhwc_conv(same.clone(), 1, 1),
            s(F32, &[1, 5, 5, 4]),
        ),
        "needs 2 input features",
    );
    // Depthwise: 4 features in 4 groups, kernel input features 4 / 4 = 1.
    let x4 = s(F32, &[1, 5, 5, 4]);
    assert_eq!(
        infer(
            &[x4.clone(), s(F32, &[3, 3, 1, 4])],
            nhwc_conv(same.clone(), 4, 1),
            s(F32, &[1, 5, 5, 4])
        ),
        ok("f32[1,5,5,4]")
    );
    // batch_group_count=2: batch 2 -> 1, kernel output features 4 divisible by 2.
    let x2 = s(F32, &[2, 5, 5, 4]);
    assert_eq!(
        infer(
            &[x2, s(F32, &[3, 3, 4, 4])],
            nhwc_conv(same, 1, 2),
            s(F32, &[1, 5, 5, 4])
        ),
        ok("f32[1,5,5,4]")
    );
}

#[test]
fn linear_algebra_and_fft() {
    let a = s(F32, &[2, 4, 4]);
    assert_eq!(
        infer(&[a.clone()], Op::Cholesky { lower: true }, a.clone()),
        ok("f32[2,4,4]")
    );
    assert_err(
        infer(
            &[s(F32, &[4, 3])],
            Op::Cholesky { lower: true },
            s(F32, &[4, 3]),
        ),
        "square",
    );
    let solve = |left_side| {
        Op::TriangularSolve(TriangularSolveOptions {
            left_side,
            lower: true,
            unit_diagonal: false,
            transpose_a: TriangularTranspose::NoTranspose,
        })
    };
    // left side: a x = b with b [.., 4, 3]; right side: x a = b with b [.., 3, 4].
    assert_eq!(
        infer(
            &[a.clone(), s(F32, &[2, 4, 3])],
            solve(true),
            s(F32, &[2, 4, 3])
        ),
        ok("f32[2,4,3]")
    );
    assert_eq!(
        infer(
            &[a.clone(), s(F32, &[2, 3, 4])],
            solve(false),
            s(F32, &[2, 3, 4])
        ),
        ok("f32[2,3,4]")
    );
    assert_err(
        infer(&[a, s(F32, &[2, 3, 4])], solve(true), s(F32, &[2, 3, 4])),
        "rows",
    );
    // rfft of 8 reals gives 8/2 + 1 = 5 complex values.
    let rfft = Op::Fft {
        fft_type: FftType::Rfft,
        fft_length: vec![8],
    };
    assert_eq!(
        infer(&[s(F32, &[3, 8])], rfft, s(C64, &[3, 5])),
        ok("c64[3,5]")
    );
    let irfft = Op::Fft {
        fft_type: FftType::Irfft,
        fft_length: vec![8],
    };
    assert_eq!(
        infer(&[s(C64, &[3, 5])], irfft, s(F32, &[3, 8])),
        ok("f32[3,8]")
    );
    // An FFT's lengths are its operand's innermost dimensions (a fuzzed 2147483647 made the
    // interpreter allocate its twiddles for that length).
    let ifft = |fft_length: Vec<i64>| Op::Fft {
        fft_type: FftType::Ifft,
        fft_length,
    };
    assert_eq!(
        infer(&[s(C64, &[4, 2, 3])], ifft(vec![2, 3]), s(C64, &[4, 2, 3])),
        ok("c64[4,2,3]")
    );
    assert_err(
        infer(
            &[s(C64, &[4, 2, 3])],
            ifft(vec![2147483647, 3]),
            s(C64, &[4, 2, 3]),
        ),
        "innermost dimensions",
    );
}
