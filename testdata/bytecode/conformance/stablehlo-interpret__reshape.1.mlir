module {
  func.func @reshape_op_test_si32() {
    %c = stablehlo.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
    %0 = stablehlo.reshape %c : (tensor<6xi32>) -> tensor<2x3xi32>
    return
  }
}
