module {
  func.func @convert_op_test_ui64_to_f64() {
    %c = stablehlo.constant dense<[0, 1]> : tensor<2xui64>
    %0 = stablehlo.convert %c : (tensor<2xui64>) -> tensor<2xf64>
    return
  }
}
