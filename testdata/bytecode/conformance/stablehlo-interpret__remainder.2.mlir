module {
  func.func @remainder_op_test_f64() {
    %cst = stablehlo.constant dense<[1.710000e+01, -1.710000e+01, 1.710000e+01, -1.710000e+01]> : tensor<4xf64>
    %cst_0 = stablehlo.constant dense<[3.000000e+00, 3.000000e+00, -3.000000e+00, -3.000000e+00]> : tensor<4xf64>
    %0 = stablehlo.remainder %cst, %cst_0 : tensor<4xf64>
    return
  }
}
