module {
  func.func @ceil_op_test_f32() {
    %cst = stablehlo.constant dense<[0xFF800000, -2.500000e+00, -1.401300e-45, -0.000000e+00, 0.000000e+00, 1.401300e-45, 2.500000e+00, 0x7F800000, 0x7FC00000]> : tensor<9xf32>
    %0 = stablehlo.ceil %cst : tensor<9xf32>
    return
  }
}
