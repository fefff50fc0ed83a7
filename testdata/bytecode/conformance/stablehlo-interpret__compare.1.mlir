module {
  func.func @compare_op_test_si64() {
    %c = stablehlo.constant dense<[-2, -1, 0, 2, 2]> : tensor<5xi64>
    %c_0 = stablehlo.constant dense<[-2, -2, 0, 1, 2]> : tensor<5xi64>
    %0 = stablehlo.compare EQ, %c, %c_0, SIGNED : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi1>
    return
  }
}
