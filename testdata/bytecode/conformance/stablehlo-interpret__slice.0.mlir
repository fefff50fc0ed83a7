module {
  func.func @slice_op() {
    %c = stablehlo.constant dense<[[0, 0, 1, 0, 0, 1], [0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 1]]> : tensor<3x6xi64>
    %0 = stablehlo.slice %c [0:3:2, 2:6:3] : (tensor<3x6xi64>) -> tensor<2x2xi64>
    return
  }
}
