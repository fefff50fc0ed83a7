module {
  func.func @dynamic_update_slice() {
    %c = stablehlo.constant dense<[[1, 1, 1, 1], [1, 1, 1, 1], [1, 2, 2, 2], [1, 2, 2, 2]]> : tensor<4x4xi64>
    %c_0 = stablehlo.constant dense<1> : tensor<2x3xi64>
    %c_1 = stablehlo.constant dense<4> : tensor<i64>
    %c_2 = stablehlo.constant dense<4> : tensor<i64>
    %0 = stablehlo.dynamic_update_slice %c, %c_0, %c_1, %c_2 : (tensor<4x4xi64>, tensor<2x3xi64>, tensor<i64>, tensor<i64>) -> tensor<4x4xi64>
    return
  }
}
