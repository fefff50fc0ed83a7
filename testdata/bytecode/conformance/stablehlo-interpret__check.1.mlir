module {
  func.func @check_eq_const() {
    %c = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
    return
  }
}
