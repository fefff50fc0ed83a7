module {
  func.func @and_op_test_si16() {
    %c = stablehlo.constant dense<[32767, -32768, -32768]> : tensor<3xi16>
    %c_0 = stablehlo.constant dense<[0, 32767, -32768]> : tensor<3xi16>
    %0 = stablehlo.and %c, %c_0 : tensor<3xi16>
    return
  }
}
