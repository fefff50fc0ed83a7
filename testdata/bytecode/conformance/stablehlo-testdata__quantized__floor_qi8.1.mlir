module {
  func.func @floor_op_test_f16() {
    %cst = stablehlo.constant dense<[0xFC00, -2.500000e+00, -5.960460e-08, -0.000000e+00, 0.000000e+00, 5.960460e-08, 2.500000e+00, 0x7C00, 0x7E00]> : tensor<9xf16>
    %0 = stablehlo.floor %cst : tensor<9xf16>
    return
  }
}
