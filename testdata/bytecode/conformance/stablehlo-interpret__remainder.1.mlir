module {
  func.func @remainder_op_test_ui64() {
    %c = stablehlo.constant dense<[17, 18, 19, 20]> : tensor<4xui64>
    %c_0 = stablehlo.constant dense<[3, 4, 5, 7]> : tensor<4xui64>
    %0 = stablehlo.remainder %c, %c_0 : tensor<4xui64>
    return
  }
}
