module {
  func.func @fft_op_test_irfft_1d_c128() {
    %cst = stablehlo.constant dense<[(1.000000e+01,0.000000e+00), (-2.000000e+00,2.000000e+00), (-2.000000e+00,0.000000e+00)]> : tensor<3xcomplex<f64>>
    %0 = stablehlo.fft %cst, type = IRFFT, length = [4] : (tensor<3xcomplex<f64>>) -> tensor<4xf64>
    return
  }
}
