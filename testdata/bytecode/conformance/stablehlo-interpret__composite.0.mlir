module {
  func.func @add_n.impl(%arg0: tensor<i64>) -> tensor<i64> {
    %c = stablehlo.constant dense<2> : tensor<i64>
    %0 = stablehlo.add %arg0, %c : tensor<i64>
    return %0 : tensor<i64>
  }
  func.func @main() {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.composite "stablehlo.add_n" %c {composite_attributes = {n = 2 : i64}, decomposition = @add_n.impl} : (tensor<i64>) -> tensor<i64>
    return
  }
}
