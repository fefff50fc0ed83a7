module {
  func.func @exponential_op_test_c128() {
    %cst = stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f64>>
    %0 = stablehlo.exponential %cst : tensor<complex<f64>>
    return
  }
}
