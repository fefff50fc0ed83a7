module {
  func.func @iota_op_test_ui64_dim_1() {
    %0 = stablehlo.iota dim = 1 : tensor<2x3x2xui64>
    return
  }
}
