module {
  func.func @iota_op_test_c64_dim_1() {
    %0 = stablehlo.iota dim = 1 : tensor<3x4xcomplex<f32>>
    return
  }
}
