module {
  func.func @probe_i1() {
    %c = stablehlo.constant dense<false> : tensor<3x1xi1>
    %c_0 = stablehlo.constant dense<true> : tensor<3x1xi1>
    %0 = stablehlo.add %c, %c_0 : tensor<3x1xi1>
    return
  }
}
