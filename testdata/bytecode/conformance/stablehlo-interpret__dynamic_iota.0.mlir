module {
  func.func @dynamic_iota_op_test_si64_dim_0() {
    %c = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %0 = stablehlo.dynamic_iota %c, dim = 0 : (tensor<2xi64>) -> tensor<3x4xi64>
    return
  }
}
