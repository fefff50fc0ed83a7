module {
  func.func @compare_op_test_f64_default() {
    %cst = stablehlo.constant dense<0xFFF0000000000001> : tensor<f64>
    %cst_0 = stablehlo.constant dense<0xFFF0000000000001> : tensor<f64>
    %0 = stablehlo.compare EQ, %cst, %cst_0 : (tensor<f64>, tensor<f64>) -> tensor<i1>
    return
  }
}
