module {
  func.func @compare_op_test_ui64() {
    %c = stablehlo.constant dense<[0, 1]> : tensor<2xui64>
    %c_0 = stablehlo.constant dense<0> : tensor<2xui64>
    %0 = stablehlo.compare EQ, %c, %c_0, UNSIGNED : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xi1>
    return
  }
}
