module {
  func.func @iota_op_test_si16_dim_0() {
    %0 = stablehlo.iota dim = 0 : tensor<3x4xi16>
    return
  }
}
