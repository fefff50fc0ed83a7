module {
  func.func @bitcast_convert_op_test_i64_to_f64() {
    %c = stablehlo.constant dense<81985529216486895> : tensor<i64>
    %0 = stablehlo.bitcast_convert %c : (tensor<i64>) -> tensor<f64>
    return
  }
}
