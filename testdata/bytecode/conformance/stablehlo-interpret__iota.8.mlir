module {
  func.func @iota_op_test_si64_dim_0() {
    %0 = stablehlo.iota dim = 0 : tensor<3x4xi64>
    return
  }
}
