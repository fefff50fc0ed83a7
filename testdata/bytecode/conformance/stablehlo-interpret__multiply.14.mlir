module {
  func.func @mul_op_test_c128() {
    %cst = stablehlo.constant dense<[(1.500000e+00,2.500000e+00), (7.500000e+00,5.500000e+00)]> : tensor<2xcomplex<f64>>
    %cst_0 = stablehlo.constant dense<[(1.500000e+00,2.500000e+00), (7.500000e+00,5.500000e+00)]> : tensor<2xcomplex<f64>>
    %0 = stablehlo.multiply %cst, %cst_0 : tensor<2xcomplex<f64>>
    return
  }
}
