module {
  func.func @and_op_test_ui8() {
    %c = stablehlo.constant dense<[0, 127, 255]> : tensor<3xui8>
    %c_0 = stablehlo.constant dense<255> : tensor<3xui8>
    %0 = stablehlo.and %c, %c_0 : tensor<3xui8>
    return
  }
}
