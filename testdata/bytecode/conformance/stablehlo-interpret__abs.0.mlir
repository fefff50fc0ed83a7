module {
  func.func @abs_op_test_si64() {
    %c = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
    %0 = stablehlo.abs %c : tensor<3xi64>
    return
  }
}
