module {
  func.func @atan2_op_test_f64() {
    %cst = stablehlo.constant dense<[0.000000e+00, 1.000000e+00, -1.000000e+00]> : tensor<3xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<3xf64>
    %0 = stablehlo.atan2 %cst, %cst_0 : tensor<3xf64>
    return
  }
}
