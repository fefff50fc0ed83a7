module {
  func.func @probe_f64() {
    %cst = stablehlo.constant dense<[3.402000e+38, 1.175000e-38, 0.000000e+00]> : tensor<3xf64>
    %cst_0 = stablehlo.constant dense<[1.000000e+00, -1.000000e+00, 1.000000e+00]> : tensor<3xf64>
    %0 = stablehlo.add %cst, %cst_0 : tensor<3xf64>
    return
  }
}
