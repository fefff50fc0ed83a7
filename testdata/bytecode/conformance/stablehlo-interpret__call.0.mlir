module {
  func.func @add_2(%arg0: tensor<i64>) -> tensor<i64> {
    %c = stablehlo.constant dense<2> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    return %0 : tensor<i64>
  }
  func.func @main() {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = call @add_2(%c) : (tensor<i64>) -> tensor<i64>
    return
  }
}
