module {
  func.func @not_op_test_i1() {
    %c = stablehlo.constant dense<[false, true]> : tensor<2xi1>
    %0 = stablehlo.not %c : tensor<2xi1>
    return
  }
}
