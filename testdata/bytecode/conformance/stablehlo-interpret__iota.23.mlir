module {
  func.func @iota_op_test_c128_dim_0() {
    %0 = stablehlo.iota dim = 0 : tensor<3x4xcomplex<f64>>
    return
  }
}
