module {
  func.func @convert_op_test_i1_to_si64() {
    %c = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %0 = stablehlo.convert %c : (tensor<2xi1>) -> tensor<2xi64>
    return
  }
}
