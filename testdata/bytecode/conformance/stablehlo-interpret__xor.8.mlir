module {
  func.func @xor_op_test_si64() {
    %c = stablehlo.constant dense<[9223372036854775807, -9223372036854775808, -9223372036854775808]> : tensor<3xi64>
    %c_0 = stablehlo.constant dense<[0, 9223372036854775807, -9223372036854775808]> : tensor<3xi64>
    %0 = stablehlo.xor %c, %c_0 : tensor<3xi64>
    return
  }
}
