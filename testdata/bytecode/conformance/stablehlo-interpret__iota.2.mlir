module {
  func.func @iota_op_test_si8_dim_0() {
    %0 = stablehlo.iota dim = 0 : tensor<3x4xi8>
    return
  }
}
