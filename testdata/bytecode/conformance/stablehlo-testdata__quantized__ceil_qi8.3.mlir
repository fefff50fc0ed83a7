module {
  func.func @ceil_op_test_f64() {
    %cst = stablehlo.constant dense<[0xFFF0000000000000, -2.500000e+00, -4.940660e-324, -0.000000e+00, 0.000000e+00, 4.940660e-324, 2.500000e+00, 0x7FF0000000000000, 0x7FF8000000000000]> : tensor<9xf64>
    %0 = stablehlo.ceil %cst : tensor<9xf64>
    return
  }
}
