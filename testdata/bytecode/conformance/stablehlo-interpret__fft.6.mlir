module {
  func.func @fft_op_test_rfft_1d_f64() {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf64>
    %0 = stablehlo.fft %cst, type = RFFT, length = [4] : (tensor<4xf64>) -> tensor<3xcomplex<f64>>
    return
  }
}
