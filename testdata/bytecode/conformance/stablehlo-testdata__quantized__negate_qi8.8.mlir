module {
  func.func @negate_op_test_si64() {
    %c = stablehlo.constant dense<[-9223372036854775808, -2147483649, 0, 2147483648, 9223372036854775807]> : tensor<5xi64>
    %0 = stablehlo.negate %c : tensor<5xi64>
    return
  }
}
