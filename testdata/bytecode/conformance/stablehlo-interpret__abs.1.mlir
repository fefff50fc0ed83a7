module {
  func.func @abs_op_test_f64() {
    %cst = stablehlo.constant dense<[2.310000e+01, -2.310000e+01, -0.000000e+00]> : tensor<3xf64>
    %0 = stablehlo.abs %cst : tensor<3xf64>
    return
  }
}
