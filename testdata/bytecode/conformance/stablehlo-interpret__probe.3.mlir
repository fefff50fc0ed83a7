module {
  func.func @probe_ui64() {
    %c = stablehlo.constant dense<[[32766, 0], [0, 0]]> : tensor<2x2xui64>
    %c_0 = stablehlo.constant dense<[[1, 1], [2, 2]]> : tensor<2x2xui64>
    %0 = stablehlo.add %c, %c_0 : tensor<2x2xui64>
    return
  }
}
