module {
  func.func @real_op_test_f64() {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf64>
    %0 = stablehlo.real %cst : tensor<2xf64>
    return
  }
}
