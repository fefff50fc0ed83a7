//! Differential tests of the direct convolution against the reference interpreter.

use crate::eval::compare::Tolerance;
use crate::ir::PrimitiveType::F32;
use crate::runtime::tests::{assert_matches_interpreter, build, random_args};
use crate::runtime::tuning::{Choice, ConvAlgorithm};

/// One NHWC f32 convolution run by the runtime with the direct algorithm forced, and by
/// the interpreter, on random inputs, twice (buffers are reused across runs).
fn check(x: &str, k: &str, out: &str, window: &str) {
    let hlo = format!(
        "HloModule m\nENTRY main {{\n  x = f32{x}{{3,2,1,0}} parameter(0)\n  k = f32{k}{{3,2,1,0}} parameter(1)\n  ROOT c = f32{out}{{3,2,1,0}} convolution(x, k), window={{{window}}}, dim_labels=b01f_01io->b01f\n}}\n"
    );
    let (module, mut exe) = build(&hlo);
    // Force the direct algorithm; it must be a candidate (else the test would silently
    // run another algorithm).
    let direct = Choice::Conv(ConvAlgorithm::DirectSmallK);
    let tunables = exe.tunables();
    let conv = tunables
        .iter()
        .find(|t| t.candidates.contains(&direct))
        .unwrap_or_else(|| panic!("direct convolution does not apply\n{hlo}"));
    let index = conv.index;
    exe.set_choice(index, direct);
    let args = random_args(&module, 7);
    assert_matches_interpreter(&module, &mut exe, &args, Tolerance::for_type(F32));
}

#[test]
fn small_channel_counts_and_odd_output_widths() {
    // The cnn benchmark's first layer (smaller): C_in 3, C_out 16, padding 1.
    check(
        "[2,9,20,3]",
        "[3,3,3,16]",
        "[2,9,20,16]",
        "size=3x3 pad=1_1x1_1",
    );
    // C_out not a multiple of 16: 1, 5, 17, 33; C_in 1 and 4.
    check(
        "[1,6,13,1]",
        "[3,3,1,1]",
        "[1,6,13,1]",
        "size=3x3 pad=1_1x1_1",
    );
    check(
        "[3,7,11,4]",
        "[3,3,4,5]",
        "[3,7,11,5]",
        "size=3x3 pad=1_1x1_1",
    );
    check(
        "[1,8,21,3]",
        "[3,3,3,17]",
        "[1,8,21,17]",
        "size=3x3 pad=1_1x1_1",
    );
    check(
        "[1,5,19,4]",
        "[3,3,4,33]",
        "[1,5,19,33]",
        "size=3x3 pad=1_1x1_1",
    );
    check(
        "[2,6,18,3]",
        "[3,3,3,32]",
        "[2,6,18,32]",
        "size=3x3 pad=1_1x1_1",
    );
    // Two pairs of full blocks plus a tail block (the paired AVX-512 path), stride 2.
    check(
        "[1,4,16,3]",
        "[3,3,3,70]",
        "[1,4,16,70]",
        "size=3x3 pad=1_1x1_1",
    );
    check(
        "[1,9,31,2]",
        "[3,3,2,64]",
        "[1,5,16,64]",
        "size=3x3 stride=2x2 pad=1_1x1_1",
    );
}

#[test]
fn padding_kernel_shapes_and_strides() {
    // No padding, padding 2 with a 5x5 kernel, asymmetric padding.
    check("[1,10,24,3]", "[3,3,3,16]", "[1,8,22,16]", "size=3x3");
    check(
        "[3,9,17,1]",
        "[5,5,1,5]",
        "[3,9,17,5]",
        "size=5x5 pad=2_2x2_2",
    );
    check(
        "[1,9,17,4]",
        "[3,3,4,17]",
        "[1,10,16,17]",
        "size=3x3 pad=2_1x0_1",
    );
    // 1x1 and 3x1 kernels.
    check("[2,5,23,3]", "[1,1,3,33]", "[2,5,23,33]", "size=1x1");
    check(
        "[1,7,18,4]",
        "[3,1,4,16]",
        "[1,7,18,16]",
        "size=3x1 pad=1_1x0_0",
    );
    // Stride 2, window dilation, negative padding.
    check(
        "[1,11,25,3]",
        "[3,3,3,16]",
        "[1,6,13,16]",
        "size=3x3 stride=2x2 pad=1_1x1_1",
    );
    check(
        "[1,10,26,3]",
        "[3,3,3,5]",
        "[1,4,12,5]",
        "size=3x3 stride=2x2",
    );
    check(
        "[2,12,24,1]",
        "[3,3,1,17]",
        "[2,8,20,17]",
        "size=3x3 rhs_dilate=2x2",
    );
    check(
        "[1,8,20,3]",
        "[3,3,3,5]",
        "[1,5,17,5]",
        "size=3x3 pad=-1_0x-1_0",
    );
}

#[test]
fn images_smaller_than_the_kernel_and_empty_shapes() {
    check(
        "[1,2,3,3]",
        "[5,5,3,16]",
        "[1,2,3,16]",
        "size=5x5 pad=2_2x2_2",
    );
    check(
        "[2,1,1,1]",
        "[3,3,1,5]",
        "[2,1,1,5]",
        "size=3x3 pad=1_1x1_1",
    );
    check(
        "[1,2,3,2]",
        "[3,5,2,2]",
        "[1,2,1,2]",
        "size=3x5 pad=1_1x1_1",
    );
    // Nothing to reduce over, and an empty batch.
    check("[1,3,3,0]", "[2,2,0,3]", "[1,2,2,3]", "size=2x2");
    check("[0,3,3,2]", "[2,2,2,3]", "[0,2,2,3]", "size=2x2");
}

#[test]
fn direct_is_the_default_only_for_small_depths() {
    let text = |k: &str, c: usize| {
        format!(
            "HloModule m\nENTRY main {{\n  x = f32[1,4,4,{c}]{{3,2,1,0}} parameter(0)\n  k = f32{k}{{3,2,1,0}} parameter(1)\n  ROOT c = f32[1,4,4,8]{{3,2,1,0}} convolution(x, k), window={{size=3x3 pad=1_1x1_1}}, dim_labels=b01f_01io->b01f\n}}\n"
        )
    };
    let default_of = |hlo: &str| build(hlo).1.tunables().first().map(|t| t.default);
    let direct = Some(Choice::Conv(ConvAlgorithm::DirectSmallK));
    let patches = Some(Choice::Conv(ConvAlgorithm::NhwcPatches));
    // K = 3·3·3 = 27 and 3·3·16 = 144 vs 3·3·32 = 288.
    assert_eq!(default_of(&text("[3,3,3,8]", 3)), direct);
    assert_eq!(default_of(&text("[3,3,16,8]", 16)), direct);
    assert_eq!(default_of(&text("[3,3,32,8]", 32)), patches);
    // Column-major input: neither fast path applies, so no choice at all.
    let column_major =
        text("[3,3,3,8]", 3).replace("f32[1,4,4,3]{3,2,1,0}", "f32[1,4,4,3]{0,1,2,3}");
    assert_eq!(default_of(&column_major), None);
}
