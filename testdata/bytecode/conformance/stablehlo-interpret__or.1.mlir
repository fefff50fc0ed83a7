module {
  func.func @or_op_test_ui4() {
    %c = stablehlo.constant dense<[0, 7, 15]> : tensor<3xui4>
    %c_0 = stablehlo.constant dense<15> : tensor<3xui4>
    %0 = stablehlo.or %c, %c_0 : tensor<3xui4>
    return
  }
}
