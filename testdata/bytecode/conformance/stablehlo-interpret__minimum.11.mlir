module {
  func.func @min_op_test_bf16() {
    %cst = stablehlo.constant dense<[0xFF80, 0xFF80, -1.000000e+00, -9.183550e-41, 0.000000e+00, 0.000000e+00, 9.183550e-41, 1.000000e+00, 0x7F80, 0x7F80, 0x7FC0]> : tensor<11xbf16>
    %cst_0 = stablehlo.constant dense<[0xFF80, -1.000000e+00, -9.183550e-41, -0.000000e+00, -0.000000e+00, 9.183550e-41, 1.000000e+00, 0x7F80, 0x7F80, 0xFF80, 0x7F80]> : tensor<11xbf16>
    %0 = stablehlo.minimum %cst, %cst_0 : tensor<11xbf16>
    return
  }
}
