module {
  func.func @not_op_test_si8() {
    %c = stablehlo.constant dense<[127, -128, 0]> : tensor<3xi8>
    %0 = stablehlo.not %c : tensor<3xi8>
    return
  }
}
