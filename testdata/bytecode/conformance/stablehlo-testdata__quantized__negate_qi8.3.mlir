module {
  func.func @negate_op_test_ui8() {
    %c = stablehlo.constant dense<[0, 16, 255]> : tensor<3xui8>
    %0 = stablehlo.negate %c : tensor<3xui8>
    return
  }
}
