module {
  func.func @iota_op_test_si8_dim_1() {
    %0 = stablehlo.iota dim = 1 : tensor<3x4xi8>
    return
  }
}
