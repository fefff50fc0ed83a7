module {
  func.func @subtract_op_test_si32() {
    %c = stablehlo.constant dense<[0, 1, 32768, -32769, 0]> : tensor<5xi32>
    %c_0 = stablehlo.constant dense<[-2147483648, -1, 32768, -32769, 2147483647]> : tensor<5xi32>
    %0 = stablehlo.subtract %c, %c_0 : tensor<5xi32>
    return
  }
}
