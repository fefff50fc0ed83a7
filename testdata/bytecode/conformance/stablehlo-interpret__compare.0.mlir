module {
  func.func @compare_op_test_si64_default() {
    %c = stablehlo.constant dense<-2> : tensor<i64>
    %c_0 = stablehlo.constant dense<-2> : tensor<i64>
    %0 = stablehlo.compare EQ, %c, %c_0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    return
  }
}
