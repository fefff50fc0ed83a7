module {
  func.func @add_op_test_si64() {
    %c = stablehlo.constant dense<[0, 1, 2147483648, -2147483649, 0]> : tensor<5xi64>
    %c_0 = stablehlo.constant dense<[-9223372036854775808, -1, 2147483648, -2147483649, 9223372036854775807]> : tensor<5xi64>
    %0 = stablehlo.add %c, %c_0 : tensor<5xi64>
    return
  }
}
