module {
  func.func @constant_op_test_f8_e5m2() {
    %cst = stablehlo.constant dense<[0.000000e+00, -0.000000e+00, 1.000000e+00, 1.250000e-01, 9.375000e-02, 3.000000e+00, 0x7F, 0xFF, 1.525880e-05, -1.525880e-05]> : tensor<10xf8E5M2>
    return
  }
}
