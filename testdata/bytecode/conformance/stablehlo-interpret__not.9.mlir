module {
  func.func @not_op_test_ui64() {
    %c = stablehlo.constant dense<[0, 9223372036854775807, 18446744073709551615]> : tensor<3xui64>
    %0 = stablehlo.not %c : tensor<3xui64>
    return
  }
}
