module {
  func.func @exponential_minus_one_op_test_f64() {
    %cst = stablehlo.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf64>
    %0 = stablehlo.exponential_minus_one %cst : tensor<2xf64>
    return
  }
}
