module {
  func.func @probe_si64() {
    %c = stablehlo.constant dense<[[-127], [126], [0]]> : tensor<3x1xi64>
    %c_0 = stablehlo.constant dense<[[-1], [1], [1]]> : tensor<3x1xi64>
    %0 = stablehlo.add %c, %c_0 : tensor<3x1xi64>
    return
  }
}
