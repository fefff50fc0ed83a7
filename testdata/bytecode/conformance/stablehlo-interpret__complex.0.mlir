module {
  func.func @complex_op_test_f64() {
    %cst = stablehlo.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf64>
    %cst_0 = stablehlo.constant dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf64>
    %0 = stablehlo.complex %cst, %cst_0 : tensor<2xcomplex<f64>>
    return
  }
}
