module {
  func.func @convert_op_test_i1_to_i1() {
    %c = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %0 = stablehlo.convert %c : tensor<2xi1>
    return
  }
}
