module {
  func.func @mul_op_test_bf16() {
    %cst = stablehlo.constant dense<[0.000000e+00, -0.000000e+00, 1.000000e+00, 1.250000e-01, 1.000980e-01, 3.140630e+00, 2.658460e+36, 2.658460e+36, -2.658460e+36, 2.658460e+36, 9.183550e-41]> : tensor<11xbf16>
    %cst_0 = stablehlo.constant dense<[0.000000e+00, -0.000000e+00, 7.000000e+00, 7.500000e-01, 3.007810e-01, 3.140630e+00, 0.000000e+00, 2.658460e+36, -2.658460e+36, -2.658460e+36, -9.183550e-41]> : tensor<11xbf16>
    %0 = stablehlo.multiply %cst, %cst_0 : tensor<11xbf16>
    return
  }
}
