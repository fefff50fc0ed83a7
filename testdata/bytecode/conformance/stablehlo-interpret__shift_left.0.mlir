module {
  func.func @shift_left_op_test_si64() {
    %c = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi64>
    %c_0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
    %0 = stablehlo.shift_left %c, %c_0 : tensor<3xi64>
    return
  }
}
