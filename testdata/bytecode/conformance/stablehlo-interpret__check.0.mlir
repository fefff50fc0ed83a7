module {
  func.func @check_eq() {
    %c = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
    %c_0 = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
    return
  }
}
