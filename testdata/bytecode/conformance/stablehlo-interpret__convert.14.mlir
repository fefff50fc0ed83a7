module {
  func.func @convert_op_test_ui64_to_c128() {
    %c = stablehlo.constant dense<[0, 1]> : tensor<2xui4>
    %0 = stablehlo.convert %c : (tensor<2xui4>) -> tensor<2xcomplex<f64>>
    return
  }
}
