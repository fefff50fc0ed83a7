module {
  func.func @power_op_test_ui64() {
    %c = stablehlo.constant dense<[0, 0, 1, 1, 5]> : tensor<5xui64>
    %c_0 = stablehlo.constant dense<[0, 1, 0, 2, 5]> : tensor<5xui64>
    %0 = stablehlo.power %c, %c_0 : tensor<5xui64>
    return
  }
}
