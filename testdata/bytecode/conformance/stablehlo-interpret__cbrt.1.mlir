module {
  func.func @cbrt_op_test_c128() {
    %cst = stablehlo.constant dense<(3.000000e+00,4.000000e+00)> : tensor<complex<f64>>
    %0 = stablehlo.cbrt %cst : tensor<complex<f64>>
    return
  }
}
