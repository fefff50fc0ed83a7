module {
  func.func @or_op_test_ui64() {
    %c = stablehlo.constant dense<[0, 9223372036854775807, 18446744073709551615]> : tensor<3xui64>
    %c_0 = stablehlo.constant dense<18446744073709551615> : tensor<3xui64>
    %0 = stablehlo.or %c, %c_0 : tensor<3xui64>
    return
  }
}
