module {
  func.func @not_op_test_si4() {
    %c = stablehlo.constant dense<[7, -8, 0]> : tensor<3xi4>
    %0 = stablehlo.not %c : tensor<3xi4>
    return
  }
}
