module {
  func.func @check_almost_eq_const() {
    %cst = stablehlo.constant dense<5.000000e+00> : tensor<f64>
    return
  }
}
