module {
  func.func @subtract_op_test_ui4() {
    %c = stablehlo.constant dense<[0, 2]> : tensor<2xui4>
    %c_0 = stablehlo.constant dense<[15, 3]> : tensor<2xui4>
    %0 = stablehlo.subtract %c, %c_0 : tensor<2xui4>
    return
  }
}
