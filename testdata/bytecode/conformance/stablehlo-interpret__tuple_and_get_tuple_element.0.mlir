module {
  func.func @tuple() {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf64>
    %c = stablehlo.constant dense<3> : tensor<i64>
    %0 = stablehlo.tuple %c : tuple<tensor<i64>>
    %1 = stablehlo.tuple %cst, %0 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
    return
  }
}
