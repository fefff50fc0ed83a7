module {
  func.func @iota_op_test_bf16_dim_0() {
    %0 = stablehlo.iota dim = 0 : tensor<3x4xbf16>
    return
  }
}
