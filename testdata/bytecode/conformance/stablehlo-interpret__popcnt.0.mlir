module {
  func.func @popcnt_op_test_si64() {
    %c = stablehlo.constant dense<[0, 1, 2, 127]> : tensor<4xi64>
    %0 = stablehlo.popcnt %c : tensor<4xi64>
    return
  }
}
