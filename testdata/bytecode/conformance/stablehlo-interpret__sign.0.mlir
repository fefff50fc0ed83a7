module {
  func.func @sign_op_test_si64() {
    %c = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi64>
    %0 = stablehlo.sign %c : tensor<3xi64>
    return
  }
}
