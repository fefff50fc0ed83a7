module {
  func.func @cbrt_op_test_f64() {
    %cst = stablehlo.constant dense<[0.000000e+00, 1.000000e+00, 8.000000e+00, 2.700000e+01]> : tensor<4xf64>
    %0 = stablehlo.cbrt %cst : tensor<4xf64>
    return
  }
}
