module {
  func.func @main(%arg0: tensor<2xi32>, %arg1: tensor<2xi32>) -> tensor<2xi32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2xi32>
    return %0 : tensor<2xi32>
  }
}
