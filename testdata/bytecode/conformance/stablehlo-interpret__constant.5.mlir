module {
  func.func @constant_op_test_ui8() {
    %c = stablehlo.constant dense<[0, 16, 255]> : tensor<3xui8>
    return
  }
}
