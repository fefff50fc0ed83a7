module {
  func.func @constant_op_test_f8_e5m2_fnuz() {
    %cst = stablehlo.constant dense<[0.000000e+00, 0.000000e+00, 1.000000e+00, 1.250000e-01, 9.375000e-02, 3.000000e+00, 5.734400e+04, -5.734400e+04, 7.629390e-06, -7.629390e-06]> : tensor<10xf8E5M2FNUZ>
    return
  }
}
