module {
  func.func @min_op_test_f32() {
    %cst = stablehlo.constant dense<[0xFF800000, 0xFF800000, -1.000000e+00, -1.401300e-45, 0.000000e+00, 0.000000e+00, 1.401300e-45, 1.000000e+00, 0x7F800000, 0x7F800000, 0x7FC00000]> : tensor<11xf32>
    %cst_0 = stablehlo.constant dense<[0xFF800000, -1.000000e+00, -1.401300e-45, -0.000000e+00, -0.000000e+00, 1.401300e-45, 1.000000e+00, 0x7F800000, 0x7F800000, 0xFF800000, 0x7F800000]> : tensor<11xf32>
    %0 = stablehlo.minimum %cst, %cst_0 : tensor<11xf32>
    return
  }
}
