module {
  func.func @probe_bf16() {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.500000e+00, -3.000000e+00]> : tensor<3xbf16>
    %cst_0 = stablehlo.constant dense<[5.000000e-01, 1.500000e+00, 0.000000e+00]> : tensor<3xbf16>
    %0 = stablehlo.add %cst, %cst_0 : tensor<3xbf16>
    return
  }
}
