module {
  func.func @not_op_test_ui4() {
    %c = stablehlo.constant dense<[0, 7, 15]> : tensor<3xui4>
    %0 = stablehlo.not %c : tensor<3xui4>
    return
  }
}
