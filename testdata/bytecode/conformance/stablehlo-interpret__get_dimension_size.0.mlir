module {
  func.func @get_dimension_size_op_test_si64() {
    %c = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
    %0 = stablehlo.get_dimension_size %c, dim = 1 : (tensor<2x3xi64>) -> tensor<i32>
    return
  }
}
