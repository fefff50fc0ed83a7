module {
  func.func @reverse() {
    %c = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
    %0 = stablehlo.reverse %c, dims = [1, 0] : tensor<3x2xi64>
    return
  }
}
