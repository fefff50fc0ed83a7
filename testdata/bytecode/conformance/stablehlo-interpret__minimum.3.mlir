module {
  func.func @min_op_test_ui8() {
    %c = stablehlo.constant dense<[0, 16]> : tensor<2xui8>
    %c_0 = stablehlo.constant dense<[255, 16]> : tensor<2xui8>
    %0 = stablehlo.minimum %c, %c_0 : tensor<2xui8>
    return
  }
}
