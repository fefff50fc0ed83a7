module {
  func.func @compare_op_test_ui64_default() {
    %c = stablehlo.constant dense<0> : tensor<ui64>
    %c_0 = stablehlo.constant dense<0> : tensor<ui64>
    %0 = stablehlo.compare EQ, %c, %c_0 : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
    return
  }
}
