module {
  func.func @max_op_test_f16() {
    %cst = stablehlo.constant dense<[0xFC00, 0xFC00, -1.000000e+00, -5.960460e-08, 0.000000e+00, 0.000000e+00, 5.960460e-08, 1.000000e+00, 0x7C00, 0x7C00, 0x7E00]> : tensor<11xf16>
    %cst_0 = stablehlo.constant dense<[0xFC00, -1.000000e+00, -5.960460e-08, -0.000000e+00, -0.000000e+00, 5.960460e-08, 1.000000e+00, 0x7C00, 0x7C00, 0xFC00, 0x7C00]> : tensor<11xf16>
    %0 = stablehlo.maximum %cst, %cst_0 : tensor<11xf16>
    return
  }
}
