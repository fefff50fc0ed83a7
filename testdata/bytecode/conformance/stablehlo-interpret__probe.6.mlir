module {
  func.func @probe_c32() {
    %cst = stablehlo.constant dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00), (5.000000e+00,6.000000e+00)]> : tensor<3xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(1.000000e+00,1.000000e+00)> : tensor<3xcomplex<f32>>
    %0 = stablehlo.add %cst, %cst_0 : tensor<3xcomplex<f32>>
    return
  }
}
