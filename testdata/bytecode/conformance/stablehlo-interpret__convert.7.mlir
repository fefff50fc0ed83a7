module {
  func.func @convert_op_test_si64_to_ui64() {
    %c = stablehlo.constant dense<[0, 1]> : tensor<2xi4>
    %0 = stablehlo.convert %c : (tensor<2xi4>) -> tensor<2xui64>
    return
  }
}
