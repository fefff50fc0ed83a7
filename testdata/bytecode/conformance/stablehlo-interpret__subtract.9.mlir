module {
  func.func @subtract_op_test_ui64() {
    %c = stablehlo.constant dense<[0, 4294967296]> : tensor<2xui64>
    %c_0 = stablehlo.constant dense<[18446744073709551615, 4294967296]> : tensor<2xui64>
    %0 = stablehlo.subtract %c, %c_0 : tensor<2xui64>
    return
  }
}
