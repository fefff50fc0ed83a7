module {
  func.func @iota_op_test_f16_dim_0() {
    %0 = stablehlo.iota dim = 0 : tensor<3x4xf16>
    return
  }
}
