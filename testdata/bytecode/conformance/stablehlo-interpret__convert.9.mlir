module {
  func.func @convert_op_test_si64_to_c128() {
    %c = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi4>
    %0 = stablehlo.convert %c : (tensor<3xi4>) -> tensor<3xcomplex<f64>>
    return
  }
}
