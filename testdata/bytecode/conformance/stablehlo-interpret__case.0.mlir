module {
  func.func @case_negative_index_default() {
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<2xi64>
    %c_1 = stablehlo.constant dense<1> : tensor<2xi64>
    %0:2 = "stablehlo.case"(%c) ({
      stablehlo.return %c_0, %c_0 : tensor<2xi64>, tensor<2xi64>
    }, {
      stablehlo.return %c_1, %c_1 : tensor<2xi64>, tensor<2xi64>
    }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)
    return
  }
}
