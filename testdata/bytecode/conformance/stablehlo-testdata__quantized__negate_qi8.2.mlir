module {
  func.func @negate_op_test_si8() {
    %c = stablehlo.constant dense<[-128, -9, 0, 8, 127]> : tensor<5xi8>
    %0 = stablehlo.negate %c : tensor<5xi8>
    return
  }
}
