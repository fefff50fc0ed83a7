module {
  func.func @sign_op_test_f64() {
    %cst = stablehlo.constant dense<[0x7FFFFFFFFFFFFFFF, -1.000000e+00, -0.000000e+00, 0.000000e+00, 1.000000e+00]> : tensor<5xf64>
    %0 = stablehlo.sign %cst : tensor<5xf64>
    return
  }
}
