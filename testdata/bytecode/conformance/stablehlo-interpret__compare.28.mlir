module {
  func.func @compare_op_test_c128_default() {
    %cst = stablehlo.constant dense<(0x7FF0000000000001,0.000000e+00)> : tensor<complex<f64>>
    %cst_0 = stablehlo.constant dense<(0x7FF0000000000001,-0.000000e+00)> : tensor<complex<f64>>
    %0 = stablehlo.compare EQ, %cst, %cst_0 : (tensor<complex<f64>>, tensor<complex<f64>>) -> tensor<i1>
    return
  }
}
