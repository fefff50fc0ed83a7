module {
  func.func @imag_op_test_c128() {
    %cst = stablehlo.constant dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f64>>
    %0 = stablehlo.imag %cst : (tensor<2xcomplex<f64>>) -> tensor<2xf64>
    return
  }
}
