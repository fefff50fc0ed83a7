module {
  func.func @constant_op_test_ui64() {
    %c = stablehlo.constant dense<[0, 4294967296, 18446744073709551615]> : tensor<3xui64>
    return
  }
}
