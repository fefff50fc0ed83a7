module {
  func.func @iota_op_test_f64_dim_0() {
    %0 = stablehlo.iota dim = 0 : tensor<3x4xf64>
    return
  }
}
