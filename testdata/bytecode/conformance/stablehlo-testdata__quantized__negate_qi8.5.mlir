module {
  func.func @negate_op_test_ui16() {
    %c = stablehlo.constant dense<[0, 256, 65535]> : tensor<3xui16>
    %0 = stablehlo.negate %c : tensor<3xui16>
    return
  }
}
