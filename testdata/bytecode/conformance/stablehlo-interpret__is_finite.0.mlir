module {
  func.func @is_finite_op_test_f64() {
    %cst = stablehlo.constant dense<[0xFFF0000000000000, 0x7FF0000000000000, 0x7FF8000000000000, -1.000000e+01, -0.000000e+00, 0.000000e+00, 1.000000e+01]> : tensor<7xf64>
    %0 = stablehlo.is_finite %cst : (tensor<7xf64>) -> tensor<7xi1>
    return
  }
}
