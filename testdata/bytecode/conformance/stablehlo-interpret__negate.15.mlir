module {
  func.func @negate_op_test_c128() {
    %cst = stablehlo.constant dense<[(1.500000e+00,2.500000e+00), (3.500000e+00,4.500000e+00)]> : tensor<2xcomplex<f64>>
    %0 = stablehlo.negate %cst : tensor<2xcomplex<f64>>
    return
  }
}
