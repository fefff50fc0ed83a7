module {
  func.func @or_op_test_ui16() {
    %c = stablehlo.constant dense<[0, 32767, 65535]> : tensor<3xui16>
    %c_0 = stablehlo.constant dense<65535> : tensor<3xui16>
    %0 = stablehlo.or %c, %c_0 : tensor<3xui16>
    return
  }
}
