module {
  func.func @max_op_test_c64() {
    %cst = stablehlo.constant dense<[(1.500000e+00,2.500000e+00), (1.500000e+00,7.500000e+00), (0.000000e+00,1.500000e+00), (0.000000e+00,1.500000e+00)]> : tensor<4xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<[(7.500000e+00,1.500000e+00), (1.500000e+00,2.500000e+00), (-0.000000e+00,2.500000e+00), (0.000000e+00,1.500000e+00)]> : tensor<4xcomplex<f32>>
    %0 = stablehlo.maximum %cst, %cst_0 : tensor<4xcomplex<f32>>
    return
  }
}
