module {
  func.func @constant_op_test_ui32() {
    %c = stablehlo.constant dense<[0, 65536, 4294967295]> : tensor<3xui32>
    return
  }
}
