module {
  func.func @compare_op_test_i1() {
    %c = stablehlo.constant dense<[true, true, false, false]> : tensor<4xi1>
    %c_0 = stablehlo.constant dense<[true, false, true, false]> : tensor<4xi1>
    %0 = stablehlo.compare LT, %c, %c_0, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    return
  }
}
