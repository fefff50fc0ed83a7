module {
  func.func @broadcast_in_dim() {
    %c = stablehlo.constant dense<[[1], [2], [3]]> : tensor<3x1xi64>
    %0 = stablehlo.broadcast_in_dim %c, dims = [0, 2] : (tensor<3x1xi64>) -> tensor<3x2x2xi64>
    return
  }
}
