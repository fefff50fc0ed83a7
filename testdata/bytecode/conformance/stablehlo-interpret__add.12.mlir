module {
  func.func @add_op_test_i1() {
    %c = stablehlo.constant dense<[false, false, true, true]> : tensor<4xi1>
    %c_0 = stablehlo.constant dense<[false, true, false, true]> : tensor<4xi1>
    %0 = stablehlo.add %c, %c_0 : tensor<4xi1>
    return
  }
}
