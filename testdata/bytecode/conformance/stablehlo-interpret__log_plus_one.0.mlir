module {
  func.func @log_plus_one_op_test_f64() {
    %cst = stablehlo.constant dense<[0.000000e+00, -0.99899999999999999, 7.000000e+00, 6.3890562099999997, 1.500000e+01]> : tensor<5xf64>
    %0 = stablehlo.log_plus_one %cst : tensor<5xf64>
    return
  }
}
