module {
  func.func @square_root_op_test_f64() {
    %cst = stablehlo.constant dense<[[0.000000e+00, 1.000000e+00], [4.000000e+00, 9.000000e+00]]> : tensor<2x2xf64>
    %0 = stablehlo.sqrt %cst : tensor<2x2xf64>
    return
  }
}
