module {
  func.func @or_op_test_si4() {
    %c = stablehlo.constant dense<[7, -8, -8]> : tensor<3xi4>
    %c_0 = stablehlo.constant dense<[0, 7, -8]> : tensor<3xi4>
    %0 = stablehlo.or %c, %c_0 : tensor<3xi4>
    return
  }
}
