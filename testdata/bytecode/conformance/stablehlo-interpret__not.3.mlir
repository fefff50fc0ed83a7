module {
  func.func @not_op_test_ui8() {
    %c = stablehlo.constant dense<[0, 127, 255]> : tensor<3xui8>
    %0 = stablehlo.not %c : tensor<3xui8>
    return
  }
}
