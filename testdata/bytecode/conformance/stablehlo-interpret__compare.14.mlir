module {
  func.func @compare_op_test_i1_default() {
    %c = stablehlo.constant dense<true> : tensor<i1>
    %c_0 = stablehlo.constant dense<true> : tensor<i1>
    %0 = stablehlo.compare EQ, %c, %c_0 : (tensor<i1>, tensor<i1>) -> tensor<i1>
    return
  }
}
