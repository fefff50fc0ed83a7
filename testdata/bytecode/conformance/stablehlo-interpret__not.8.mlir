module {
  func.func @not_op_test_si64() {
    %c = stablehlo.constant dense<[9223372036854775807, -9223372036854775808, 0]> : tensor<3xi64>
    %0 = stablehlo.not %c : tensor<3xi64>
    return
  }
}
