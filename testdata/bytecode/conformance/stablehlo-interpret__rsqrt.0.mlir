module {
  func.func @rsqrt_op_test_f64() {
    %cst = stablehlo.constant dense<[[1.000000e+00, 4.000000e+00], [9.000000e+00, 2.500000e+01]]> : tensor<2x2xf64>
    %0 = stablehlo.rsqrt %cst : tensor<2x2xf64>
    return
  }
}
