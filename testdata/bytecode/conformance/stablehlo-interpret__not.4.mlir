module {
  func.func @not_op_test_si16() {
    %c = stablehlo.constant dense<[32767, -32768, 0]> : tensor<3xi16>
    %0 = stablehlo.not %c : tensor<3xi16>
    return
  }
}
