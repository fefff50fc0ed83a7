module {
  func.func @reduce_precision_op_test_f64() {
    %cst = stablehlo.constant dense<[0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 4.940660e-324, 0.000000e+00, 6.550500e+04, 6.552000e+04]> : tensor<6xf64>
    %0 = stablehlo.reduce_precision %cst, format = e5m10 : tensor<6xf64>
    return
  }
}
