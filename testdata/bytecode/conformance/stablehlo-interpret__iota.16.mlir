module {
  func.func @iota_op_test_f16_dim_1() {
    %0 = stablehlo.iota dim = 1 : tensor<3x4xf16>
    return
  }
}
