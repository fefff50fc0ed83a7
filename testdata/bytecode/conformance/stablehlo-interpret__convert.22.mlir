module {
  func.func @convert_op_test_c128_to_ui64() {
    %cst = stablehlo.constant dense<[(0.000000e+00,1.000000e+00), (1.000000e+00,0.000000e+00)]> : tensor<2xcomplex<f64>>
    %0 = stablehlo.convert %cst : (tensor<2xcomplex<f64>>) -> tensor<2xui64>
    return
  }
}
