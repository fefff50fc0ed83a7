module {
  func.func @select_op_test_si64_scalar() {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %c_0 = stablehlo.constant dense<[2, 3, -1]> : tensor<3xi64>
    %c_1 = stablehlo.constant dense<[3, 7, -3]> : tensor<3xi64>
    %0 = stablehlo.select %c, %c_0, %c_1 : tensor<i1>, tensor<3xi64>
    return
  }
}
