module {
  func.func @round_nearest_even_op_test_f64() {
    %cst = stablehlo.constant dense<[-2.500000e+00, 4.000000e-01, 5.000000e-01, 6.000000e-01, 2.500000e+00]> : tensor<5xf64>
    %0 = stablehlo.round_nearest_even %cst : tensor<5xf64>
    return
  }
}
