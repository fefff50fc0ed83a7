module {
  func.func @convert_op_test_si64_to_f64() {
    %c = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi64>
    %0 = stablehlo.convert %c : (tensor<3xi64>) -> tensor<3xf64>
    return
  }
}
