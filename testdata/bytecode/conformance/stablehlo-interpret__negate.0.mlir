module {
  func.func @negate_op_test_si4() {
    %c = stablehlo.constant dense<[-8, -1, 0, 1, 7]> : tensor<5xi4>
    %0 = stablehlo.negate %c : tensor<5xi4>
    return
  }
}
