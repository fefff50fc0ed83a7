module {
  func.func @not_op_test_ui32() {
    %c = stablehlo.constant dense<[0, 2147483647, 4294967295]> : tensor<3xui32>
    %0 = stablehlo.not %c : tensor<3xui32>
    return
  }
}
