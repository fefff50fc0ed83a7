module {
  func.func @concatenate() {
    %c = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
    %c_0 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
    %0 = stablehlo.concatenate %c, %c_0, dim = 0 : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>
    return
  }
}
