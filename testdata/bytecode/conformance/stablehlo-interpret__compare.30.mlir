module {
  func.func @compare_op_test_c128() {
    %cst = stablehlo.constant dense<[(0x7FF0000000000001,0.000000e+00), (0.000000e+00,0x7FF0000000000001), (-0.000000e+00,0.000000e+00), (2.000000e+00,2.000000e+00)]> : tensor<4xcomplex<f64>>
    %cst_0 = stablehlo.constant dense<[(0x7FF0000000000001,-0.000000e+00), (-0.000000e+00,0x7FF0000000000001), (0.000000e+00,0.000000e+00), (2.000000e+00,1.000000e+00)]> : tensor<4xcomplex<f64>>
    %0 = stablehlo.compare NE, %cst, %cst_0, FLOAT : (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) -> tensor<4xi1>
    return
  }
}
