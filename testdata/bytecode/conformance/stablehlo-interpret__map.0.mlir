module {
  func.func @map_op_test_si64() {
    %c = stablehlo.constant dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>
    %c_0 = stablehlo.constant dense<[[4, 5], [6, 7]]> : tensor<2x2xi64>
    %0 = "stablehlo.map"(%c, %c_0) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.multiply %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
    }) : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
    return
  }
}
