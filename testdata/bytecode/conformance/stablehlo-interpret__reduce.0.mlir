module {
  func.func @reduce() {
    %c = stablehlo.constant dense<[[0, 1, 2, 3, 4, 5]]> : tensor<1x6xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.reduce(%c init: %c_0) applies stablehlo.add across dimensions = [1] : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
    return
  }
}
