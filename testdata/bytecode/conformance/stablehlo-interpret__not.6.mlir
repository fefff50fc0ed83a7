module {
  func.func @not_op_test_si32() {
    %c = stablehlo.constant dense<[2147483647, -2147483648, 0]> : tensor<3xi32>
    %0 = stablehlo.not %c : tensor<3xi32>
    return
  }
}
