module {
  func.func @reshape_op_test_si32() {
    %c = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
    %0 = stablehlo.reshape %c : (tensor<2x3xi32>) -> tensor<3x2xi32>
    return
  }
}
