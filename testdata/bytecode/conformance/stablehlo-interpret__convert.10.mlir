module {
  func.func @convert_op_test_ui64_to_i1() {
    %c = stablehlo.constant dense<[0, 1]> : tensor<2xui64>
    %0 = stablehlo.convert %c : (tensor<2xui64>) -> tensor<2xi1>
    return
  }
}
