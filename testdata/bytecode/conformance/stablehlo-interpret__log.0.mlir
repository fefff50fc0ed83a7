module {
  func.func @log_op_test_f64() {
    %cst = stablehlo.constant dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>
    %0 = stablehlo.log %cst : tensor<2x2xf64>
    return
  }
}
