module {
  func.func @negate_op_test_si32() {
    %c = stablehlo.constant dense<[-2147483648, -65537, 0, 65536, 2147483647]> : tensor<5xi32>
    %0 = stablehlo.negate %c : tensor<5xi32>
    return
  }
}
