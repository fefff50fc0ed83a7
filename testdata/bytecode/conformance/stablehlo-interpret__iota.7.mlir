module {
  func.func @iota_op_test_si32_dim_1() {
    %0 = stablehlo.iota dim = 1 : tensor<3x4xi32>
    return
  }
}
