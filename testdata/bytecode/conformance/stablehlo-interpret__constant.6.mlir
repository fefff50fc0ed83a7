module {
  func.func @constant_op_test_si16() {
    %c = stablehlo.constant dense<[-32768, -129, 0, 128, 32767]> : tensor<5xi16>
    return
  }
}
