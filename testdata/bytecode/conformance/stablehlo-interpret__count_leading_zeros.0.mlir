module {
  func.func @count_leading_zeros_op_test_si64() {
    %c = stablehlo.constant dense<[[0, 1], [128, -1]]> : tensor<2x2xi64>
    %0 = stablehlo.count_leading_zeros %c : tensor<2x2xi64>
    return
  }
}
