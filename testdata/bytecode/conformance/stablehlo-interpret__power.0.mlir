module {
  func.func @power_op_test_si64() {
    %c = stablehlo.constant dense<[-1, -1, -3, 1, -3, 0]> : tensor<6xi64>
    %c_0 = stablehlo.constant dense<[1, 0, -3, -3, 3, 2]> : tensor<6xi64>
    %0 = stablehlo.power %c, %c_0 : tensor<6xi64>
    return
  }
}
