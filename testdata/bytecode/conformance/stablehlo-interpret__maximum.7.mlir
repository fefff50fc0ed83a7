module {
  func.func @max_op_test_ui32() {
    %c = stablehlo.constant dense<[0, 65536]> : tensor<2xui32>
    %c_0 = stablehlo.constant dense<[4294967295, 65536]> : tensor<2xui32>
    %0 = stablehlo.maximum %c, %c_0 : tensor<2xui32>
    return
  }
}
