module {
  func.func @convert_op_test_ui64_to_ui64() {
    %c = stablehlo.constant dense<[0, 1]> : tensor<2xui4>
    %0 = stablehlo.convert %c : (tensor<2xui4>) -> tensor<2xui64>
    return
  }
}
