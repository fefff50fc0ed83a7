module {
  func.func @dynamic_slice() {
    %c = stablehlo.constant dense<1> : tensor<3x3xi64>
    %c_0 = stablehlo.constant dense<3> : tensor<i64>
    %c_1 = stablehlo.constant dense<3> : tensor<i64>
    %0 = stablehlo.dynamic_slice %c, %c_0, %c_1, sizes = [3, 3] : (tensor<3x3xi64>, tensor<i64>, tensor<i64>) -> tensor<3x3xi64>
    return
  }
}
