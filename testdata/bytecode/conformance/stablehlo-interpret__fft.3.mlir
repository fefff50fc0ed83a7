module {
  func.func @fft_op_test_ifft_1d_c128() {
    %cst = stablehlo.constant dense<[(4.000000e+00,-2.000000e+00), (-2.000000e+00,6.000000e+00)]> : tensor<2xcomplex<f64>>
    %0 = stablehlo.fft %cst, type = IFFT, length = [2] : (tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f64>>
    return
  }
}
