module {
  func.func @iota_op_test_si64_dim_1() {
    %0 = stablehlo.iota dim = 1 : tensor<3x4xi64>
    return
  }
}
