module {
  func.func @add_op_test_ui4() {
    %c = stablehlo.constant dense<[0, 2]> : tensor<2xui4>
    %c_0 = stablehlo.constant dense<[15, 3]> : tensor<2xui4>
    %0 = stablehlo.add %c, %c_0 : tensor<2xui4>
    return
  }
}
