module {
  func.func @check_almost_eq_tolerance() {
    %cst = stablehlo.constant dense<5.000000e+00> : tensor<f64>
    %cst_0 = stablehlo.constant dense<5.000100e+00> : tensor<f64>
    return
  }
}
