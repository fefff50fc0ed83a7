module {
  func.func @or_op_test_si32() {
    %c = stablehlo.constant dense<[2147483647, -2147483648, -2147483648]> : tensor<3xi32>
    %c_0 = stablehlo.constant dense<[0, 2147483647, -2147483648]> : tensor<3xi32>
    %0 = stablehlo.or %c, %c_0 : tensor<3xi32>
    return
  }
}
