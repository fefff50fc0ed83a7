module {
  func.func @constant_op_test_ui4() {
    %c = stablehlo.constant dense<[0, 8, 15]> : tensor<3xui4>
    return
  }
}
