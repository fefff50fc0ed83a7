module {
  func.func @square_root_op_test_c128() {
    %cst = stablehlo.constant dense<[(-1.000000e+00,0.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f64>>
    %0 = stablehlo.sqrt %cst : tensor<2xcomplex<f64>>
    return
  }
}
