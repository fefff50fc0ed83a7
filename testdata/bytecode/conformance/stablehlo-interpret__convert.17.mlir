module {
  func.func @convert_op_test_f64_to_ui64() {
    %cst = stablehlo.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf64>
    %0 = stablehlo.convert %cst : (tensor<2xf64>) -> tensor<2xui64>
    return
  }
}
