module {
  func.func @negate_op_test_ui4() {
    %c = stablehlo.constant dense<[0, 8, 15]> : tensor<3xui4>
    %0 = stablehlo.negate %c : tensor<3xui4>
    return
  }
}
