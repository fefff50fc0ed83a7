module {
  func.func @iota_op_test_c64_dim_0() {
    %0 = stablehlo.iota dim = 0 : tensor<3x4xcomplex<f32>>
    return
  }
}
