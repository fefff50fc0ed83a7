module {
  func.func @iota_op_test_c128_dim_1() {
    %0 = stablehlo.iota dim = 1 : tensor<3x4xcomplex<f64>>
    return
  }
}
