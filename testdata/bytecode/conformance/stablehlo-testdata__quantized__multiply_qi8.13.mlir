module {
  func.func @mul_op_test_c64() {
    %cst = stablehlo.constant dense<[(1.500000e+00,2.500000e+00), (7.500000e+00,5.500000e+00)]> : tensor<2xcomplex<f32>>
    %0 = stablehlo.multiply %cst, %cst : tensor<2xcomplex<f32>>
    return
  }
}
