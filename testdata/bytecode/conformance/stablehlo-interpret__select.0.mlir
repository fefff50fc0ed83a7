module {
  func.func @select_op_test_si64() {
    %c = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
    %c_0 = stablehlo.constant dense<[2, 3, -1]> : tensor<3xi64>
    %c_1 = stablehlo.constant dense<[3, 7, -3]> : tensor<3xi64>
    %0 = stablehlo.select %c, %c_0, %c_1 : tensor<3xi1>, tensor<3xi64>
    return
  }
}
