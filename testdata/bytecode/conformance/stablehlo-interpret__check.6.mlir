module {
  func.func @check_close() {
    %cst = stablehlo.constant dense<5.000000e+00> : tensor<f16>
    %cst_0 = stablehlo.constant dense<5.011720e+00> : tensor<f16>
    return
  }
}
