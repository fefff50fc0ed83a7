module {
  func.func @convert_op_test_c128_to_si64() {
    %cst = stablehlo.constant dense<[(-1.000000e+00,0.000000e+00), (0.000000e+00,1.000000e+00), (1.000000e+00,0.000000e+00)]> : tensor<3xcomplex<f64>>
    %0 = stablehlo.convert %cst : (tensor<3xcomplex<f64>>) -> tensor<3xi64>
    return
  }
}
