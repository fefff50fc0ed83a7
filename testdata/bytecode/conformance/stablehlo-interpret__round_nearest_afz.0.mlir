module {
  func.func @round_nearest_afz_op_test_f64() {
    %cst = stablehlo.constant dense<[-2.500000e+00, 4.000000e-01, 5.000000e-01, 6.000000e-01, 2.500000e+00]> : tensor<5xf64>
    %0 = stablehlo.round_nearest_afz %cst : tensor<5xf64>
    return
  }
}
