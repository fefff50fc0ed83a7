module {
  func.func @reduce_precision_op_test_f64_zero_mantissa_bits() {
    %cst = stablehlo.constant dense<0x7FFFFFFFFFFFFFFF> : tensor<f64>
    %0 = stablehlo.reduce_precision %cst, format = e5m0 : tensor<f64>
    return
  }
}
