module {
  func.func @or_op_test_si8() {
    %c = stablehlo.constant dense<[127, -128, -128]> : tensor<3xi8>
    %c_0 = stablehlo.constant dense<[0, 127, -128]> : tensor<3xi8>
    %0 = stablehlo.or %c, %c_0 : tensor<3xi8>
    return
  }
}
