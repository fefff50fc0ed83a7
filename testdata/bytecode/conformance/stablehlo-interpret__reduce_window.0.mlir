module {
  func.func @reduce_window() {
    %c = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %0 = "stablehlo.reduce_window"(%c, %c_0) <{base_dilations = array<i64: 2, 1>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 3, 1>, window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>}> ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
    }) : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>
    return
  }
}
