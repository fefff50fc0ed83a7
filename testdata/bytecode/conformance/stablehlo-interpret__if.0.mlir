module {
  func.func @if_ops_true_branch() {
    %c = stablehlo.constant dense<true> : tensor<i1>
    %0:2 = "stablehlo.if"(%c) ({
      %c_0 = stablehlo.constant dense<0> : tensor<2xi64>
      stablehlo.return %c_0, %c_0 : tensor<2xi64>, tensor<2xi64>
    }, {
      %c_0 = stablehlo.constant dense<1> : tensor<2xi64>
      stablehlo.return %c_0, %c_0 : tensor<2xi64>, tensor<2xi64>
    }) : (tensor<i1>) -> (tensor<2xi64>, tensor<2xi64>)
    return
  }
}
