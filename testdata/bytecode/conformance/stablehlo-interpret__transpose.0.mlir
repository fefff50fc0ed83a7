module {
  func.func @transpose_op_test_si32() {
    %c = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]> : tensor<2x3x2xi32>
    %0 = stablehlo.transpose %c, dims = [1, 0, 2] : (tensor<2x3x2xi32>) -> tensor<3x2x2xi32>
    return
  }
}
