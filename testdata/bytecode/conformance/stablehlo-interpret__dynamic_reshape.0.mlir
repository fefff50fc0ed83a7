module {
  func.func @dynamic_reshape_op_test_si64() {
    %c = stablehlo.constant dense<[[1, 2, 3, 4, 5, 6]]> : tensor<1x6xi64>
    %c_0 = stablehlo.constant dense<6> : tensor<1xi64>
    %0 = stablehlo.dynamic_reshape %c, %c_0 : (tensor<1x6xi64>, tensor<1xi64>) -> tensor<6xi64>
    return
  }
}
