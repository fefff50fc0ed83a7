module {
  func.func @test_complex() -> (tensor<4xcomplex<f32>>, tensor<4xcomplex<f64>>) {
    %cst = stablehlo.constant dense<(3.140000e+00,1.000000e+00)> : tensor<4xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<(3.140000e+00,1.000000e+00)> : tensor<4xcomplex<f64>>
    return %cst, %cst_0 : tensor<4xcomplex<f32>>, tensor<4xcomplex<f64>>
  }
}
