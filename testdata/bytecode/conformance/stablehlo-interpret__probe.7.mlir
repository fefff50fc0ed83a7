module {
  func.func @probe_sanitized_probe_id() {
    %c = stablehlo.constant dense<[[1], [2], [3]]> : tensor<3x1xi64>
    %c_0 = stablehlo.constant dense<[[4], [5], [6]]> : tensor<3x1xi64>
    %0 = stablehlo.add %c, %c_0 : tensor<3x1xi64>
    return
  }
}
