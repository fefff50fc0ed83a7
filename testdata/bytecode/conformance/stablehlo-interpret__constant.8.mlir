module {
  func.func @constant_op_test_si32() {
    %c = stablehlo.constant dense<[-2147483648, -65537, 0, 65536, 2147483647]> : tensor<5xi32>
    return
  }
}
