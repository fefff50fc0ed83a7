module {
  func.func @divide_op_test_si64() {
    %c = stablehlo.constant dense<[17, -17, 17, -17]> : tensor<4xi64>
    %c_0 = stablehlo.constant dense<[3, 3, -3, -3]> : tensor<4xi64>
    %0 = stablehlo.divide %c, %c_0 : tensor<4xi64>
    return
  }
}
