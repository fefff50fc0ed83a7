module {
  func.func @max_op_test_si8() {
    %c = stablehlo.constant dense<[0, 1, 8, -9, 0]> : tensor<5xi8>
    %c_0 = stablehlo.constant dense<[-128, -1, 8, -9, 127]> : tensor<5xi8>
    %0 = stablehlo.maximum %c, %c_0 : tensor<5xi8>
    return
  }
}
