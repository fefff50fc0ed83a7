module {
  func.func @max_op_test_si16() {
    %c = stablehlo.constant dense<[0, 1, 128, -129, 0]> : tensor<5xi16>
    %c_0 = stablehlo.constant dense<[-32768, -1, 128, -129, 32767]> : tensor<5xi16>
    %0 = stablehlo.maximum %c, %c_0 : tensor<5xi16>
    return
  }
}
