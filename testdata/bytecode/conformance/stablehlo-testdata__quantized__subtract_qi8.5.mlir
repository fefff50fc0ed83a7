module {
  func.func @subtract_op_test_ui16() {
    %c = stablehlo.constant dense<[0, 256]> : tensor<2xui16>
    %c_0 = stablehlo.constant dense<[65535, 256]> : tensor<2xui16>
    %0 = stablehlo.subtract %c, %c_0 : tensor<2xui16>
    return
  }
}
