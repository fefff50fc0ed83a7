module {
  func.func @abs_op_test_c64() {
    %cst = stablehlo.constant dense<(3.000000e+00,4.000000e+00)> : tensor<complex<f64>>
    %0 = stablehlo.abs %cst : (tensor<complex<f64>>) -> tensor<f64>
    return
  }
}
