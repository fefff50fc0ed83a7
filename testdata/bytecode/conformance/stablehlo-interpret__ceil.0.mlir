module {
  func.func @ceil_op_test_bf16() {
    %cst = stablehlo.constant dense<[0xFF80, -2.500000e+00, -9.183550e-41, -0.000000e+00, 0.000000e+00, 9.183550e-41, 2.500000e+00, 0x7F80, 0x7FC0]> : tensor<9xbf16>
    %0 = stablehlo.ceil %cst : tensor<9xbf16>
    return
  }
}
