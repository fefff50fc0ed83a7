module {
  func.func @not_op_test_ui16() {
    %c = stablehlo.constant dense<[0, 32767, 65535]> : tensor<3xui16>
    %0 = stablehlo.not %c : tensor<3xui16>
    return
  }
}
