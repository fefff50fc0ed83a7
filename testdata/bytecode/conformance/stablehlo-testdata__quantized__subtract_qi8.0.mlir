module {
  func.func @subtract_op_test_si4() {
    %c = stablehlo.constant dense<[0, 1, 2, -3, 0]> : tensor<5xi4>
    %c_0 = stablehlo.constant dense<[-8, -1, 2, -3, 7]> : tensor<5xi4>
    %0 = stablehlo.subtract %c, %c_0 : tensor<5xi4>
    return
  }
}
