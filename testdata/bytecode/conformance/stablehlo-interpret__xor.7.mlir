module {
  func.func @xor_op_test_ui32() {
    %c = stablehlo.constant dense<[0, 2147483647, 4294967295]> : tensor<3xui32>
    %c_0 = stablehlo.constant dense<4294967295> : tensor<3xui32>
    %0 = stablehlo.xor %c, %c_0 : tensor<3xui32>
    return
  }
}
