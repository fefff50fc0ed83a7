module {
  func.func @mul_op_test_ui8() {
    %c = stablehlo.constant dense<[0, 16, 16]> : tensor<3xui8>
    %c_0 = stablehlo.constant dense<[255, 16, 17]> : tensor<3xui8>
    %0 = stablehlo.multiply %c, %c_0 : tensor<3xui8>
    return
  }
}
